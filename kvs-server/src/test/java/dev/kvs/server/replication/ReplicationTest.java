package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/** Two nodes through a {@code WanLink}: what the primary holds ends up on the backup. */
class ReplicationTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Waits until the backup holds exactly what the primary holds for {@code keys}, TxIds included. */
    static void awaitConverged(TwoDc dc, List<byte[]> keys) {
        try (Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> {
                        for (byte[] k : keys) {
                            List<Object> onPrimary = JedisAccess.peek(p, k);
                            List<Object> onBackup = JedisAccess.peek(bk, k);
                            if (onPrimary == null) {
                                // deleted on the primary: absent or a tombstone on the backup
                                assertThat(onBackup == null || new String((byte[]) onBackup.get(0)).equals("tombstone"))
                                        .as("key %s deleted on the primary", new String(k))
                                        .isTrue();
                            } else {
                                assertThat(onBackup)
                                        .as("key %s on the backup", new String(k))
                                        .isNotNull();
                                assertThat(new String((byte[]) onBackup.get(1)))
                                        .as("txid of %s", new String(k))
                                        .isEqualTo(new String((byte[]) onPrimary.get(1)));
                                assertThat((byte[]) onBackup.get(4)).isEqualTo((byte[]) onPrimary.get(4));
                                assertThat(onBackup.get(5))
                                        .as("absolute expiry of %s", new String(k))
                                        .isEqualTo(onPrimary.get(5));
                            }
                        }
                        assertThat(JedisAccess.info(bk, "kvs_unfinished_keys")).isEqualTo("0");
                    });
        }
    }

    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void everyWriteInEveryModeEndsUpOnTheBackupByteIdentical(ReplicationMode mode) {
        try (TwoDc dc = TwoDc.builder()
                        .mode(mode)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            Random rnd = new Random(mode.ordinal());
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 30; i++) keys.add(b("k" + i));
            for (int i = 0; i < 30; i++) {
                byte[] v = new byte[i % 10 == 0 ? 200_000 : rnd.nextInt(2000)];
                rnd.nextBytes(v);
                assertThat(p.set(keys.get(i), v)).isEqualTo("OK");
            }
            for (int i = 0; i < 30; i += 3) p.set(keys.get(i), b("overwritten-" + i)); // conflation fodder
            assertThat(p.del(keys.get(1), keys.get(2))).isEqualTo(2);
            assertThat(p.mset(b("k4"), b("m4"), b("k5"), new byte[0])).isEqualTo("OK");
            awaitConverged(dc, keys);
        }
    }

    @Test
    void aSmallIdFirstPutAfterATenMegabytePutIsAckedLongBeforeTheBigValueLands() {
        // 50 ms each way, 20 Mbit/s: the 10 MiB value needs at least 4.2 s on the wire
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(50), 20_000_000)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] big = new byte[10 << 20];
            new Random(1).nextBytes(big);
            long start = System.nanoTime();
            assertThat(p.set(b("big"), big)).isEqualTo("OK");
            assertThat(p.set(b("small"), new byte[1024])).isEqualTo("OK");
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            // the big value needs 4.2 s on the wire: two acks sooner than 4 s did not wait for it
            assertThat(elapsedMs)
                    .as(
                            "ms to acknowledge the 10 MiB SET and the small one after it, in id-first over a 20 Mbit/s link")
                    .isLessThan(4000);
            // both were acknowledged (key packets acked), and the big value is still on its way
            List<Object> bigOnBackup = JedisAccess.peek(bk, b("big"));
            assertThat(bigOnBackup == null || ((byte[]) bigOnBackup.get(4)) == null)
                    .isTrue();
            assertThat(Integer.parseInt(JedisAccess.info(bk, "kvs_unfinished_keys")))
                    .isGreaterThanOrEqualTo(1);
            awaitConverged(dc, List.of(b("big"), b("small")));
        }
    }

    @Test
    void valuesCrossAFifoLinkUnderFlowControlWhichMeasuresTheLinksOneWayDelay() {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(10), 20_000_000)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            List<byte[]> keys = new ArrayList<>();
            Random rnd = new Random(3);
            for (int i = 0; i < 8; i++) {
                byte[] v = new byte[i == 0 ? 2 << 20 : 50_000];
                rnd.nextBytes(v);
                keys.add(b("fc" + i));
                assertThat(p.set(keys.get(i), v)).isEqualTo("OK");
            }
            awaitConverged(dc, keys);
            assertThat(JedisAccess.info(p, "kvs_flow_control")).isEqualTo("on");
            // the base one-way delay comes from the receipts of value frames: at least the link's 10 ms
            assertThat(Long.parseLong(JedisAccess.info(p, "kvs_flow_base_delay_us")))
                    .isBetween(10_000L, 60_000L);
            assertThat(Long.parseLong(JedisAccess.info(p, "kvs_flow_window_bytes")))
                    .isGreaterThanOrEqualTo(4096);
            // every frame sent was receipted: nothing is left counted in flight
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(JedisAccess.info(p, "kvs_flow_in_flight_bytes"))
                            .isEqualTo("0"));
        }
    }

    @Test
    void withFlowControlOffValuesStillArriveAndTheStatusSaysOff() {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 20_000_000)
                        .replication(TwoDc.replication()
                                .flowControl(FlowControlConfig.off())
                                .build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            List<byte[]> keys = List.of(b("off-big"), b("off-small"));
            p.set(keys.get(0), new byte[1 << 20]);
            p.set(keys.get(1), b("x"));
            awaitConverged(dc, keys);
            assertThat(JedisAccess.info(p, "kvs_flow_control")).isEqualTo("off");
            assertThat(JedisAccess.info(p, "kvs_flow_phase")).isEqualTo("off");
        }
    }

    @Test
    void cuttingTheLinkInTheMiddleOfATenMegabyteValueAndHealingItCompletesTheValue() {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ASYNC)
                        .link(Duration.ofMillis(5), 40_000_000)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] big = new byte[10 << 20];
            new Random(2).nextBytes(big);
            p.set(b("big"), big);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Long.parseLong(JedisAccess.info(bk, "kvs_backup_bytes_received")) > (1 << 20));
            dc.link().cut();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !JedisAccess.info(p, "kvs_link_state").equals("streaming"));
            p.set(b("during-cut"), b("x"));
            dc.link().heal();
            awaitConverged(dc, List.of(b("big"), b("during-cut")));
            assertThat(Arrays.equals((byte[]) JedisAccess.peek(bk, b("big")).get(4), big))
                    .isTrue();
        }
    }

    @Test
    void aWipedBackupGetsAFullResyncKeysFirstThenValues() {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(1), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                keys.add(b("r" + i));
                p.set(keys.get(i), b("value-" + i));
            }
            p.del(keys.get(0));
            awaitConverged(dc, keys);
            dc.replaceBackupWithAnEmptyOne();
            p.sendCommand(() -> "KVS.MODE".getBytes(), "async"); // the backup may still be reconnecting
            p.set(keys.get(1), b("after the wipe"));
            awaitConverged(dc, keys);
            try (Jedis bk = JedisAccess.backup(dc)) {
                assertThat(JedisAccess.info(bk, "kvs_backup_resyncs")).isEqualTo("1");
                assertThat(bk.info("keyspace")).contains("keys=199");
            }
        }
    }

    @Test
    void aMemoryOnlyPrimaryRestartedEmptyDoesNotOverwriteTheBackup() {
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(1), 0)
                .replication(TwoDc.replication().build())
                .start()) {
            try (Jedis p = JedisAccess.primary(dc)) {
                for (int i = 0; i < 5; i++) p.set("d" + i, "v" + i);
            }
            awaitConverged(dc, List.of(b("d0"), b("d4")));
            dc.restartPrimaryEmpty();
            try (Jedis p = JedisAccess.primary(dc);
                    Jedis bk = JedisAccess.backup(dc)) {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> JedisAccess.info(p, "kvs_link_state").equals("diverged"));
                p.sendCommand(() -> "KVS.MODE".getBytes(), "async");
                p.set("d0", "new primary's write");
                // the backup keeps every acknowledged write of the old primary
                assertThat(new String((byte[]) JedisAccess.peek(bk, b("d0")).get(4)))
                        .isEqualTo("v0");
                assertThat(bk.info("keyspace")).contains("keys=5");
            }
        }
    }
}
