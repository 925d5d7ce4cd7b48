package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.SlotRange;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;

/**
 * The acceptance for Redis's own cluster clients against one whole 3-shard cluster on this
 * machine ({@link LocalCluster}: node processes, the coordinator in the nodes, a 2 s ZooKeeper session),
 * started once for the class (each start is six JVMs): JedisCluster (5.2.0, which reads {@code CLUSTER
 * SLOTS} and refuses a map with holes) and Lettuce's {@link RedisClusterClient} (6.8, which reads {@code
 * CLUSTER NODES}) with its defaults, then a primary killed under both. The tests run in order, the kill
 * last. {@code CLUSTER KEYSLOT} against a real Redis is {@code ClusterRepliesTest}'s (kvs-server).
 *
 * <p>JedisCluster's retries, chosen so its behaviour after a kill is known: {@code maxAttempts} 2 and a
 * 2 s {@code maxTotalRetriesDuration}. With fewer than 3 attempts Jedis 5 neither sleeps nor refreshes
 * between them: a command whose node refuses the connection is tried twice, then Jedis renews its slot
 * cache (CLUSTER SLOTS from the first node that answers) and throws. So each failed command is one
 * error and one topology refresh, and the error window measures the cluster, not a client back-off.
 * Connect timeout 500 ms (a dead node on loopback refuses at once; this bounds a node that hangs),
 * socket timeout 2 s (a live node answers in ms).
 *
 * <p>Lettuce: kvs speaks RESP2 only; Lettuce's default handshake sends {@code HELLO 3}, kvs answers {@code
 * -NOPROTO}, and Lettuce goes on in RESP2 by itself, so no option is set. Lettuce refreshes its topology
 * only when asked (its periodic and adaptive refreshes are off by default): after the kill the test asks
 * once the map has a new primary, as an application would on its own schedule.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RedisClusterClientsTest {
    private static final Duration SESSION = Duration.ofSeconds(2);
    private static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(500)
            .socketTimeoutMillis(2000)
            .clientName("jedis-cluster-test")
            .build();

    @TempDir
    static Path dir;

    private static ChildProcesses children;
    private static LocalCluster cluster;
    private static RedisClusterClient lettuce;
    private static StatefulRedisClusterConnection<String, String> lettuceConnection;

    @BeforeAll
    static void start() throws InterruptedException {
        children = new ChildProcesses();
        cluster = LocalCluster.start(
                new LocalCluster.Settings(
                        "clients",
                        3,
                        LocalCluster.freeBasePort(3),
                        Duration.ofMillis(1),
                        SESSION,
                        "192m",
                        Duration.ofSeconds(90)),
                dir,
                JavaCommand.current(),
                children);
    }

    @AfterAll
    static void stop() throws Exception {
        if (lettuceConnection != null) lettuceConnection.close();
        if (lettuce != null) lettuce.shutdown();
        if (cluster != null) cluster.close();
        if (children != null) children.close();
    }

    /** Lettuce's connection, made on first use (its topology is read then). */
    private static RedisAdvancedClusterAsyncCommands<String, String> lettuce() {
        if (lettuceConnection == null) {
            List<RedisURI> seeds = new ArrayList<>();
            for (LocalCluster.Node n : cluster.nodes())
                seeds.add(RedisURI.create(n.ports().host(), n.ports().client()));
            lettuce = RedisClusterClient.create(seeds);
            lettuceConnection = lettuce.connect();
        }
        return lettuceConnection.async();
    }

    static JedisCluster jedisCluster(LocalCluster cluster) {
        Set<HostAndPort> seeds = new HashSet<>();
        for (LocalCluster.Node n : cluster.nodes())
            seeds.add(new HostAndPort(n.ports().host(), n.ports().client()));
        return new JedisCluster(seeds, CONFIG, 2, Duration.ofSeconds(2));
    }

    @Test
    @Order(1)
    void everyNodesClusterSlotsCoversAllSlotsAndJedisClusterDoesTenThousandSetGetWithoutError() throws Exception {
        for (LocalCluster.Node n : cluster.nodes()) {
            try (Jedis jedis =
                    new Jedis(new HostAndPort(n.ports().host(), n.ports().client()), CONFIG)) {
                List<SlotRange> ranges = slotRanges(jedis.clusterSlots());
                assertThat(holesAndOverlaps(ranges))
                        .as("%s's CLUSTER SLOTS %s", n.name(), ranges)
                        .isEmpty();
            }
        }
        AtomicInteger errors = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<String> keys = SlotLoad.keyPerSlot();
        int threads = 4;
        try (JedisCluster jc = jedisCluster(cluster)) {
            // 10,000 SET/GET in 4 threads of 2,500 (JedisCluster is thread-safe: a pool per node)
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                Thread worker = new Thread(() -> {
                    for (int i = first; i < 10_000; i += threads) {
                        String key = keys.get(i * 16_384 / 10_000); // a key of its own, spread over all slots
                        String value = "v" + i;
                        String error = null;
                        try {
                            String set = jc.set(key, value);
                            String got = jc.get(key);
                            if (!"OK".equals(set) || !value.equals(got)) error = key + ": SET " + set + ", GET " + got;
                        } catch (RuntimeException e) {
                            error = key + ": " + e;
                        }
                        if (error != null) {
                            errors.incrementAndGet();
                            firstError.compareAndSet(null, error);
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
            for (Thread w : workers) w.join();
            assertThat(jc.getClusterNodes()).as("the nodes JedisCluster knows").hasSize(6);
        }
        assertThat(errors.get())
                .as("errors of 10,000 SET/GET, the first: %s", firstError.get())
                .isZero();
    }

    @Test
    @Order(2)
    void lettuceDiscoversTheTopologyFromClusterNodesAndSetsAndGetsOnEveryShard() throws Exception {
        RedisAdvancedClusterAsyncCommands<String, String> redis = lettuce();
        Partitions topology = lettuce.getPartitions();
        assertThat(LettuceChecks.upstreamPorts(topology))
                .as("Lettuce's upstream nodes and their slots: %s", topology)
                .isEqualTo(LettuceChecks.primaryPorts(cluster, cluster.map()));
        assertThat(LettuceChecks.slotsCovered(topology))
                .as("slots of %s", topology)
                .isEqualTo(HashSlots.SLOTS);
        assertThat(topology.size()).as("nodes in %s", topology).isEqualTo(6);

        LettuceChecks.Errors errors = LettuceChecks.setGetAll(redis, LettuceChecks.keysByShard(cluster.map(), 300));
        assertThat(errors.total()).as("errors of Lettuce's SET/GET: %s", errors).isZero();
    }

    /**
     * {@code kill -9} of shard-0's primary under a JedisCluster load on keys of every slot (4 threads),
     * while Lettuce writes to the other shards until the map names shard-0's new primary: only shard-0
     * sees errors, for at most the session + 5 s; then Lettuce, its topology refreshed once, writes to
     * every shard again.
     */
    @Test
    @Order(3)
    void afterKillOfOnePrimaryOnlyItsShardSeesErrorsAndForAtMostTheSessionPlusFiveSeconds() throws Exception {
        RedisAdvancedClusterAsyncCommands<String, String> redis = lettuce();
        Map<String, List<String>> few = LettuceChecks.keysByShard(cluster.map(), 20);
        Map<String, List<String>> others = Map.of("shard-1", few.get("shard-1"), "shard-2", few.get("shard-2"));
        long epoch = cluster.currentMap().shard("shard-0").orElseThrow().epoch();
        long lettuceOtherErrors = 0;
        LettuceChecks.Errors lastOthers = null;
        long rounds = 0;
        try (JedisCluster jc = jedisCluster(cluster)) {
            SlotLoad load = new SlotLoad(cluster.map());
            long killNanos;
            boolean recovered;
            try (load) {
                load.start(4, (key, value) -> {
                    jc.set(key, value);
                    String got = jc.get(key);
                    if (!value.equals(got))
                        throw new IllegalStateException("GET " + key + " = " + got + ", not " + value);
                });
                assertThat(load.awaitTallies(
                                t -> t.values().stream().allMatch(c -> c.ok() >= 200), Duration.ofSeconds(30)))
                        .as("200 SET/GET per shard before the kill: %s", load.tallies())
                        .isTrue();
                Map<String, SlotLoad.Tally> beforeKill = load.tallies();
                assertThat(beforeKill.values())
                        .as("errors before the kill: %s", beforeKill)
                        .allMatch(t -> t.errors() == 0);
                killNanos = System.nanoTime();
                cluster.nodes().get(0).process().kill(); // shard-0's primary, kill -9
                // Lettuce on the other shards until the map names shard-0's new primary (at most 30 s)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (cluster.currentMap().shard("shard-0").orElseThrow().epoch() == epoch
                        && System.nanoTime() < deadline) {
                    lastOthers = LettuceChecks.setGetAll(redis, others);
                    lettuceOtherErrors += lastOthers.total();
                    rounds++;
                }
                // recovered: shard-0 answered again and stayed error-free for 2 s; at most 45 s after the kill
                recovered = load.awaitTallies(
                        t -> {
                            SlotLoad.Tally s0 = t.get("shard-0");
                            return s0.errors() > 0
                                    && s0.lastOkNanos() > s0.lastErrorNanos()
                                    && System.nanoTime() - s0.lastErrorNanos() > TimeUnit.SECONDS.toNanos(2);
                        },
                        Duration.ofSeconds(45));
            }
            Map<String, SlotLoad.Tally> tallies = load.tallies();
            String report = report(tallies, killNanos);
            System.out.println("RedisClusterClientsTest kill of shard-0's primary: " + report);
            SlotLoad.Tally struck = tallies.get("shard-0");
            assertThat(recovered).as(report).isTrue();
            assertThat(struck.lastOkNanos()).as(report).isGreaterThan(struck.lastErrorNanos());
            assertThat(struck.lastErrorNanos() - killNanos)
                    .as("kill to shard-0's last error, ns: " + report)
                    .isLessThanOrEqualTo(SESSION.plusSeconds(5).toNanos());
            for (String other : List.of("shard-1", "shard-2")) {
                assertThat(tallies.get(other).errors())
                        .as(other + ": " + report)
                        .isZero();
                assertThat(tallies.get(other).lastOkNanos())
                        .as(other + " after the kill: " + report)
                        .isGreaterThan(struck.lastErrorNanos());
            }
        }
        ClusterMap after = cluster.currentMap();
        assertThat(after.shard("shard-0").orElseThrow().epoch())
                .as("shard-0's epoch")
                .isEqualTo(epoch + 1);
        assertThat(lettuceOtherErrors)
                .as(
                        "Lettuce's errors on shard-1 and shard-2 in %d rounds during the failover (the last: %s)",
                        rounds, lastOthers)
                .isZero();

        lettuce.refreshPartitions();
        Partitions refreshed = lettuce.getPartitions();
        assertThat(LettuceChecks.upstreamPorts(refreshed))
                .as("upstream nodes after the refresh: %s", refreshed)
                .isEqualTo(LettuceChecks.primaryPorts(cluster, after));
        LettuceChecks.Errors afterErrors =
                LettuceChecks.setGetAll(redis, LettuceChecks.keysByShard(cluster.map(), 300));
        System.out.printf(
                "RedisClusterClientsTest: Lettuce, %d rounds on the other shards during the failover; after the refresh %s%n",
                rounds, afterErrors);
        assertThat(afterErrors.total())
                .as("Lettuce's errors of SET/GET after the refresh: %s", afterErrors)
                .isZero();
    }

    @Test
    void holesAndOverlapsNamesEachGapAndEachDoubleClaim() {
        assertThat(holesAndOverlaps(List.of(new SlotRange(0, 5460), new SlotRange(5461, 16383))))
                .isEmpty();
        assertThat(holesAndOverlaps(List.of(new SlotRange(10923, 16383), new SlotRange(0, 5460))))
                .containsExactly("hole 5461-10922");
        assertThat(holesAndOverlaps(List.of(new SlotRange(1, 100), new SlotRange(90, 16382))))
                .containsExactly("hole 0-0", "overlap at 90", "hole 16383-16383");
        assertThat(holesAndOverlaps(List.of())).containsExactly("hole 0-16383");
    }

    /** Per shard: successes, errors, kill to first and last error, the last error's text. */
    static String report(Map<String, SlotLoad.Tally> tallies, long killNanos) {
        StringBuilder b = new StringBuilder();
        tallies.forEach((id, t) -> {
            b.append(String.format("%n  %s: %,d ok, %,d errors", id, t.ok(), t.errors()));
            if (t.errors() > 0) {
                b.append(String.format(
                        ", error window %.0f..%.0f ms after the kill (first: %s; last: %s)",
                        (t.firstErrorNanos() - killNanos) / 1e6,
                        (t.lastErrorNanos() - killNanos) / 1e6,
                        t.firstError(),
                        t.lastError()));
            }
        });
        return b.toString();
    }

    /** The slot ranges of a {@code CLUSTER SLOTS} reply, as Jedis returns it. */
    static List<SlotRange> slotRanges(List<Object> reply) {
        List<SlotRange> ranges = new ArrayList<>();
        for (Object entry : reply) {
            List<?> e = (List<?>) entry;
            ranges.add(new SlotRange(((Long) e.get(0)).intValue(), ((Long) e.get(1)).intValue()));
        }
        return ranges;
    }

    /** What is wrong with {@code ranges} as a cover of 0..16383: each hole and overlap, empty if none. */
    static List<String> holesAndOverlaps(List<SlotRange> ranges) {
        TreeMap<Integer, SlotRange> byFirst = new TreeMap<>();
        List<String> wrong = new ArrayList<>();
        for (SlotRange r : ranges) {
            if (byFirst.put(r.first(), r) != null) wrong.add("two ranges start at " + r.first());
        }
        int next = 0;
        for (SlotRange r : byFirst.values()) {
            if (r.first() > next) wrong.add("hole " + next + "-" + (r.first() - 1));
            if (r.first() < next) wrong.add("overlap at " + r.first());
            next = Math.max(next, r.last() + 1);
        }
        if (next < HashSlots.SLOTS) wrong.add("hole " + next + "-" + (HashSlots.SLOTS - 1));
        return wrong;
    }
}
