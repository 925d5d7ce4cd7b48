package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.FailoverConfig.ReadPolicy;
import dev.kvs.server.internal.TestClock;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.params.GetExParams;
import redis.clients.jedis.params.SetParams;

/**
 * Expiry on a primary+backup pair: the primary's absolute expiry time travels with the key packet
 * and the value, so the backup (and, after a failover, the promoted backup) expires a key at the
 * same absolute moment; its clocks are injected, so "the same moment" is exact, and skew between
 * the nodes shifts expiry by exactly the skew.
 */
class ExpiryReplicationTest {
    private static final long T0 = 1_800_000_000_000L;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The expiry (epoch ms, 0: none) a node's record of {@code key} carries, via KVS.PEEK; null if none. */
    private static Long expiryOn(Jedis jedis, String key) {
        List<Object> peek = JedisAccess.peek(jedis, b(key));
        return peek == null ? null : (Long) peek.get(5);
    }

    private static String stateOn(Jedis jedis, String key) {
        List<Object> peek = JedisAccess.peek(jedis, b(key));
        return peek == null ? null : new String((byte[]) peek.get(0), StandardCharsets.UTF_8);
    }

    private static String txIdOn(Jedis jedis, String key) {
        List<Object> peek = JedisAccess.peek(jedis, b(key));
        return peek == null ? null : new String((byte[]) peek.get(1), StandardCharsets.UTF_8);
    }

    @Test
    void jedisGetsRedisRepliesForTheExpiryCommandsAndTheBackupGetsTheSameAbsoluteTimes() {
        TestClock clock = TestClock.fixedAt(T0);
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .clocks(clock, TestClock.fixedAt(T0))
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("s", "v", SetParams.setParams().ex(100))).isEqualTo("OK");
            assertThat(p.ttl("s")).isEqualTo(100);
            assertThat(p.pttl("s")).isEqualTo(100_000);
            assertThat(p.set("px", "v", SetParams.setParams().px(1500))).isEqualTo("OK");
            assertThat(p.ttl("px")).isEqualTo(2);
            assertThat(p.set("exat", "v", SetParams.setParams().exAt(T0 / 1000 + 60)))
                    .isEqualTo("OK");
            assertThat(p.expireTime("exat")).isEqualTo(T0 / 1000 + 60);
            assertThat(p.set("pxat", "v", SetParams.setParams().pxAt(T0 + 4321)))
                    .isEqualTo("OK");
            assertThat(p.pexpireTime("pxat")).isEqualTo(T0 + 4321);
            assertThat(p.set("pxat", "w", SetParams.setParams().keepTtl())).isEqualTo("OK");
            assertThat(p.pexpireTime("pxat")).isEqualTo(T0 + 4321);
            assertThat(p.set("s", "x", SetParams.setParams().nx().ex(5))).isNull();
            assertThat(p.setGet("s", "v2", SetParams.setParams().ex(200))).isEqualTo("v");
            assertThat(p.ttl("s")).isEqualTo(200);
            assertThat(p.setex("setex", 30, "v")).isEqualTo("OK");
            assertThat(p.psetex("psetex", 2500, "v")).isEqualTo("OK");
            assertThat(p.pttl("psetex")).isEqualTo(2500);
            assertThat(p.set("plain", "v")).isEqualTo("OK");
            assertThat(p.ttl("plain")).isEqualTo(-1);
            assertThat(p.ttl("missing")).isEqualTo(-2);
            assertThat(p.expire("plain", 50)).isEqualTo(1);
            assertThat(p.expire("plain", 10, ExpiryOption.NX)).isZero();
            assertThat(p.expire("plain", 100, ExpiryOption.GT)).isEqualTo(1);
            assertThat(p.pexpire("plain", 90_000, ExpiryOption.LT)).isEqualTo(1);
            assertThat(p.pttl("plain")).isEqualTo(90_000);
            assertThat(p.expireAt("setex", T0 / 1000 + 40)).isEqualTo(1);
            assertThat(p.pexpireAt("psetex", T0 + 3000)).isEqualTo(1);
            assertThat(p.getEx("px", GetExParams.getExParams().persist())).isEqualTo("v");
            assertThat(p.ttl("px")).isEqualTo(-1);
            assertThat(p.getEx("plain", GetExParams.getExParams().px(7000))).isEqualTo("v");
            assertThat(p.set("gone", "v")).isEqualTo("OK");
            assertThat(p.expire("gone", -1)).isEqualTo(1);
            assertThat(p.exists("gone")).isFalse();
            assertThat(p.persist("exat")).isEqualTo(1);
            assertThat(p.persist("exat")).isZero();
            assertThat(p.incr("counter")).isEqualTo(1);
            assertThat(p.expire("counter", 20)).isEqualTo(1);
            assertThat(p.incr("counter")).isEqualTo(2);
            assertThat(p.ttl("counter")).isEqualTo(20);
            assertThat(p.expire("plain", -5, ExpiryOption.GT)).isZero(); // not greater: nothing deleted
            assertThat(p.exists("plain")).isTrue();
            assertThatThrownBy(() -> p.set("s", "v", SetParams.setParams().ex(0)))
                    .hasMessage("ERR invalid expire time in 'set' command");
            assertThatThrownBy(() -> p.setex("s", -1, "v")).hasMessage("ERR invalid expire time in 'setex' command");

            List<String> keys = List.of("s", "px", "exat", "pxat", "setex", "psetex", "plain", "gone", "counter");
            ReplicationTest.awaitConverged(
                    dc, keys.stream().map(ExpiryReplicationTest::b).toList());
            // the backup holds the primary's absolute times, not times of its own
            assertThat(expiryOn(bk, "s")).isEqualTo(T0 + 200_000);
            assertThat(expiryOn(bk, "pxat")).isEqualTo(T0 + 4321);
            assertThat(expiryOn(bk, "psetex")).isEqualTo(T0 + 3000);
            assertThat(expiryOn(bk, "plain")).isEqualTo(T0 + 7000);
            assertThat(expiryOn(bk, "px")).isZero();
            assertThat(expiryOn(bk, "exat")).isZero();
            assertThat(expiryOn(bk, "counter")).isEqualTo(T0 + 20_000);
        }
    }

    @Test
    void renameMovesTheAbsoluteExpiryOnBothNodesWhetherTheBackupHeldTheSourceOrNot() {
        // 4 Mbit/s: the 1 MiB value is still on its way when its rename's key packet arrives
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 4_000_000)
                        .replication(TwoDc.replication().build())
                        .clocks(TestClock.fixedAt(T0), TestClock.fixedAt(T0))
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("small", "v", SetParams.setParams().px(70_000))).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(b("small")));
            assertThat(p.rename("small", "small2")).isEqualTo("OK"); // the backup holds the source complete
            byte[] big = new byte[1 << 20];
            new Random(11).nextBytes(big);
            assertThat(p.set(b("big"), big, SetParams.setParams().px(90_000))).isEqualTo("OK");
            assertThat(p.rename("big", "big2")).isEqualTo("OK"); // its value is not on the backup yet

            assertThat(p.pttl("small2")).isEqualTo(70_000);
            assertThat(p.pttl("big2")).isEqualTo(90_000);
            ReplicationTest.awaitConverged(dc, List.of(b("small"), b("small2"), b("big"), b("big2")));
            assertThat(expiryOn(bk, "small2")).isEqualTo(expiryOn(p, "small2")).isEqualTo(T0 + 70_000);
            assertThat(expiryOn(bk, "big2")).isEqualTo(expiryOn(p, "big2")).isEqualTo(T0 + 90_000);
            assertThat(JedisAccess.peek(bk, b("big2")).get(4)).isEqualTo(big);
        }
    }

    @Test
    void expireOnAKeyWhoseValueIsStillUnfinishedOnTheBackupReachesItWithTheValue() {
        // 4 Mbit/s: a 1 MiB value needs about 2 s on the wire, its key packets a few ms
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 4_000_000)
                        .replication(TwoDc.replication().build())
                        .clocks(TestClock.fixedAt(T0), TestClock.fixedAt(T0))
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            byte[] big = new byte[1 << 20];
            new Random(7).nextBytes(big);
            assertThat(p.set(b("big"), big)).isEqualTo("OK");
            assertThat(p.expire("big", 100)).isEqualTo(1); // id-first: its key packet is on the backup
            assertThat(JedisAccess.peek(bk, b("big")))
                    .as("the value has not arrived yet")
                    .isNull();
            assertThat(Long.parseLong(JedisAccess.info(bk, "kvs_unfinished_keys")))
                    .isEqualTo(1);

            ReplicationTest.awaitConverged(dc, List.of(b("big")));
            assertThat(expiryOn(bk, "big")).isEqualTo(T0 + 100_000);
            assertThat(txIdOn(bk, "big")).isEqualTo(txIdOn(p, "big")).isEqualTo("1:2");
            assertThat(JedisAccess.peek(bk, b("big")).get(4)).isEqualTo(big);
        }
    }

    /**
     * The acceptance: after a failover, the promoted backup expires a key at the primary's
     * absolute expiry time (here to the millisecond, as both clocks are injected and equal), lazily at
     * once and actively as a replicated delete.
     */
    @Test
    void afterAFailoverThePromotedBackupExpiresKeysAtThePrimarysAbsoluteTime() throws Exception {
        TestClock primaryClock = TestClock.fixedAt(T0);
        TestClock backupClock = TestClock.fixedAt(T0);
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .clocks(primaryClock, backupClock)
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("k", "v", SetParams.setParams().px(1500))).isEqualTo("OK");
            long expiry = p.pexpireTime("k");
            assertThat(expiry).isEqualTo(T0 + 1500);
            ReplicationTest.awaitConverged(dc, List.of(b("k")));
            dc.link().cut();
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("\"unfinishedCount\":0");

            backupClock.advance(Duration.ofMillis(1500)); // exactly the expiry millisecond
            assertThat(bk.get("k")).isEqualTo("v");
            assertThat(bk.pttl("k")).isZero();
            backupClock.advance(Duration.ofMillis(1));
            assertThat(bk.get("k")).isNull();
            assertThat(bk.ttl("k")).isEqualTo(-2);
            // the new primary's active expiry removes it, as a write of its own epoch
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, b("k")) == null);
            assertThat(bk.role().get(0)).isEqualTo("master");
        }
    }

    /**
     * Clock skew: the backup's clock runs {@code skewMs} ahead of (or behind) the primary's. The key
     * carries the primary's absolute time, so the backup expires it when its own clock reaches that
     * time: in real time, {@code skewMs} earlier (or later) than the primary. Its local removal is
     * harmless: the primary's delete arrives later and replaces it.
     */
    @ParameterizedTest
    @ValueSource(longs = {40, -40})
    void withSkewedClocksTheBackupExpiresAtThePrimarysAbsoluteTimeOnItsOwnClock(long skewMs) {
        TestClock primaryClock = TestClock.fixedAt(T0);
        TestClock backupClock = TestClock.fixedAt(T0 + skewMs);
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .clocks(primaryClock, backupClock)
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("k", "v", SetParams.setParams().ex(10))).isEqualTo("OK");
            assertThat(p.set("other", "v")).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(b("k"), b("other")));
            assertThat(expiryOn(bk, "k")).isEqualTo(T0 + 10_000); // not shifted by the skew
            String written = txIdOn(p, "k");

            // the backup's clock reaches the expiry first (ahead) or last (behind)
            TestClock first = skewMs > 0 ? backupClock : primaryClock;
            TestClock last = skewMs > 0 ? primaryClock : backupClock;
            long firstAt = skewMs > 0 ? T0 + skewMs : T0;
            first.advance(Duration.ofMillis(T0 + 10_001 - firstAt));
            last.advance(Duration.ofMillis(10_000 - Math.abs(skewMs))); // still 1 ms before the expiry
            if (skewMs > 0) {
                // the backup removes it locally, leaving no tombstone (every key packet up to it came and
                // nothing older is awaited); the primary still serves it
                await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, b("k")) == null);
                assertThat(p.get("k")).isEqualTo("v");
                assertThat(txIdOn(p, "k")).isEqualTo(written);
            } else {
                // the primary expires it and replicates the delete; the backup, behind, applies it
                await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(p, b("k")) == null);
                assertThat(p.get("k")).isNull();
            }
            // once both clocks are past it, both agree: the primary's delete lands on the local removal
            last.advance(Duration.ofMillis(2 + Math.abs(skewMs)));
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(p, b("k")) == null);
            ReplicationTest.awaitConverged(dc, List.of(b("k"), b("other")));
            assertThat(JedisAccess.peek(bk, b("k"))).isNull(); // neither the value nor a tombstone
            assertThat(JedisAccess.peek(bk, b("other")).get(4)).isEqualTo(b("v"));
        }
    }

    /**
     * A fenced key keeps its expiry: unfinished (or lost) after a promotion, then absent once its time
     * passes.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFencedKeyKeepsItsExpiryAfterAPromotion(boolean declaredLost) throws Exception {
        TestClock backupClock = TestClock.fixedAt(T0);
        FailoverConfig reject = new FailoverConfig(ReadPolicy.REJECT, Duration.ofMillis(300), Duration.ZERO);
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 2_000_000)
                        .replication(TwoDc.replication().build())
                        .failover(reject)
                        .clocks(TestClock.fixedAt(T0), backupClock)
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("old", "1")).isEqualTo("OK");
            ReplicationTest.awaitConverged(dc, List.of(b("old")));
            byte[] big = new byte[2 << 20];
            new Random(3).nextBytes(big);
            assertThat(p.set(b("old"), big, SetParams.setParams().px(5000))).isEqualTo("OK");
            dc.link().cut(); // its value never arrives
            String promoted = Admin.post(dc.backup().adminPort(), declaredLost ? "/promote?lost=true" : "/promote");
            assertThat(promoted).contains(declaredLost ? "\"lostCount\":1" : "\"unfinishedCount\":1");
            assertThat(Admin.get(dc.backup().adminPort(), "/lost")).contains("\"expireAtMillis\":" + (T0 + 5000));

            String fenced = (declaredLost ? "LOST" : "UNFINISHED") + " old 1:2";
            assertThatThrownBy(() -> bk.get("old")).hasMessage(fenced);
            backupClock.advance(Duration.ofMillis(5000));
            assertThatThrownBy(() -> bk.get("old")).hasMessage(fenced);
            backupClock.advance(Duration.ofMillis(1));
            // expired: absent, not fenced, and the older value it replaced is not served either
            assertThat(bk.get("old")).isNull();
            assertThat(bk.exists("old")).isFalse();
            assertThat(JedisAccess.info(bk, "kvs_unfinished_keys")).isEqualTo("0");
            assertThat(Admin.get(dc.backup().adminPort(), "/lost")).contains("\"lostCount\":0");
            assertThat(bk.set("old", "new")).isEqualTo("OK");
            assertThat(bk.get("old")).isEqualTo("new");
        }
    }
}
