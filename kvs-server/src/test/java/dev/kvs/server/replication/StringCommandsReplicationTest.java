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
import redis.clients.jedis.Protocol;

/**
 * The string and counter commands driven by a third-party client (Jedis) on a primary+backup pair:
 * replies as redis.io documents them, and every write reaches the backup with the primary's TxId.
 */
class StringCommandsReplicationTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(ReplicationMode.class)
    void jedisGetsRedisRepliesAndEveryWriteReachesTheBackup(ReplicationMode mode) {
        try (TwoDc dc = TwoDc.builder()
                        .mode(mode)
                        .link(Duration.ofMillis(2), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            // redis.io's examples, reply for reply
            assertThat(p.set("mykey", "10")).isEqualTo("OK");
            assertThat(p.incr("mykey")).isEqualTo(11);
            assertThat(p.decr("mykey")).isEqualTo(10);
            assertThat(p.incrBy("mykey", 5)).isEqualTo(15);
            assertThat(p.decrBy("mykey", 3)).isEqualTo(12);
            assertThat(p.set("fkey", "10.50")).isEqualTo("OK");
            assertThat(new String((byte[]) p.sendCommand(Protocol.Command.INCRBYFLOAT, "fkey", "0.1")))
                    .isEqualTo("10.6");
            assertThat(p.set("fkey2", "5.0e3")).isEqualTo("OK");
            assertThat(p.incrByFloat("fkey2", 2.0e2)).isEqualTo(5200.0);
            assertThat(p.get("fkey2")).isEqualTo("5200");
            assertThat(p.append("akey", "Hello")).isEqualTo(5);
            assertThat(p.append("akey", " World")).isEqualTo(11);
            assertThat(p.getSet("gkey", "v1")).isNull();
            assertThat(p.getSet("gkey", "v2")).isEqualTo("v1");
            assertThat(p.set("dkey", "Hello")).isEqualTo("OK");
            assertThat(p.getDel("dkey")).isEqualTo("Hello");
            assertThat(p.getDel("dkey")).isNull();
            assertThat(p.setnx("nkey", "Hello")).isEqualTo(1);
            assertThat(p.setnx("nkey", "World")).isEqualTo(0);
            assertThat(p.msetnx("m1", "Hello", "m2", "there")).isEqualTo(1);
            assertThat(p.msetnx("m2", "new", "m3", "world")).isEqualTo(0);
            assertThat(p.set("rkey", "Hello World")).isEqualTo("OK");
            assertThat(p.setrange("rkey", 6, "Redis")).isEqualTo(11);
            assertThat(p.setrange("pkey", 6, "Redis")).isEqualTo(11);
            assertThat(p.getrange("rkey", -5, -1)).isEqualTo("Redis");
            assertThat(p.type("rkey")).isEqualTo("string");
            assertThat(p.type("m3")).isEqualTo("none");
            assertThat(p.time()).hasSize(2);

            List<String> keys =
                    List.of("mykey", "fkey", "fkey2", "akey", "gkey", "dkey", "nkey", "m1", "m2", "m3", "rkey", "pkey");
            ReplicationTest.awaitConverged(
                    dc, keys.stream().map(StringCommandsReplicationTest::b).toList());
            assertThat(value(bk, "mykey")).isEqualTo("12");
            assertThat(value(bk, "fkey")).isEqualTo("10.6");
            assertThat(value(bk, "akey")).isEqualTo("Hello World");
            assertThat(value(bk, "gkey")).isEqualTo("v2");
            assertThat(JedisAccess.peek(bk, b("dkey")) == null || value(bk, "dkey") == null)
                    .isTrue();
            assertThat(value(bk, "nkey")).isEqualTo("Hello");
            assertThat(value(bk, "m2")).isEqualTo("there");
            assertThat(JedisAccess.peek(bk, b("m3"))).isNull();
            assertThat(value(bk, "rkey")).isEqualTo("Hello Redis");
            assertThat(value(bk, "pkey")).isEqualTo("\0\0\0\0\0\0Redis");

            // ROLE: the primary lists its streaming backup with the seq it acked; the backup answers too
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<Object> role = p.role();
                assertThat(role.get(0)).isEqualTo("master");
                assertThat(role.get(2)).asList().hasSize(1);
            });
            List<Object> backupRole = bk.role();
            assertThat(backupRole.get(0)).isEqualTo("slave");
            assertThat(backupRole.get(3)).isEqualTo("connected");
            assertThat(backupRole.get(4)).isEqualTo(p.role().get(1));
            assertThatThrownBy(() -> bk.incr("mykey")).hasMessageStartingWith("NOTPRIMARY");
        }
    }

    /** The value a backup holds for {@code key}, via KVS.PEEK, or null. */
    private static String value(Jedis jedis, String key) {
        List<Object> peek = JedisAccess.peek(jedis, b(key));
        if (peek == null || peek.get(4) == null) return null;
        return new String((byte[]) peek.get(4), StandardCharsets.UTF_8);
    }

    @Test
    void readModifyWritesOfAFencedKeyAreRefusedLikeSet() throws Exception {
        FailoverConfig failover = new FailoverConfig(ReadPolicy.REJECT, Duration.ofMillis(300), Duration.ZERO);
        // 2 Mbit/s: a 2 MiB value needs 8 s on the wire
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 2_000_000)
                        .replication(TwoDc.replication().build())
                        .failover(failover)
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("n", "1")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, b("n")) != null);
            byte[] big = new byte[2 << 20];
            new Random(3).nextBytes(big);
            assertThat(p.set(b("big"), big)).isEqualTo("OK"); // id-first: its key packet is on the backup
            dc.link().cut(); // the value never arrives
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("\"unfinishedCount\":1");

            String fenced = "UNFINISHED big 1:2";
            assertThatThrownBy(() -> bk.set("big", "x")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.incr("big")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.append("big", "x")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.getSet("big", "x")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.getDel("big")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.setnx("big", "x")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.msetnx("free", "x", "big", "x")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.setrange("big", 0, "x")).hasMessage(fenced);
            assertThatThrownBy(() -> bk.getrange("big", 0, 1)).hasMessage(fenced);
            assertThat(bk.exists("free")).isFalse();
            // the promoted node's own keys work
            assertThat(bk.incr("n")).isEqualTo(2);
            assertThat(bk.role().get(0)).isEqualTo("master");
        }
    }
}
