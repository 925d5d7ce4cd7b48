package dev.kvs.core.internal;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvsException;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreFullException;
import java.io.File;
import java.io.IOException;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
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
     * cleanly closed, or recovers it after a crash. An existing file keeps the sizes it was created
     * with: Chronicle reads them from its header.
     */
    static <K, V> ChronicleMap<K, V> open(ChronicleMapBuilder<K, V> builder, DataDir dir, String fileName) {
        try {
            if (dir == null) return builder.create();
            File file = dir.file(fileName);
            if (!file.exists()) return builder.createPersistedTo(file);
            if (!dir.recoveryNeeded()) return builder.createPersistedTo(file);
            LOG.info("recovering {} after an unclean shutdown", file);
            return builder.recoverPersistedTo(
                    file, false, c -> LOG.warn("recovering {}: segment {}: {}", file, c.segmentIndex(), c.message()));
        } catch (IOException | RuntimeException e) {
            String where = dir == null ? "memory" : dir.path().resolve(fileName).toString();
            throw new StorageException("cannot open map " + fileName + " in " + where + ": " + e, e);
        }
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
