package dev.kvs.core.internal;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvsException;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreFullException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens Chronicle maps in memory or in a {@link DataDir}, and turns their failures into ours. */
final class ChronicleMaps {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleMaps.class);

    private ChronicleMaps() {}

    /**
     * Creates the map in memory ({@code dir == null}), creates its file, opens the file as it was
     * cleanly closed, or recovers it after a crash. An existing file keeps the sizes, marshallers and
     * entry checksums it was created with: Chronicle reads them from its header.
     *
     * <p>A new file has no Chronicle entry checksums. Chronicle stores an entry's checksum only as the
     * write's context lets go of the entry's lock, and its recovery drops an entry whose checksum does
     * not match: a kill -9 anywhere in that window dropped the key or page being written, with every
     * value it held before the write. Without them, the bytes a kill leaves stand; what a kill can still
     * tear is a copy in place, which kvs's own checksums find ({@link RecordMaps#fenceTorn}, {@link
     * PageMarshaller}).
     */
    static <K, V> ChronicleMap<K, V> open(ChronicleMapBuilder<K, V> builder, DataDir dir, String fileName) {
        try {
            if (dir == null) return builder.create();
            File file = dir.file(fileName);
            Files.deleteIfExists(rewriteOf(dir, fileName).toPath()); // a rewrite a crash cut short
            Files.deleteIfExists(newOf(dir, fileName).toPath()); // a creation a crash cut short
            if (!file.exists()) return created(builder, dir, fileName);
            ChronicleMap<K, V> map;
            if (!dir.recoveryNeeded()) {
                map = builder.createPersistedTo(file);
            } else {
                LOG.info("recovering {} after an unclean shutdown", file);
                map = builder.recoverPersistedTo(
                        file,
                        false,
                        c -> LOG.warn("recovering {}: segment {}: {}", file, c.segmentIndex(), c.message()));
            }
            return checksumsEntries(map) ? rewrittenWithoutChecksums(builder, map, dir, fileName) : map;
        } catch (IOException | RuntimeException e) {
            String where = dir == null ? "memory" : dir.path().resolve(fileName).toString();
            throw new StorageException("cannot open map " + fileName + " in " + where + ": " + e, e);
        }
    }

    /**
     * A new file, made whole under another name and then moved to {@code fileName}: a kill while Chronicle
     * writes a new file's header leaves a file no open can recover ("Self Bootstrapping Header checksum"),
     * and the node could not start again. Made so, it leaves no file, and the next open starts again.
     */
    private static <K, V> ChronicleMap<K, V> created(ChronicleMapBuilder<K, V> builder, DataDir dir, String fileName)
            throws IOException {
        File fresh = newOf(dir, fileName);
        builder.checksumEntries(false).createPersistedTo(fresh).close();
        Files.move(fresh.toPath(), dir.file(fileName).toPath(), StandardCopyOption.ATOMIC_MOVE);
        return builder.createPersistedTo(dir.file(fileName));
    }

    private static File newOf(DataDir dir, String fileName) {
        return dir.file(fileName + ".new");
    }

    private static File rewriteOf(DataDir dir, String fileName) {
        return dir.file(fileName + ".rewrite");
    }

    /**
     * {@code map}'s file, made before kvs stopped asking for Chronicle's entry checksums, rewritten
     * without them (and with the marshallers {@code builder} names, such as {@link PageMarshaller}'s
     * checksums): every entry put into a new file beside it, which then replaces it. A crash before the
     * move leaves the old file, and the next open deletes the new one and starts again. If the new file
     * cannot hold what the old one does (a config made smaller since), the old file is kept, with its
     * checksums, and a warning logged.
     */
    private static <K, V> ChronicleMap<K, V> rewrittenWithoutChecksums(
            ChronicleMapBuilder<K, V> builder, ChronicleMap<K, V> map, DataDir dir, String fileName)
            throws IOException {
        File file = dir.file(fileName);
        File rewrite = rewriteOf(dir, fileName);
        long entries = map.longSize();
        try (ChronicleMap<K, V> fresh = builder.checksumEntries(false).createPersistedTo(rewrite)) {
            map.forEach(fresh::put);
            if (fresh.longSize() != entries) {
                throw new IllegalStateException("the rewrite holds " + fresh.longSize() + " entries of " + entries);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(rewrite.toPath());
            LOG.warn(
                    "{} keeps Chronicle's entry checksums, with which a kill -9 in the middle of a write can lose"
                            + " the key written: it could not be rewritten without them: {}",
                    file,
                    e.toString());
            return map;
        }
        map.close();
        Files.move(
                rewrite.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        LOG.info("{} rewritten without Chronicle's entry checksums: {} entries", file, entries);
        return builder.createPersistedTo(file);
    }

    /** Whether {@code map} keeps Chronicle's entry checksums: a file created before kvs stopped asking for them. */
    static boolean checksumsEntries(ChronicleMap<?, ?> map) {
        return map instanceof VanillaChronicleHash<?, ?, ?, ?> h && h.checksumEntries;
    }

    /** Our exception for a failure of a backing map; ours pass through unchanged. */
    static KvsException translate(RuntimeException e) {
        if (e instanceof KvsException k) return k;
        if (e instanceof ClosedIllegalStateException) return new StorageException("store is closed", e);
        String message = String.valueOf(e.getMessage());
        if (message.contains("extra segment tier")) {
            return new StoreFullException("store full: a backing map has no room left: " + firstLine(message), e);
        }
        if (message.contains("too large")) {
            return new EntryTooLargeException("entry too large for a backing map: " + firstLine(message));
        }
        return new StorageException("backing map failed: " + e, e);
    }

    static void closeAll(AutoCloseable... closeables) {
        RuntimeException failure = null;
        for (AutoCloseable c : closeables) {
            if (c == null) continue;
            try {
                c.close();
            } catch (Exception e) {
                if (failure == null) failure = new StorageException("cannot close a backing map: " + e, e);
                else failure.addSuppressed(e);
            }
        }
        if (failure != null) throw failure;
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
