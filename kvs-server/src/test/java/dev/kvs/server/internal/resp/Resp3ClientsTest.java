package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.config.NodeConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Transaction;

/**
 * Real clients in RESP3 against a kvs node (issue #37): Lettuce with {@link ProtocolVersion#RESP3}
 * forced, with its defaults (which ask for RESP3 with {@code HELLO 3} and fall back to RESP2 only if
 * refused) and with RESP2 forced; Jedis with {@link RedisProtocol#RESP3}. Strings, hashes, sets and
 * MULTI/EXEC, each client reading the maps, sets and nulls it receives into its own types.
 */
class Resp3ClientsTest {
    private static LiveRespServer kvs;

    @BeforeAll
    static void start() throws InterruptedException {
        kvs = new LiveRespServer(NodeConfig.builder().build());
    }

    @AfterAll
    static void stop() {
        kvs.close();
    }

    /** Runs {@code body} on a Lettuce connection with {@code protocol} (null: Lettuce's default). */
    private static void withLettuce(
            ProtocolVersion protocol, java.util.function.Consumer<RedisCommands<String, String>> body) {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + kvs.port));
        client.setDefaultTimeout(Duration.ofSeconds(10));
        if (protocol != null) {
            client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        }
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            body.accept(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    /** Strings, hashes, sets and a transaction, with keys under {@code p}; the same on every protocol. */
    private static void stringsHashesSetsAndTransactions(RedisCommands<String, String> r, String p) {
        assertThat(r.set(p + "s", "v")).isEqualTo("OK");
        assertThat(r.get(p + "s")).isEqualTo("v");
        assertThat(r.get(p + "missing")).isNull();
        assertThat(r.incrbyfloat(p + "f", 1.5)).isEqualTo(1.5);
        assertThat(r.mget(p + "s", p + "missing"))
                .containsExactly(KeyValue.just(p + "s", "v"), KeyValue.empty(p + "missing"));

        assertThat(r.hset(p + "h", Map.of("a", "1", "b", "2"))).isEqualTo(2);
        assertThat(r.hgetall(p + "h")).isEqualTo(Map.of("a", "1", "b", "2"));
        assertThat(r.hgetall(p + "missing")).isEmpty();
        assertThat(r.hget(p + "h", "nope")).isNull();
        assertThat(r.hrandfieldWithvalues(p + "h", 2))
                .containsExactlyInAnyOrder(KeyValue.just("a", "1"), KeyValue.just("b", "2"));
        assertThat(r.hincrbyfloat(p + "h", "a", 0.5)).isEqualTo(1.5);

        assertThat(r.sadd(p + "set", "x", "y", "z")).isEqualTo(3);
        assertThat(r.sadd(p + "set2", "y", "z", "w")).isEqualTo(3);
        assertThat(r.smembers(p + "set")).isEqualTo(Set.of("x", "y", "z"));
        assertThat(r.sinter(p + "set", p + "set2")).isEqualTo(Set.of("y", "z"));
        assertThat(r.sunion(p + "set", p + "set2")).isEqualTo(Set.of("w", "x", "y", "z"));
        assertThat(r.sdiff(p + "set", p + "set2")).isEqualTo(Set.of("x"));
        assertThat(r.smembers(p + "missing")).isEmpty();
        assertThat(r.spop(p + "set2", 5)).isEqualTo(Set.of("w", "y", "z"));
        assertThat(r.spop(p + "set2")).isNull();

        assertThat(r.configGet("set-max-intset-entries")).isEqualTo(Map.of("set-max-intset-entries", "512"));
        assertThat(r.info("server")).startsWith("# Server");

        assertThat(r.multi()).isEqualTo("OK");
        r.hset(p + "tx", "f", "v");
        r.hgetall(p + "tx");
        r.smembers(p + "set");
        r.get(p + "missing");
        TransactionResult tx = r.exec();
        assertThat(tx.wasDiscarded()).isFalse();
        assertThat(tx.<Object>get(0)).isEqualTo(true);
        assertThat(tx.<Object>get(1)).isEqualTo(Map.of("f", "v"));
        assertThat(tx.<Object>get(2)).isEqualTo(Set.of("x", "y", "z"));
        assertThat(tx.<Object>get(3)).isNull();
    }

    @Test
    void lettuceWithResp3ForcedSpeaksResp3() {
        withLettuce(ProtocolVersion.RESP3, r -> {
            assertThat(r.clientInfo()).contains(" resp=3 ");
            stringsHashesSetsAndTransactions(r, "lettuce3:");
        });
    }

    @Test
    void lettuceWithItsDefaultsChoosesResp3() {
        withLettuce(null, r -> {
            assertThat(r.clientInfo()).as("Lettuce asked for RESP3 and got it").contains(" resp=3 ");
            stringsHashesSetsAndTransactions(r, "lettuce-default:");
        });
    }

    @Test
    void lettuceWithResp2ForcedStillGetsResp2() {
        withLettuce(ProtocolVersion.RESP2, r -> {
            assertThat(r.clientInfo()).contains(" resp=2 ");
            stringsHashesSetsAndTransactions(r, "lettuce2:");
        });
    }

    @Test
    void jedisWithResp3ReadsMapsSetsAndNulls() {
        var config = DefaultJedisClientConfig.builder()
                .protocol(RedisProtocol.RESP3)
                .socketTimeoutMillis(10_000)
                .build();
        try (Jedis j = new Jedis("127.0.0.1", kvs.port, config)) {
            assertThat(j.clientInfo()).contains(" resp=3 ");
            assertThat(j.set("jedis3:s", "v")).isEqualTo("OK");
            assertThat(j.get("jedis3:missing")).isNull();
            j.hset("jedis3:h", Map.of("a", "1", "b", "2"));
            assertThat(j.hgetAll("jedis3:h")).isEqualTo(Map.of("a", "1", "b", "2"));
            j.sadd("jedis3:set", "x", "y");
            assertThat(j.smembers("jedis3:set")).isEqualTo(Set.of("x", "y"));
            assertThat(j.configGet("set-max-intset-entries")).isEqualTo(Map.of("set-max-intset-entries", "512"));
            Transaction t = j.multi();
            t.hgetAll("jedis3:h");
            t.smembers("jedis3:set");
            t.get("jedis3:missing");
            List<Object> results = t.exec();
            assertThat(results.get(0)).isEqualTo(Map.of("a", "1", "b", "2"));
            assertThat(results.get(1)).isEqualTo(Set.of("x", "y"));
            assertThat(results.get(2)).isNull();
        }
    }
}
