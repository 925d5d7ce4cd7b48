package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.FailoverConfig.ReadPolicy;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * RENAME and FLUSHDB on a primary+backup pair through the in-process fixture: each is one replicated
 * write, also when values are still unfinished on the backup, and across a failover right after.
 */
class ReplicatedOpsReplicationTest {
    /** 2 Mbit/s: a 2 MiB value needs 8 s on the wire, so it is unfinished for a while. */
    private static final long SLOW = 2_000_000;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] big(long seed) {
        byte[] v = new byte[2 << 20];
        new Random(seed).nextBytes(v);
        return v;
    }

    private static TwoDc slowPair() {
        return TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(5), SLOW)
                .replication(TwoDc.replication().build())
                .failover(new FailoverConfig(ReadPolicy.REJECT, Duration.ofMillis(300), Duration.ZERO))
                .start();
    }

    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void renamesAndFlushesReachTheBackupInEveryMode(ReplicationMode mode) {
        try (TwoDc dc = TwoDc.builder()
                        .mode(mode)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            for (int i = 0; i < 50; i++) p.set("old" + i, "v" + i);
            assertThat(p.set("a", "1")).isEqualTo("OK");
            assertThat(p.rename("a", "b")).isEqualTo("OK");
            assertThat(p.set("c", "3")).isEqualTo("OK");
            assertThat(p.renamenx("b", "c")).isZero();
            assertThat(p.rename("b", "c")).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(b("a"), b("b"), b("c"), b("old7")));
            assertThat(JedisAccess.peek(bk, b("c")).get(4)).isEqualTo(b("1"));

            assertThat(p.flushDB()).isEqualTo("OK");
            assertThat(p.set("after", "x")).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(b("c"), b("old7"), b("after")));
            await().atMost(Duration.ofSeconds(30)).until(() -> bk.dbSize() == 1);
            assertThat(p.dbSize()).isEqualTo(1);
            // every value the renames shipped was acknowledged: none stays pending on the primary
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(Admin.get(dc.primary().adminPort(), "/status"))
                            .contains("\"pendingValues\":0"));
        }
    }

    @Test
    void aValueStillOnItsWayWhenTheFlushArrivesIsDiscardedNotResurrected() {
        try (TwoDc dc = slowPair();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set(b("big"), big(1))).isEqualTo("OK"); // its key packet is acked; the value takes 8 s
            assertThat(JedisAccess.info(bk, "kvs_unfinished_keys")).isEqualTo("1");
            assertThat(p.flushDB()).isEqualTo("OK"); // acked once the backup has flushed
            assertThat(JedisAccess.info(bk, "kvs_unfinished_keys")).isEqualTo("0");
            assertThat(p.set("after", "1")).isEqualTo("OK");
            // the big value still arrives, after the flush: the backup must drop it
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> JedisAccess.info(p, "kvs_value_lag_bytes").equals("0"));
            ReplicationTest.awaitConverged(dc, List.of(b("big"), b("after")));
            assertThat(JedisAccess.peek(bk, b("big"))).isNull();
            // DBSIZE counts records not yet swept: 1 means the late value was not written at all
            await().atMost(Duration.ofSeconds(30)).until(() -> bk.dbSize() == 1);
        }
    }

    @Test
    void afterAFailoverRightAfterAFlushNoPreFlushKeyIsServedOrFenced() throws Exception {
        try (TwoDc dc = slowPair();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("small", "s")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, b("small")) != null);
            assertThat(p.set(b("big"), big(2))).isEqualTo("OK"); // unfinished on the backup
            assertThat(p.flushDB()).isEqualTo("OK");
            assertThat(p.set("after", "1")).isEqualTo("OK");
            dc.link().cut(); // nothing more arrives
            String promoted = Admin.post(dc.backup().adminPort(), "/promote");
            assertThat(promoted).contains("\"epoch\":2");

            assertThat(bk.get("small")).isNull();
            assertThat(bk.get("big")).as("flushed: neither served nor fenced").isNull();
            assertThat(bk.set("big", "new")).isEqualTo("OK");
            // the write after the flush is there, or fenced if its value had not arrived
            try {
                assertThat(bk.get("after")).isEqualTo("1");
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                assertThat(e).hasMessageStartingWith("UNFINISHED after");
            }
        }
    }

    @Test
    void aRenameOfAnUnfinishedValueIsFencedUnderItsNewNameAfterAFailover() throws Exception {
        try (TwoDc dc = slowPair();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("dst", "old")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, b("dst")) != null);
            assertThat(p.set(b("src"), big(3))).isEqualTo("OK");
            assertThat(p.rename("src", "dst")).isEqualTo("OK"); // acked: the backup has its key packet
            dc.link().cut();
            // only the new name waits for the value; src's old value is no longer awaited
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("\"unfinishedCount\":1");

            // the rename has happened on the backup: src is gone and dst is fenced, never its old value
            assertThatThrownBy(() -> bk.get("dst")).hasMessageStartingWith("UNFINISHED dst 1:3");
            assertThatThrownBy(() -> bk.rename("dst", "x")).hasMessageStartingWith("UNFINISHED dst");
            assertThat(bk.get("src")).isNull();
            assertThatThrownBy(() -> bk.rename("src", "x")).hasMessage("ERR no such key");
            // a flush on the promoted node takes the fenced key with it: no longer refused
            assertThat(bk.flushDB()).isEqualTo("OK");
            assertThat(bk.get("dst")).isNull();
            assertThat(bk.set("dst", "new")).isEqualTo("OK");
            assertThat(Admin.get(dc.backup().adminPort(), "/lost")).contains("\"unfinishedCount\":0");
        }
    }

    @Test
    void aRenameOfAValueTheBackupHoldsSurvivesAFailoverRightAfter() throws Exception {
        try (TwoDc dc = slowPair();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] v = new byte[10_000];
            new Random(4).nextBytes(v);
            assertThat(p.set(b("src"), v)).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, b("src")) != null);
            assertThat(p.set("dst", "old")).isEqualTo("OK");
            assertThat(p.rename("src", "dst")).isEqualTo("OK");
            dc.link().cut(); // the re-shipped value may never arrive: the backup used its own copy
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("\"epoch\":2");

            assertThat(bk.get(b("dst"))).isEqualTo(v);
            assertThat(bk.exists("src")).isFalse();
        }
    }

    @Test
    void renameUnderLoadConvergesWithTheLatestValueUnderTheNewName() {
        try (TwoDc dc = slowPair();
                Jedis p = JedisAccess.primary(dc)) {
            assertThat(p.set(b("src"), big(5))).isEqualTo("OK");
            assertThat(p.rename("src", "mid")).isEqualTo("OK");
            assertThat(p.append("mid", "!")).isEqualTo((2L << 20) + 1);
            assertThat(p.rename("mid", "dst")).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(b("src"), b("mid"), b("dst")));
        }
    }
}
