package dev.kvs.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kvs.server.KvsNode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;

/**
 * Issue #37 item 5: a command kvs lacks ({@code ZADD}: no sorted sets) and one it refuses ({@code
 * FUNCTION LOAD}: no function engine) fail once and at once through each Java client with its defaults.
 * Their errors begin with {@code ERR}, a word no client retries on; Redisson retries {@code TRYAGAIN},
 * {@code LOADING}, {@code CLUSTERDOWN}, {@code MASTERDOWN}, {@code BUSY}, {@code ERR WAIT} and {@code
 * NOREPLICAS} (its {@code RedisRetryException}s), follows {@code MOVED}/{@code ASK}, answers {@code
 * NOSCRIPT} with EVAL, and resends EVALSHA (or SORT_RO) when it reads {@code ERR unknown command} for
 * it, which kvs no longer answers for scripts. The node's {@code total_error_replies} counts what reached
 * it: one error per call.
 */
class UnsupportedCommandsTest {
    private static final Duration QUICKLY = Duration.ofSeconds(2);
    private static final String LIBRARY = "#!lua name=lib\nredis.register_function('f', function() return 1 end)";
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
            failsOnceAtOnce(() -> c.sync().functionLoad(LIBRARY), "ERR FUNCTION LOAD is not supported");
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
            failsOnceAtOnce(
                    () -> redisson.getFunction().load("lib", "redis.register_function('f', function() return 1 end)"),
                    "ERR FUNCTION LOAD is not supported");
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
            failsOnceAtOnce(() -> jedis.functionLoad(LIBRARY), "ERR FUNCTION LOAD is not supported");
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }
}
