package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.core.StoredValue;
import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;

/**
 * The value shipper reads a large value from the store chunk by chunk into each frame's pooled direct
 * buffer (no value-sized copy): values of every size around the shipper's and the store's chunk
 * boundaries arrive byte-identical, a key rewritten while its value is in flight ends with the newest
 * value on the backup (never a mix: the backup verifies the whole value's CRC32C and would nack a
 * mix), and no buffer leaks on any path (Netty's leak detector runs at PARANOID in the tests; a leak
 * it reports fails the test).
 */
class LargeValueShippingTest {
    /** A new store's chunk ({@code ValueChunks.CHUNK_BYTES}); the shipper's is 64 KiB in {@link TwoDc}. */
    private static final int STORE_CHUNK = 128 * 1024 - 64;

    private static final int SHIP_CHUNK = 64 * 1024;

    private final ListAppender<ILoggingEvent> leaks = new ListAppender<>();
    private final Logger leakLogger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @BeforeEach
    void watchForLeaks() {
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        leaks.start();
        leakLogger.addAppender(leaks);
    }

    @AfterEach
    void noBufferLeaked() {
        try {
            // a leaked buffer is reported when the detector finds it collected, on a later allocation
            for (int i = 0; i < 5; i++) {
                System.gc();
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(64);
                probe.release();
            }
            assertThat(leaks.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .noneMatch(m -> m.contains("LEAK"));
        } finally {
            leakLogger.detachAppender(leaks);
        }
    }

    @Test
    void valuesAroundTheShippersAndTheStoresChunkBoundariesArriveByteIdentical() {
        long seed = System.nanoTime();
        System.out.println("LargeValueShippingTest seed " + seed);
        Random rnd = new Random(seed);
        int[] sizes = {
            SHIP_CHUNK - 1,
            SHIP_CHUNK,
            SHIP_CHUNK + 1,
            3 * SHIP_CHUNK,
            3 * SHIP_CHUNK + 1,
            STORE_CHUNK - 1,
            STORE_CHUNK,
            STORE_CHUNK + 1,
            2 * STORE_CHUNK,
            2 * STORE_CHUNK + 1,
            10 << 20
        };
        // flow control off: every chunk is exactly the shipper's 64 KiB, so they straddle the store's
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(1), 0)
                        .replication(TwoDc.replication()
                                .flowControl(FlowControlConfig.off())
                                .build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> values = new ArrayList<>();
            for (int size : sizes) {
                byte[] key = b("v" + size);
                byte[] value = new byte[size];
                rnd.nextBytes(value);
                assertThat(p.set(key, value)).isEqualTo("OK");
                keys.add(key);
                values.add(value);
            }
            ReplicationTest.awaitConverged(dc, keys);
            for (int i = 0; i < keys.size(); i++) {
                StoredValue v = dc.backup().store().get(keys.get(i));
                assertThat(v.value()).as("%d bytes (seed %d)", sizes[i], seed).isEqualTo(values.get(i));
            }
        }
    }

    @Test
    void aKeyRewrittenWhileItsTenMegabyteValueIsInFlightEndsWithTheNewestValueNeverAMix() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LargeValueShippingTest seed " + seed);
        Random rnd = new Random(seed);
        // 40 Mbit/s: a 10 MiB value takes about 2 s through the link, so the rewrites land mid-value; without the
        // bound in time, which would hold a second 10 MiB value until the first is on the backup
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 40_000_000)
                        .replication(
                                TwoDc.replication().maxValueLag(Duration.ZERO).build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] key = b("big");
            byte[] first = new byte[10 << 20];
            rnd.nextBytes(first);
            assertThat(p.set(key, first)).isEqualTo("OK");
            awaitBackupReceivedMoreThan(bk, 1 << 20);
            byte[] second = new byte[10 << 20];
            rnd.nextBytes(second);
            assertThat(p.set(key, second)).isEqualTo("OK"); // the first value's next chunk sees a new TxId
            long before = bytesReceived(bk);
            awaitBackupReceivedMoreThan(bk, before + (1 << 20));
            byte[] third = new byte[3 * SHIP_CHUNK + 17]; // rewritten again mid-value, now to a shorter value
            rnd.nextBytes(third);
            assertThat(p.set(key, third)).isEqualTo("OK");

            ReplicationTest.awaitConverged(dc, List.of(key));
            assertThat(dc.backup().store().get(key).value()).as("seed %d", seed).isEqualTo(third);
            // a mix of two values would fail the backup's checksum and be nacked
            assertThat(JedisAccess.info(bk, "kvs_values_nacked")).isEqualTo("0");
            // the first and the second value were each abandoned mid-way, and counted
            assertThat(Long.parseLong(JedisAccess.info(p, "kvs_abandoned_values")))
                    .isGreaterThanOrEqualTo(2);
            // the abandoned values' partial copies were dropped on the backup (a cancel chunk each)
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(assemblyBytes(dc)).isZero());
        }
    }

    @Test
    void aStreamDroppedMidValueThenARewriteDuringTheCutConvergesToTheRewrite() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LargeValueShippingTest seed " + seed);
        Random rnd = new Random(seed);
        // without the bound in time, which holds writes behind 10 MiB that cannot ship while the link is cut
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ASYNC)
                        .link(Duration.ofMillis(5), 40_000_000)
                        .replication(
                                TwoDc.replication().maxValueLag(Duration.ZERO).build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] key = b("big");
            byte[] first = new byte[10 << 20];
            rnd.nextBytes(first);
            p.set(key, first);
            awaitBackupReceivedMoreThan(bk, 1 << 20);
            dc.link().cut();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !JedisAccess.info(p, "kvs_link_state").equals("streaming"));
            byte[] second = new byte[5 * STORE_CHUNK + 3];
            rnd.nextBytes(second);
            p.set(key, second);
            dc.link().heal();
            ReplicationTest.awaitConverged(dc, List.of(key));
            assertThat(dc.backup().store().get(key).value()).as("seed %d", seed).isEqualTo(second);
            assertThat(JedisAccess.info(bk, "kvs_values_nacked")).isEqualTo("0");
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(assemblyBytes(dc)).isZero());
        }
    }

    /**
     * Cut-through through the client port: a SET's value sent in two halves, the second only once the backup
     * has received bytes of the first, is on the backup when a sync SET is answered, and counted as cut-through;
     * a SET refused with NX after its value went ahead, and a client gone mid-value, leave the backup's value as
     * it was, with nothing nacked.
     */
    @Test
    void aLargeSetLeavesForTheBackupWhileItArrivesAndOneNotWrittenLeavesTheBackupAsItWas() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LargeValueShippingTest seed " + seed);
        Random rnd = new Random(seed);
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.SYNC)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set(b("warm"), b("up"))).isEqualTo("OK");
            byte[] key = b("cut");
            byte[] value = new byte[1 << 20];
            rnd.nextBytes(value);
            try (Socket client = sendFirstHalf(dc, bk, key, value, "")) {
                OutputStream out = client.getOutputStream();
                out.write(value, value.length / 2, value.length / 2);
                out.write(b("\r\n"));
                out.flush();
                assertThat(readLine(client.getInputStream())).isEqualTo("+OK");
            }
            // sync: answered once the backup applied it
            assertThat(dc.backup().store().get(key).value()).isEqualTo(value);
            assertThat(JedisAccess.info(p, "kvs_cut_through_values")).isEqualTo("1");

            byte[] other = new byte[1 << 20];
            rnd.nextBytes(other);
            try (Socket client = sendFirstHalf(dc, bk, key, other, "NX")) {
                OutputStream out = client.getOutputStream();
                out.write(other, other.length / 2, other.length / 2);
                out.write(b("\r\n$2\r\nNX\r\n"));
                out.flush();
                assertThat(readLine(client.getInputStream())).isEqualTo("$-1"); // NX: the key exists
            }
            try (Socket client = sendFirstHalf(dc, bk, key, other, "")) {
                assertThat(client.isConnected()).isTrue();
            } // gone mid-value
            assertThat(p.set(b("after"), b("x"))).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(key, b("after")));
            assertThat(dc.backup().store().get(key).value()).isEqualTo(value);
            assertThat(JedisAccess.info(p, "kvs_cut_through_values")).isEqualTo("1");
            assertThat(JedisAccess.info(bk, "kvs_values_nacked")).isEqualTo("0");
        }
    }

    /**
     * Opens a client connection to the primary and sends a {@code SET} of {@code key} (with {@code option}
     * announced as one more argument, if not empty) with the first half of {@code value}, then waits until
     * the backup has received bytes of it: the value left before its SET was whole. The caller sends the
     * rest, or not.
     */
    private static Socket sendFirstHalf(TwoDc dc, Jedis bk, byte[] key, byte[] value, String option)
            throws IOException {
        Socket client = new Socket("127.0.0.1", dc.primary().port());
        OutputStream out = client.getOutputStream();
        long before = bytesReceived(bk);
        out.write(setHeader(key, value.length, option));
        out.write(value, 0, value.length / 2);
        out.flush();
        awaitBackupReceivedMoreThan(bk, before + 128 * 1024);
        return client;
    }

    /** {@code SET key <length bytes>} up to its value, with {@code options} announced as one more argument. */
    private static byte[] setHeader(byte[] key, int length, String options) {
        int args = options.isEmpty() ? 3 : 4;
        return b("*" + args + "\r\n$3\r\nSET\r\n$" + key.length + "\r\n" + new String(key, StandardCharsets.UTF_8)
                + "\r\n$" + length + "\r\n");
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) throw new EOFException("connection closed after " + line);
            line.append((char) c);
        }
        in.read(); // \n
        return line.toString();
    }

    private static long bytesReceived(Jedis bk) {
        return Long.parseLong(JedisAccess.info(bk, "kvs_backup_bytes_received"));
    }

    private static void awaitBackupReceivedMoreThan(Jedis bk, long bytes) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> bytesReceived(bk) > bytes);
    }

    /** The backup's bytes reserved by values being assembled from chunks ({@code /status}). */
    private static long assemblyBytes(TwoDc dc) throws Exception {
        return new ObjectMapper()
                .readTree(Admin.get(dc.backup().adminPort(), "/status"))
                .findValue("assemblyBytes")
                .asLong();
    }
}
