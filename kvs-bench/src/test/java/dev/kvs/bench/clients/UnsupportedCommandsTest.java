package dev.kvs.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kvs.server.KvsNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;

/**
 * Issue #37 item 5: a command kvs lacks ({@code ZADD}: no sorted sets) and one it refuses ({@code
 * FUNCTION RESTORE} of a payload Redis made: kvs's {@code FUNCTION DUMP} has its own format) fail once
 * and at once through each Java client with its defaults.
 * Their errors begin with {@code ERR}, a word no client retries on; Redisson retries {@code TRYAGAIN},
 * {@code LOADING}, {@code CLUSTERDOWN}, {@code MASTERDOWN}, {@code BUSY}, {@code ERR WAIT} and {@code
 * NOREPLICAS} (its {@code RedisRetryException}s), follows {@code MOVED}/{@code ASK}, answers {@code
 * NOSCRIPT} with EVAL, and resends EVALSHA (or SORT_RO) when it reads {@code ERR unknown command} for
 * it, which kvs no longer answers for scripts. The node's {@code total_error_replies} counts what reached
 * it: one error per call.
 */
class UnsupportedCommandsTest {
    private static final Duration QUICKLY = Duration.ofSeconds(2);
    /** What redis-server 7.0.15's {@code FUNCTION DUMP} answered for one small library. */
    private static final byte[] REDIS_DUMP = HexFormat.of()
            .parseHex("f5404423216c7561206e616d653d6c69620a72656469732e72656769737465725f66756e6374696f6e282766"
                    + "272c2066756e6374696f6e28292072657475726e203120656e64290a00afec4ac10dc90ca3");

    private static final String REFUSED = "ERR DUMP payload version or checksum are wrong";
    private static KvsNode kvs;

    @BeforeAll
    static void start() {
        kvs = KvsNodes.lone();
    }

    @AfterAll
    static void stop() {
        kvs.close();
    }

    /** Runs {@code call}, which must fail with {@code message} quickly, the node answering one error. */
    private static void failsOnceAtOnce(Runnable call, String message) {
        long errorsBefore = KvsNodes.errorReplies(kvs);
        long started = System.nanoTime();
        Throwable thrown = catchThrowable(call::run);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(thrown).as("the call fails").isNotNull();
        assertThat(KvsNodes.errorReplies(kvs) - errorsBefore)
                .as("errors the node answered (%s)", thrown)
                .isEqualTo(1);
        assertThat(took).as("failed at once").isLessThan(QUICKLY);
        assertThat(thrown).hasMessageContaining(message);
    }

    @Test
    void lettuceFailsOnceOnAnUnknownAndAnUnsupportedCommand() {
        RedisClient client = RedisClient.create(RedisURI.create(KvsNodes.uri(kvs)));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            failsOnceAtOnce(() -> c.sync().zadd("lettuce:z", 1.0, "m"), "ERR unknown command 'ZADD'");
            failsOnceAtOnce(() -> c.sync().functionRestore(REDIS_DUMP), REFUSED);
            assertThat(c.sync().ping()).isEqualTo("PONG");
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    @Test
    void redissonFailsOnceOnAnUnknownAndAnUnsupportedCommand() {
        Config config = new Config();
        config.useSingleServer().setAddress(KvsNodes.uri(kvs));
        RedissonClient redisson = Redisson.create(config);
        try {
            failsOnceAtOnce(
                    () -> redisson.getScoredSortedSet("redisson:z").add(1.0, "m"), "ERR unknown command 'ZADD'");
            failsOnceAtOnce(() -> redisson.getFunction().restore(REDIS_DUMP), REFUSED);
            assertThat(redisson.getBucket("redisson:after").trySet("still serving"))
                    .isTrue();
        } finally {
            redisson.shutdown();
        }
    }

    @Test
    void jedisFailsOnceOnAnUnknownAndAnUnsupportedCommand() {
        try (Jedis jedis = new Jedis(KvsNodes.uri(kvs))) {
            failsOnceAtOnce(() -> jedis.zadd("jedis:z", 1.0, "m"), "ERR unknown command 'ZADD'");
            failsOnceAtOnce(() -> jedis.functionRestore(REDIS_DUMP), REFUSED);
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }
}
