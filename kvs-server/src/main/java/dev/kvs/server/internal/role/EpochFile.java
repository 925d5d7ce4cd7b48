package dev.kvs.server.internal.role;

import dev.kvs.core.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The highest epoch a node has used or seen, kept in its data directory ({@code epoch} file, written
 * atomically and fsynced), so that a restarted node never reuses an epoch: a restarted primary takes
 * a new one, which makes its backup resynchronise instead of mistaking new writes for old ones.
 */
public final class EpochFile {
    private static final String NAME = "epoch";
    private final Path file;

    public EpochFile(Path dataDir) {
        this.file = dataDir.resolve(NAME);
    }

    /** The stored epoch, or 0 if none was stored. */
    public long read() {
        if (!Files.exists(file)) return 0;
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return Long.parseLong(text);
        } catch (IOException | NumberFormatException e) {
            throw new StorageException("cannot read the epoch file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Stores {@code epoch} durably before returning. */
    public synchronized void write(long epoch) {
        Path tmp = file.resolveSibling(NAME + ".tmp");
        try {
            Files.writeString(tmp, epoch + "\n", StandardCharsets.US_ASCII);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new StorageException("cannot write the epoch file " + file + ": " + e.getMessage(), e);
        }
    }
}
