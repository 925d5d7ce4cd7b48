package dev.kvs.core.internal;

import dev.kvs.core.StorageException;
import dev.kvs.core.TxId;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The directory of a persisted store: holds an exclusive lock on it while the store is open, a
 * marker telling the next open whether the store was closed cleanly or the process died (then the
 * map files are recovered: locks held by the dead process reset, half-written entries dropped), and
 * the mark of a flush whose sweep has not finished ({@link #writeFlushMark}).
 */
final class DataDir {
    private static final String LOCK_FILE = "kvs.lock";
    private static final String CLEAN_MARKER = "clean-shutdown";
    private static final String FLUSH_MARK = "flush-mark";

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean recoveryNeeded;
    private UndoSlots undo; // guarded by this

    private DataDir(Path dir, FileChannel lockChannel, FileLock lock, boolean recoveryNeeded) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.recoveryNeeded = recoveryNeeded;
    }

    /** @throws StorageException if the directory cannot be created or another store has it open */
    static DataDir open(Path dir) {
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) throw new StorageException("data dir is in use by another store: " + dir);
            boolean clean = Files.deleteIfExists(dir.resolve(CLEAN_MARKER));
            return new DataDir(dir, channel, lock, !clean);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            if (e instanceof StorageException s) throw s;
            throw new StorageException("cannot open data dir " + dir + ": " + e, e);
        }
    }

    Path path() {
        return dir;
    }

    File file(String name) {
        return dir.resolve(name).toFile();
    }

    /**
     * Persists the TxId of a flush (every record before it is gone) until its sweep is over: written to
     * a new file, forced to disk, then moved over the old mark, so a crash leaves the old mark or the
     * new one, never half of one. Never lowers a mark already written.
     *
     * @throws StorageException if the mark cannot be written
     */
    synchronized void writeFlushMark(TxId mark) {
        TxId old = flushMark();
        if (old != null && old.compareTo(mark) >= 0) return;
        Path tmp = dir.resolve(FLUSH_MARK + ".tmp");
        try (FileChannel out = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(java.nio.ByteBuffer.wrap(mark.toString().getBytes(StandardCharsets.US_ASCII)));
            out.force(true);
        } catch (IOException e) {
            throw new StorageException("cannot write the flush mark " + mark + " in " + dir + ": " + e, e);
        }
        try {
            Files.move(
                    tmp, dir.resolve(FLUSH_MARK), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new StorageException("cannot write the flush mark " + mark + " in " + dir + ": " + e, e);
        }
    }

    /**
     * The flush mark left by {@link #writeFlushMark}, or null if none.
     *
     * @throws StorageException if the file cannot be read or does not hold a TxId
     */
    synchronized TxId flushMark() {
        Path file = dir.resolve(FLUSH_MARK);
        if (!Files.exists(file)) return null;
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new StorageException("cannot read the flush mark in " + dir + ": " + e, e);
        }
        try {
            return TxId.parse(text);
        } catch (IllegalArgumentException e) {
            throw new StorageException("the flush mark " + file + " does not hold a TxId: " + text, e);
        }
    }

    /** Deletes the flush mark if it is not after {@code swept}: the sweep up to it is over. */
    synchronized void clearFlushMark(TxId swept) {
        TxId mark = flushMark();
        if (mark == null || mark.compareTo(swept) > 0) return;
        try {
            Files.deleteIfExists(dir.resolve(FLUSH_MARK));
        } catch (IOException e) {
            throw new StorageException("cannot delete the flush mark in " + dir + ": " + e, e);
        }
    }

    /**
     * The undo slots of this directory's store's writes in place ({@link UndoSlots}), for keys of up to
     * {@code maxKeyBytes}; opened on first use.
     */
    synchronized UndoSlots undo(int maxKeyBytes) {
        if (undo == null) undo = UndoSlots.open(dir.resolve(UndoSlots.FILE), maxKeyBytes);
        return undo;
    }

    /** True unless the previous store on this directory was closed cleanly. */
    boolean recoveryNeeded() {
        return recoveryNeeded;
    }

    /** Releases the directory; {@code clean} leaves the marker that lets the next open skip recovery. */
    void close(boolean clean) {
        try {
            synchronized (this) {
                if (undo != null) undo.close();
            }
            if (clean) Files.createFile(dir.resolve(CLEAN_MARKER));
        } catch (IOException e) {
            throw new StorageException("cannot mark " + dir + " as cleanly closed: " + e, e);
        } finally {
            try {
                lock.release();
            } catch (IOException ignored) {
                // closing the channel releases it anyway
            }
            closeQuietly(lockChannel);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) return;
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing left to release
        }
    }
}
