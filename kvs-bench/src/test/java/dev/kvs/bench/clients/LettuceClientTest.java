package dev.kvs.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.KvsNode;
import dev.kvs.testing.cluster.TwoDc;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lettuce (issue #37) with {@link ProtocolVersion#RESP3} forced and with its defaults (which ask {@code
 * HELLO 3}) against a kvs node: strings, hashes, sets, MULTI/EXEC, scripts and pub/sub, each read into Lettuce's
 * own types; and an application that moves to the backup when its primary is lost finds there what the
 * primary acknowledged. kvs-server's {@code Resp3ClientsTest} has the reply types in detail.
 */
class LettuceClientTest {
    private static KvsNode kvs;

    @BeforeAll
    static void start() {
        kvs = KvsNodes.lone();
    }

    @AfterAll
    static void stop() {
        kvs.close();
    }

    /** Runs {@code body} on a connection to {@code node} with {@code protocol} (null: Lettuce's default). */
    static void withLettuce(KvsNode node, ProtocolVersion protocol, Consumer<RedisCommands<String, String>> body) {
        RedisClient client = RedisClient.create(RedisURI.create(KvsNodes.uri(node)));
        client.setDefaultTimeout(Duration.ofSeconds(10));
        if (protocol != null)
            client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            body.accept(connection.sync());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    /** Writes of every kind under {@code p}, asserting each reply; {@link #readBack} checks what they left. */
    private static void writeEveryKind(RedisCommands<String, String> r, String p) {
        assertThat(r.set(p + "s", "v")).isEqualTo("OK");
        assertThat(r.get(p + "s")).isEqualTo("v");
        assertThat(r.incrby(p + "n", 5)).isEqualTo(5);
        assertThat(r.hset(p + "h", Map.of("a", "1", "b", "2"))).isEqualTo(2);
        assertThat(r.hincrby(p + "h", "a", 10)).isEqualTo(11);
        assertThat(r.sadd(p + "set", "x", "y", "z")).isEqualTo(3);
        assertThat(r.srem(p + "set", "z")).isEqualTo(1);

        assertThat(r.multi()).isEqualTo("OK");
        r.set(p + "tx", "1");
        r.hset(p + "tx-h", "f", "v");
        r.sadd(p + "tx-set", "m");
        r.smembers(p + "tx-set");
        TransactionResult tx = r.exec();
        assertThat(tx.wasDiscarded()).isFalse();
        assertThat(tx.<Object>get(0)).isEqualTo("OK");
        assertThat(tx.<Object>get(1)).isEqualTo(true);
        assertThat(tx.<Object>get(2)).isEqualTo(1L);
        assertThat(tx.<Object>get(3)).isEqualTo(Set.of("m"));

        String swap = "local old = redis.call('GET', KEYS[1]) redis.call('SET', KEYS[1], ARGV[1])"
                + " redis.call('HSET', KEYS[2], 'by', 'script') return old";
        assertThat(r.<String>eval(swap, ScriptOutputType.VALUE, new String[] {p + "s", p + "h"}, "w"))
                .isEqualTo("v");
        String sha = r.scriptLoad("return {KEYS[1], ARGV[1], 3, redis.call('SCARD', KEYS[1])}");
        assertThat(r.scriptExists(sha)).containsExactly(true);
        assertThat(r.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, new String[] {p + "set"}, "arg"))
                .containsExactly(p + "set", "arg", 3L, 2L);
        assertThat(r.<String>evalReadOnly(
                        "return redis.call('GET', KEYS[1])".getBytes(), ScriptOutputType.VALUE, new String[] {p + "s"}))
                .isEqualTo("w");
        assertThatThrownBy(() -> r.eval("return redis.error_reply('MYERR no luck')", ScriptOutputType.STATUS))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessage("MYERR no luck");
    }

    /** What {@link #writeEveryKind} left under {@code p}. */
    private static void readBack(RedisCommands<String, String> r, String p) {
        assertThat(r.get(p + "s")).isEqualTo("w");
        assertThat(r.get(p + "n")).isEqualTo("5");
        assertThat(r.hgetall(p + "h")).isEqualTo(Map.of("a", "11", "b", "2", "by", "script"));
        assertThat(r.smembers(p + "set")).isEqualTo(Set.of("x", "y"));
        assertThat(r.get(p + "tx")).isEqualTo("1");
        assertThat(r.hget(p + "tx-h", "f")).isEqualTo("v");
        assertThat(r.sismember(p + "tx-set", "m")).isTrue();
    }

    @Test
    void withResp3ForcedEveryKindOfCommandWorks() {
        withLettuce(kvs, ProtocolVersion.RESP3, r -> {
            assertThat(r.clientInfo()).contains(" resp=3 ");
            writeEveryKind(r, "resp3:");
            readBack(r, "resp3:");
        });
    }

    @Test
    void withItsDefaultsEveryKindOfCommandWorks() {
        withLettuce(kvs, null, r -> {
            assertThat(r.clientInfo())
                    .as("Lettuce's default asks HELLO 3 and gets it")
                    .contains(" resp=3 ");
            writeEveryKind(r, "default:");
            readBack(r, "default:");
        });
    }

    /** A subscriber on {@code node} with {@code protocol} receives what another connection publishes. */
    private static void publishedMessagesReachASubscriber(KvsNode node, ProtocolVersion protocol) {
        RedisClient client = RedisClient.create(RedisURI.create(KvsNodes.uri(node)));
        client.setDefaultTimeout(Duration.ofSeconds(10));
        if (protocol != null)
            client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        List<String> received = new CopyOnWriteArrayList<>();
        try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
                StatefulRedisConnection<String, String> pub = client.connect()) {
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    received.add(channel + "=" + message);
                }

                @Override
                public void message(String pattern, String channel, String message) {
                    received.add(pattern + ":" + channel + "=" + message);
                }
            });
            sub.sync().subscribe("orders");
            sub.sync().psubscribe("news.*");
            assertThat(pub.sync().pubsubNumsub("orders")).containsEntry("orders", 1L);
            assertThat(pub.sync().publish("orders", "o-1")).isEqualTo(1);
            assertThat(pub.sync().publish("news.sport", "goal")).isEqualTo(1);
            assertThat(pub.sync().publish("nobody", "lost")).isZero();
            await("the subscriber receives both").atMost(Duration.ofSeconds(10)).until(() -> received.size() >= 2);
            assertThat(received).containsExactly("orders=o-1", "news.*:news.sport=goal");
            sub.sync().unsubscribe("orders");
            assertThat(pub.sync().publish("orders", "o-2")).isZero();
            // RESP2's subscribed PING answers ["pong", ""], which Lettuce reads as "" (from Redis 7.0.15 too)
            assertThat(sub.sync().ping())
                    .as("the subscribed connection still answers")
                    .isEqualTo(protocol == ProtocolVersion.RESP2 ? "" : "PONG");
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void pubSubWorksWithResp3ForcedAndWithItsDefaults() {
        publishedMessagesReachASubscriber(kvs, ProtocolVersion.RESP3);
        publishedMessagesReachASubscriber(kvs, null);
        publishedMessagesReachASubscriber(kvs, ProtocolVersion.RESP2);
    }

    @Test
    void afterAFailoverThePromotedBackupHasWhatThePrimaryAcknowledgedAndTakesWrites() throws Exception {
        try (TwoDc dc = KvsNodes.pair()) {
            withLettuce(dc.primary(), null, r -> {
                writeEveryKind(r, "fo:");
                r.set("fo:last", "1");
            });
            KvsNodes.awaitOnBackup(dc, "fo:last", "1");
            KvsNodes.failOver(dc);
            withLettuce(dc.backup(), null, r -> {
                readBack(r, "fo:");
                writeEveryKind(r, "after:");
                readBack(r, "after:");
            });
        }
    }
}
