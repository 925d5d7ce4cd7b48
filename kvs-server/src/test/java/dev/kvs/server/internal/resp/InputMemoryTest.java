package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.NodeConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A client announcing a long bulk string costs memory only for the bytes it actually sends: the
 * decoder never allocates an announced length up front (16 bytes used to make it allocate 64 MiB).
 */
class InputMemoryTest {
    private static final int ANNOUNCED = 64 << 20;

    private static NodeConfig config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder().maxBytes(256L << 20).build())
                .build();
    }

    @Test
    void anAnnouncedBulkCostsNothingUntilItsBytesArrive() {
        try (RespChannel resp = new RespChannel(config())) {
            ClientStats stats = resp.server.stats();

            assertThat(resp.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + ANNOUNCED + "\r\n"))
                    .isEmpty();

            assertThat(stats.inputBulks.get()).isEqualTo(1);
            assertThat(stats.inputBulkBytes.get()).isLessThanOrEqualTo(RespCommandDecoder.MIN_BULK_CHUNK);
        }
    }

    @Test
    void aBulkArrivingInPiecesHoldsAtMostTwiceWhatArrived() {
        try (RespChannel resp = new RespChannel(config())) {
            ClientStats stats = resp.server.stats();
            int size = 1 << 20;
            resp.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + size + "\r\n");
            String chunk = "v".repeat(10_000);
            int sent = 0;
            while (sent + chunk.length() < size) {
                assertThat(resp.send(chunk)).isEmpty();
                sent += chunk.length();
                assertThat(stats.inputBulkBytes.get())
                        .as("bytes held after %d arrived", sent)
                        .isLessThanOrEqualTo(Math.max(RespCommandDecoder.MIN_BULK_CHUNK, 2L * sent));
            }
            assertThat(resp.send("v".repeat(size - sent) + "\r\n")).isEqualTo("+OK\r\n");
            assertThat(resp.command("STRLEN", "k")).isEqualTo(":" + size + "\r\n");
            assertThat(stats.inputBulks.get()).isZero();
            assertThat(stats.inputBulkBytes.get()).isZero();
        }
    }

    @Test
    void aBulkHalfArrivedGetsItsFinalBufferAtOnce() {
        try (RespChannel resp = new RespChannel(config())) {
            ClientStats stats = resp.server.stats();
            int size = 100_000;
            assertThat(resp.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + size + "\r\n" + "v".repeat(size / 2)))
                    .isEmpty();
            assertThat(stats.inputBulkBytes.get())
                    .as("half of it arrived: one buffer of its length, no further doubling")
                    .isEqualTo(size);
            assertThat(resp.send("v".repeat(size / 2) + "\r\n")).isEqualTo("+OK\r\n");
            assertThat(resp.command("STRLEN", "k")).isEqualTo(":" + size + "\r\n");
            assertThat(stats.inputBulkBytes.get()).isZero();
        }
    }

    @Test
    void aConnectionClosedInsideABulkGivesItsBufferBack() {
        RespChannel resp = new RespChannel(config());
        ClientStats stats = resp.server.stats();
        resp.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + "v".repeat(50_000));
        assertThat(stats.inputBulkBytes.get()).isPositive();

        resp.close();

        assertThat(stats.inputBulks.get()).isZero();
        assertThat(stats.inputBulkBytes.get()).isZero();
    }

    /** The attack of the review: many connections, each 16 bytes announcing 64 MiB (110 of them took 6 GB). */
    @Test
    void twentyConnectionsAnnouncing64MiBEachHoldAlmostNothing() throws Exception {
        try (LiveRespServer live =
                new LiveRespServer(config().toBuilder().port(0).build())) {
            int connections = 20;
            for (int i = 0; i < connections; i++) LiveRespServer.send(live.connect(), "*2\r\n$67108864\r\n");

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> live.stats().inputBulks.get() == connections);

            assertThat(live.stats().inputBulkBytes.get())
                    .as("bytes held by %d decoders each inside an announced 64 MiB bulk", connections)
                    .isLessThanOrEqualTo((long) connections * RespCommandDecoder.MIN_BULK_CHUNK);
        }
    }
}
