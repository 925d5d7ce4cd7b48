package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A client announcing a long bulk string costs memory only for the bytes it actually sends, plus at
 * most the node's {@code bulkPreallocBytes} budget across all connections: a large bulk gets its final
 * buffer when its first bytes arrive only while the budget has room (16 bytes used to make the node
 * allocate 64 MiB).
 */
class InputMemoryTest {
    private static final int ANNOUNCED = 64 << 20;

    /**
     * The head of {@code SETEX k 1000 <value>} up to the value's length: a bulk that is buffered (a
     * {@code SET}'s value goes into the store as it arrives; see {@link StagedSetTest}).
     */
    private static final String BUFFERED_SET = "*4\r\n$5\r\nSETEX\r\n$1\r\nk\r\n$4\r\n1000\r\n$";
    /** What follows the value of {@link #BUFFERED_SET}. */
    private static final String BUFFERED_END = "\r\n";

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
    void withoutPreallocationABulkArrivingInPiecesHoldsAtMostTwiceWhatArrived() {
        try (RespChannel resp =
                new RespChannel(config().toBuilder().bulkPreallocBytes(0).build())) {
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
            assertThat(resp.send(BUFFERED_SET + size + "\r\n" + "v".repeat(size / 2)))
                    .isEmpty();
            assertThat(stats.inputBulkBytes.get())
                    .as("half of it arrived: one buffer of its length, no further doubling")
                    .isEqualTo(size);
            assertThat(resp.send("v".repeat(size / 2) + BUFFERED_END)).isEqualTo("+OK\r\n");
            assertThat(resp.command("STRLEN", "k")).isEqualTo(":" + size + "\r\n");
            assertThat(stats.inputBulkBytes.get()).isZero();
        }
    }

    @Test
    void aConnectionClosedInsideABulkGivesItsBufferBack() {
        RespChannel resp = new RespChannel(config());
        ClientStats stats = resp.server.stats();
        resp.send(BUFFERED_SET + "100000\r\n" + "v".repeat(50_000));
        assertThat(stats.inputBulkBytes.get()).isPositive();

        assertThat(resp.server.bulkBudget().charged()).isEqualTo(50_000);

        resp.close();

        assertThat(stats.inputBulks.get()).isZero();
        assertThat(stats.inputBulkBytes.get()).isZero();
        assertThat(resp.server.bulkBudget().charged()).isZero();
    }

    @Test
    void aLargeBulkGetsItsFinalBufferWhenItsFirstBytesArriveAndGivesTheBudgetBackAsTheRestDoes() {
        try (RespChannel resp = new RespChannel(config())) {
            ClientStats stats = resp.server.stats();
            BulkPreallocBudget budget = resp.server.bulkBudget();
            int size = 1 << 20;
            assertThat(resp.send(BUFFERED_SET + size + "\r\n" + "v".repeat(1000)))
                    .isEmpty();
            assertThat(stats.inputBulkBytes.get())
                    .as("one buffer of the final size")
                    .isEqualTo(size);
            assertThat(budget.charged()).as("the bytes still to come").isEqualTo(size - 1000);
            int sent = 1000;
            String chunk = "v".repeat(100_000);
            while (sent + chunk.length() < size) {
                assertThat(resp.send(chunk)).isEmpty();
                sent += chunk.length();
                assertThat(budget.charged()).isEqualTo(size - sent);
                assertThat(stats.inputBulkBytes.get()).isEqualTo(size);
            }
            assertThat(resp.send("v".repeat(size - sent) + BUFFERED_END)).isEqualTo("+OK\r\n");
            assertThat(resp.command("STRLEN", "k")).isEqualTo(":" + size + "\r\n");
            assertThat(budget.charged()).isZero();
            assertThat(stats.inputBulkBytes.get()).isZero();
        }
    }

    /**
     * Values of sizes around the thresholds (the 16 KiB chunk, the budget) arrive intact in random
     * pieces, whether preallocated, grown, or preallocated by one connection while the budget is
     * taken by another; the budget is empty afterwards.
     */
    @Test
    void valuesAroundTheThresholdsArriveIntact() {
        long seed = System.nanoTime();
        System.out.println("InputMemoryTest.valuesAroundTheThresholdsArriveIntact seed=" + seed);
        Random random = new Random(seed);
        int chunk = RespCommandDecoder.MIN_BULK_CHUNK;
        long limit = 100_000;
        int[] sizes = {1, chunk - 1, chunk, chunk + 1, 2 * chunk + 1, 99_999, 100_000, 100_001, 300_000};
        NodeConfig cfg = config().toBuilder().bulkPreallocBytes(limit).build();
        try (RespChannel a = new RespChannel(cfg)) {
            BulkPreallocBudget budget = a.server.bulkBudget();
            for (int size : sizes) {
                for (boolean contended : new boolean[] {false, true}) {
                    if (contended) budget.tryCharge(limit / 2); // another connection holds half of it
                    byte[] value = new byte[size];
                    random.nextBytes(value);
                    byte[] head =
                            ("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + size + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
                    byte[] request = new byte[head.length + size + 2];
                    System.arraycopy(head, 0, request, 0, head.length);
                    System.arraycopy(value, 0, request, head.length, size);
                    request[request.length - 2] = '\r';
                    request[request.length - 1] = '\n';
                    StringBuilder replies = new StringBuilder();
                    for (int at = 0; at < request.length; ) {
                        int n = Math.min(request.length - at, 1 + random.nextInt(70_000));
                        replies.append(a.send(Arrays.copyOfRange(request, at, at + n)));
                        at += n;
                        assertThat(budget.charged()).isLessThanOrEqualTo(limit);
                    }
                    assertThat(replies.toString()).as("size %d", size).isEqualTo("+OK\r\n");
                    String reply = a.command("GET", "k");
                    String expected = "$" + size + "\r\n" + new String(value, StandardCharsets.ISO_8859_1) + "\r\n";
                    assertThat(reply)
                            .as("value of %d bytes (contended: %s)", size, contended)
                            .isEqualTo(expected);
                    if (contended) budget.release(limit / 2);
                    assertThat(budget.charged())
                            .as("after a value of %d bytes", size)
                            .isZero();
                }
            }
        }
    }

    /**
     * Many clients each announcing a large bulk and sending one byte of it: the node preallocates for
     * as many as the budget holds and lets the others grow as their bytes arrive. Without the budget
     * the 20 connections would hold 20 MiB.
     */
    @Test
    void manyClientsAnnouncingLargeBulksAndSendingNothingHoldNoMoreThanTheBudget() throws Exception {
        long limit = 4L << 20;
        int size = 1 << 20;
        int connections = 20;
        try (LiveRespServer live = new LiveRespServer(
                config().toBuilder().port(0).bulkPreallocBytes(limit).build())) {
            List<Socket> sockets = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Socket s = live.connect();
                sockets.add(s);
                LiveRespServer.send(s, BUFFERED_SET + size + "\r\nx");
            }
            long preallocated = limit / (size - 1); // 4: each charged with the bytes still to come
            long held = preallocated * size + (connections - preallocated) * RespCommandDecoder.MIN_BULK_CHUNK;
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> live.stats().inputBulks.get() == connections
                            && live.stats().inputBulkBytes.get() == held);
            BulkPreallocBudget budget = live.server.bulkBudget();
            assertThat(budget.charged()).isLessThanOrEqualTo(limit).isEqualTo(preallocated * (size - 1));
            assertThat(live.stats().inputBulkBytes.get())
                    .as("bytes held by %d decoders each inside an announced 1 MiB bulk", connections)
                    .isLessThanOrEqualTo(limit + (long) connections * RespCommandDecoder.MIN_BULK_CHUNK);
            Socket operator = live.connect();
            LiveRespServer.send(operator, "*2\r\n$4\r\nINFO\r\n$7\r\nclients\r\n");
            assertThat(LiveRespServer.readLine(operator)).startsWith("$");
            List<String> info = new ArrayList<>();
            for (String line; !(line = LiveRespServer.readLine(operator)).isEmpty(); ) info.add(line);
            assertThat(info)
                    .contains("kvs_bulk_prealloc_bytes:" + budget.charged(), "kvs_bulk_prealloc_limit:" + limit);

            for (Socket s : sockets) s.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> budget.charged() == 0);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> live.stats().inputBulkBytes.get() == 0);
        }
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
