package dev.kvs.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.KvsNode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RBatch;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RMap;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * Redisson (issue #37) with its defaults against a kvs node: RBucket, RAtomicLong and RMap, whose
 * operations are Lua scripts sent with EVALSHA (NOSCRIPT, then EVAL), an atomic RBatch (MULTI/EXEC), RTopic
 * (pub/sub) and RLock, whose lease its watchdog renews and whose unlock publishes to the waiters.
 * Through a failover too: Redisson in replicated mode, given both nodes, finds the primary by {@code INFO
 * replication}'s role and moves to the promoted backup by itself (reading from the primary: a kvs backup
 * answers reads only after {@code READONLY}).
 */
class RedissonClientTest {
    /** The lock's lease without an explicit one (Redisson's default is 30 s): the watchdog renews it. */
    private static final Duration WATCHDOG = Duration.ofSeconds(1);

    private static KvsNode kvs;

    @BeforeAll
    static void start() {
        kvs = KvsNodes.lone();
    }

    @AfterAll
    static void stop() {
        kvs.close();
    }

    /** Runs {@code body} with a Redisson client of {@code config}, shut down after. */
    static void withRedisson(Config config, Consumer<RedissonClient> body) {
        RedissonClient redisson = Redisson.create(config);
        try {
            body.accept(redisson);
        } finally {
            redisson.shutdown();
        }
    }

    /** Redisson's defaults, on one node. */
    static Config single(KvsNode node) {
        Config config = new Config();
        config.useSingleServer().setAddress(KvsNodes.uri(node));
        return config;
    }

    /** Bucket, counter and map operations under {@code p}, asserting each reply. */
    private static void bucketsCountersAndMaps(RedissonClient redisson, String p) {
        RBucket<String> bucket = redisson.getBucket(p + "bucket");
        bucket.set("one");
        assertThat(bucket.get()).isEqualTo("one");
        assertThat(bucket.compareAndSet("nope", "two")).isFalse();
        assertThat(bucket.compareAndSet("one", "two")).isTrue();
        assertThat(bucket.get()).isEqualTo("two");
        assertThat(bucket.expire(Duration.ofSeconds(100))).isTrue();
        assertThat(bucket.remainTimeToLive()).isBetween(1L, 100_000L);
        assertThat(bucket.getAndDelete()).isEqualTo("two");
        assertThat(bucket.isExists()).isFalse();
        assertThat(bucket.getAndDelete()).isNull();
        assertThat(bucket.compareAndSet(null, "three")).isTrue();
        assertThat(bucket.get()).isEqualTo("three");

        RAtomicLong counter = redisson.getAtomicLong(p + "counter");
        assertThat(counter.incrementAndGet()).isEqualTo(1);
        assertThat(counter.addAndGet(41)).isEqualTo(42);
        assertThat(counter.compareAndSet(42, 50)).isTrue();
        assertThat(counter.compareAndSet(42, 60)).isFalse();
        assertThat(counter.getAndSet(7)).isEqualTo(50);
        assertThat(counter.get()).isEqualTo(7);

        RMap<String, String> map = redisson.getMap(p + "map");
        assertThat(map.put("a", "1")).isNull();
        assertThat(map.put("a", "2")).isEqualTo("1");
        assertThat(map.putIfAbsent("b", "3")).isNull();
        assertThat(map.get("a")).isEqualTo("2");
        assertThat(map.get("missing")).isNull();
        assertThat(map.readAllMap()).containsOnly(java.util.Map.entry("a", "2"), java.util.Map.entry("b", "3"));
        assertThat(map.remove("b")).isEqualTo("3");
        assertThat(map.size()).isEqualTo(1);
    }

    @Test
    void bucketsCountersAndMapsWorkWithItsDefaults() {
        withRedisson(single(kvs), redisson -> bucketsCountersAndMaps(redisson, "defaults:"));
    }

    @Test
    void anAtomicBatchRunsAsOneTransaction() {
        withRedisson(single(kvs), redisson -> {
            RBatch batch = redisson.createBatch(
                    BatchOptions.defaults().executionMode(BatchOptions.ExecutionMode.IN_MEMORY_ATOMIC));
            batch.<String>getBucket("batch:bucket").setAsync("v");
            batch.getAtomicLong("batch:counter").incrementAndGetAsync();
            batch.<String, String>getMap("batch:map").fastPutAsync("f", "v");
            batch.<String>getBucket("batch:bucket").getAsync();
            BatchResult<?> result = batch.execute();
            List<?> responses = result.getResponses();
            assertThat(responses).hasSize(4);
            assertThat(responses.get(1)).isEqualTo(1L);
            assertThat(responses.get(2)).isEqualTo(true);
            assertThat(responses.get(3)).isEqualTo("v");
            assertThat(redisson.<String, String>getMap("batch:map").get("f")).isEqualTo("v");
        });
    }

    @Test
    void aTopicDeliversWhatIsPublished() {
        withRedisson(single(kvs), redisson -> {
            RTopic topic = redisson.getTopic("topic:orders");
            List<String> received = new CopyOnWriteArrayList<>();
            topic.addListener(String.class, (channel, message) -> received.add(channel + "=" + message));
            assertThat(topic.countSubscribers()).isEqualTo(1);
            assertThat(topic.publish("o-1")).isEqualTo(1);
            assertThat(topic.publish("o-2")).isEqualTo(1);
            await("both messages arrive").atMost(Duration.ofSeconds(10)).until(() -> received.size() >= 2);
            assertThat(received).containsExactly("topic:orders=o-1", "topic:orders=o-2");
        });
    }

    @Test
    void aLockIsRenewedByItsWatchdogAndHandedOnAtUnlock() {
        Config config = single(kvs);
        config.setLockWatchdogTimeout(WATCHDOG.toMillis());
        withRedisson(config, redisson -> {
            RLock lock = redisson.getLock("lock:a");
            lock.lock();
            assertThat(lock.remainTimeToLive()).isBetween(1L, WATCHDOG.toMillis());
            await("the lock stays held past its lease, renewed by the watchdog")
                    .during(WATCHDOG.multipliedBy(3))
                    .atMost(WATCHDOG.multipliedBy(4))
                    .until(() -> lock.isLocked() && lock.remainTimeToLive() > 0);

            CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
                RLock same = redisson.getLock("lock:a");
                try {
                    if (same.tryLock(0, TimeUnit.SECONDS)) throw new AssertionError("a held lock was taken");
                    boolean got = same.tryLock(10, TimeUnit.SECONDS); // waits for the unlock's message
                    same.unlock();
                    return got;
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            await("the other thread waits")
                    .atMost(Duration.ofSeconds(10))
                    .until(() ->
                            redisson.getTopic("redisson_lock__channel:{lock:a}").countSubscribers() > 0);
            lock.unlock();
            assertThat(other.join()).as("the waiting thread got the lock").isTrue();
            assertThat(lock.isLocked()).isFalse();
        });
    }

    @Test
    void inReplicatedModeItFollowsAFailoverToThePromotedBackup() throws Exception {
        try (TwoDc dc = KvsNodes.pair()) {
            Config config = new Config();
            config.useReplicatedServers()
                    .addNodeAddress(KvsNodes.uri(dc.primary()), KvsNodes.uri(dc.backup()))
                    // not the default (SLAVE): a kvs backup serves reads only after READONLY, which
                    // Redisson's replicated mode does not send; its reads would get NOTPRIMARY
                    .setReadMode(ReadMode.MASTER);
            withRedisson(config, redisson -> {
                bucketsCountersAndMaps(redisson, "before:");
                redisson.<String>getBucket("before:last").set("1");
                KvsNodes.awaitOnBackup(dc, "before:counter", "7");
                try {
                    KvsNodes.failOver(dc);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                assertThat(redisson.<String>getBucket("before:bucket").get()).isEqualTo("three");
                assertThat(redisson.getAtomicLong("before:counter").incrementAndGet())
                        .isEqualTo(8);
                assertThat(redisson.<String, String>getMap("before:map").get("a"))
                        .isEqualTo("2");
                bucketsCountersAndMaps(redisson, "after:");
            });
        }
    }
}
