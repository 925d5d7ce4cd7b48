package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The bound on exposure in time ({@code replication.maxValueLagMs}) over an emulated WAN link: once the oldest
 * value the backup has not acknowledged is older than the bound, new writes wait (their event loop holds
 * them, it does not block), are written when the value ships, and are refused with {@code -BUSY} after the
 * write timeout; {@code INFO}, {@code /status} and {@code /metrics} show the lag, the bound and the waits.
 */
class ValueLagBoundTest {
    private static final Duration BOUND = Duration.ofMillis(300);

    private static TwoDc start(Duration writeTimeout) {
        ReplicatorConfig replication = TwoDc.replication()
                .maxValueLag(BOUND)
                .writeTimeout(writeTimeout)
                .build();
        TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(2), 0)
                .replication(replication)
                .start();
        try (Jedis p = JedisAccess.primary(dc)) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(p, "kvs_link_state").equals("streaming"));
            assertThat(p.set("warm-up", "1")).isEqualTo("OK"); // its acknowledgement measures the drain rate
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(p, "kvs_value_lag_count").equals("0"));
        }
        return dc;
    }

    /** An {@code async} write (answered at once) whose value cannot ship: the link is paused. */
    private static void strandAValue(TwoDc dc, Jedis async) {
        async.sendCommand(() -> "KVS.MODE".getBytes(), "async");
        dc.link().pause();
        assertThat(async.set("stranded", "v")).isEqualTo("OK");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> Long.parseLong(JedisAccess.info(async, "kvs_value_lag_oldest_ms")) >= BOUND.toMillis());
    }

    @Test
    void aWriteWaitsPastTheBoundAndIsWrittenWhenTheOldestValueShips() throws Exception {
        try (TwoDc dc = start(Duration.ofSeconds(20));
                Jedis async = JedisAccess.primary(dc);
                Jedis writer = JedisAccess.primary(dc);
                Jedis observer = JedisAccess.primary(dc)) {
            strandAValue(dc, async);

            CompletableFuture<String> held = CompletableFuture.supplyAsync(() -> writer.set("held", "w"));
            // held, and not written: nothing of it is on the primary either
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> !held.isDone() && observer.get("held") == null);
            assertThat(observer.get("other-key")).isNull(); // reads are not held

            dc.link().resume();
            assertThat(held.get(20, TimeUnit.SECONDS)).isEqualTo("OK");
            assertThat(observer.get("held")).isEqualTo("w");
            assertThat(JedisAccess.info(observer, "kvs_value_lag_waits")).isEqualTo("1");
            assertThat(Long.parseLong(JedisAccess.info(observer, "kvs_value_lag_wait_ms")))
                    .isGreaterThanOrEqualTo(500);
            assertThat(JedisAccess.info(observer, "kvs_value_lag_max_ms")).isEqualTo("300");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(observer, "kvs_value_lag_oldest_ms")
                            .equals("0"));
        }
    }

    @Test
    void aWriteHeldForTheWholeWriteTimeoutIsRefusedWithBusyAndNothingIsWritten() throws Exception {
        try (TwoDc dc = start(Duration.ofMillis(400));
                Jedis async = JedisAccess.primary(dc);
                Jedis writer = JedisAccess.primary(dc)) {
            strandAValue(dc, async);

            long start = System.nanoTime();
            assertThatThrownBy(() -> writer.set("refused", "w")).hasMessageStartingWith("BUSY");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(400);
            assertThat(writer.get("refused")).isNull();
            assertThat(JedisAccess.info(writer, "kvs_value_lag_waits")).isEqualTo("1");

            dc.link().resume();
            await().atMost(Duration.ofSeconds(20))
                    .until(() ->
                            JedisAccess.info(writer, "kvs_value_lag_oldest_ms").equals("0"));
            assertThat(writer.set("after", "w")).isEqualTo("OK");
        }
    }

    @Test
    void aLargeWriteIsHeldWhereASmallOneStillHasRoom() throws Exception {
        ReplicatorConfig replication = TwoDc.replication()
                .maxValueLag(Duration.ofSeconds(4))
                .chunkBytes(256 * 1024)
                .build();
        byte[] mib = new byte[1 << 20];
        // 8 Mbit/s: 2/3 of 4 s drain 2.7 MB
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(2), 8_000_000)
                        .replication(replication)
                        .start();
                Jedis async = JedisAccess.primary(dc);
                Jedis large = JedisAccess.primary(dc);
                Jedis small = JedisAccess.primary(dc)) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(small, "kvs_link_state").equals("streaming"));
            async.sendCommand(() -> "KVS.MODE".getBytes(), "async");
            small.sendCommand(() -> "KVS.MODE".getBytes(), "async"); // answered without the paused link
            for (int i = 0; i < 3; i++)
                assertThat(async.set(("warm-up-" + i).getBytes(), mib)).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(small, "kvs_value_lag_count").equals("0"));
            // values shipped behind others measured the link: about 1 MB/s
            assertThat(Long.parseLong(JedisAccess.info(small, "kvs_value_drain_bps")))
                    .isBetween(500_000L, 1_500_000L);
            dc.link().pause();
            assertThat(async.set("pending".getBytes(), mib)).isEqualTo("OK"); // 1 MiB pending

            // 1 MiB pending and 4 MiB would take longer than 2/3 of 4 s to ship; a small value would not
            CompletableFuture<String> held =
                    CompletableFuture.supplyAsync(() -> large.set("large".getBytes(), new byte[4 << 20]));
            assertThat(small.set("small", "s")).isEqualTo("OK");
            // held, not written (written, it would wait for its key packet's acknowledgement on the primary)
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> !held.isDone() && small.get("large") == null);

            dc.link().resume();
            assertThat(held.get(30, TimeUnit.SECONDS)).isEqualTo("OK");
        }
    }

    @Test
    void statusAndMetricsShowTheLagTheBoundAndTheWaits() throws Exception {
        try (TwoDc dc = start(Duration.ofMillis(400));
                Jedis async = JedisAccess.primary(dc);
                Jedis writer = JedisAccess.primary(dc)) {
            strandAValue(dc, async);
            assertThatThrownBy(() -> writer.set("refused", "w")).hasMessageStartingWith("BUSY");

            String status = Admin.get(dc.primary().adminPort(), "/status");
            assertThat(status)
                    .contains("\"maxValueLagMillis\":300")
                    .contains("\"waits\":1")
                    .containsPattern("\"oldestPendingValueMillis\":(3\\d\\d|[4-9]\\d\\d|\\d{4,})");
            String metrics = Admin.get(dc.primary().adminPort(), "/metrics");
            assertThat(metrics)
                    .contains("kvs_replication_value_lag_max_seconds 0.3")
                    .contains("kvs_replication_value_lag_waits 1")
                    .containsPattern("kvs_replication_value_lag_wait_seconds 0\\.[4-9]");
            dc.link().resume();
        }
    }
}
