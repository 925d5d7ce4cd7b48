package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A store's files as a kill -9 in the middle of a value's copy leaves them, made from the files of a
 * node stopped cleanly: no clean-shutdown marker, and the value's last byte not (yet) the new one.
 */
public final class TornFiles {
    private TornFiles() {}

    /** Tears {@code value}, held inline in one place of {@code dataDir}'s records, as a crash would. */
    public static void tear(Path dataDir, byte[] value) throws IOException {
        Files.delete(dataDir.resolve("clean-shutdown"));
        changeLastByteOf(dataDir.resolve("records.dat"), value);
    }

    /** Changes the last byte of the one place in {@code file} that holds {@code bytes}. */
    static void changeLastByteOf(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long found = -1;
            byte[] window = new byte[1 << 20];
            for (long at = 0; at < ch.size(); at += window.length - bytes.length) {
                ByteBuffer b = ByteBuffer.wrap(window);
                int n = 0;
                while (b.hasRemaining() && ch.read(b, at + b.position()) > 0) n = b.position();
                for (int i = 0; i + bytes.length <= n; i++) {
                    if (Arrays.equals(window, i, i + bytes.length, bytes, 0, bytes.length)) {
                        assertThat(found < 0 || found == at + i)
                                .as("the bytes in one place only")
                                .isTrue();
                        found = at + i;
                    }
                }
                if (n < window.length) break;
            }
            assertThat(found).as("the value in the file").isNotNegative();
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~bytes[bytes.length - 1]}), found + bytes.length - 1);
        }
    }
}
