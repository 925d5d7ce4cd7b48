package dev.kvs.core.internal;

import dev.kvs.core.StorageException;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The directory of a persisted store: holds an exclusive lock on it while the store is open, and a
 * marker telling the next open whether the store was closed cleanly or the process died (then the
 * map files are recovered: locks held by the dead process reset, half-written entries dropped).
 */
final class DataDir {
    private static final String LOCK_FILE = "kvs.lock";
    private static final String CLEAN_MARKER = "clean-shutdown";

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean recoveryNeeded;

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

    /** True unless the previous store on this directory was closed cleanly. */
    boolean recoveryNeeded() {
        return recoveryNeeded;
    }

    /** Releases the directory; {@code clean} leaves the marker that lets the next open skip recovery. */
    void close(boolean clean) {
        try {
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
