package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.SlotRange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;

/**
 * The acceptance for JedisCluster (5.2.0, which reads {@code CLUSTER SLOTS} and refuses a map
 * with holes) against a whole 3-shard cluster on this machine ({@link LocalCluster}: node processes, the
 * coordinator in the nodes, a 2 s ZooKeeper session). {@code CLUSTER KEYSLOT} against a real Redis is
 * {@code ClusterRepliesTest}'s (kvs-server), not repeated here.
 *
 * <p>JedisCluster's retries, chosen so its behaviour after a kill is known: {@code maxAttempts} 2 and a
 * 2 s {@code maxTotalRetriesDuration}. With fewer than 3 attempts Jedis 5 neither sleeps nor refreshes
 * between them: a command whose node refuses the connection is tried twice, then Jedis renews its slot
 * cache (CLUSTER SLOTS from the first node that answers) and throws. So each failed command is one
 * error and one topology refresh, and the error window measures the cluster, not a client back-off.
 * Connect timeout 500 ms (a dead node on loopback refuses at once; this bounds a node that hangs),
 * socket timeout 2 s (a live node answers in ms).
 */
class JedisClusterTest {
    private static final Duration SESSION = Duration.ofSeconds(2);
    private static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(500)
            .socketTimeoutMillis(2000)
            .clientName("jedis-cluster-test")
            .build();

    static LocalCluster start(Path dir, ChildProcesses children, String name) throws InterruptedException {
        return LocalCluster.start(
                new LocalCluster.Settings(
                        name,
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

    static JedisCluster jedisCluster(LocalCluster cluster) {
        Set<HostAndPort> seeds = new HashSet<>();
        for (LocalCluster.Node n : cluster.nodes())
            seeds.add(new HostAndPort(n.ports().host(), n.ports().client()));
        return new JedisCluster(seeds, CONFIG, 2, Duration.ofSeconds(2));
    }

    @Test
    void everyNodesClusterSlotsCoversAllSlotsAndJedisClusterDoesTenThousandSetGetWithoutError(@TempDir Path dir)
            throws Exception {
        try (ChildProcesses children = new ChildProcesses();
                LocalCluster cluster = start(dir, children, "jedis")) {
            for (LocalCluster.Node n : cluster.nodes()) {
                try (Jedis jedis =
                        new Jedis(new HostAndPort(n.ports().host(), n.ports().client()), CONFIG)) {
                    List<SlotRange> ranges = slotRanges(jedis.clusterSlots());
                    assertThat(holesAndOverlaps(ranges))
                            .as("%s's CLUSTER SLOTS %s", n.name(), ranges)
                            .isEmpty();
                }
            }
            int errors = 0;
            String firstError = null;
            List<String> keys = SlotLoad.keyPerSlot();
            try (JedisCluster jc = jedisCluster(cluster)) {
                for (int i = 0; i < 10_000; i++) {
                    String key = keys.get(i * 16_384 / 10_000 + (i % 2)); // spread over all slots and shards
                    String value = "v" + i;
                    try {
                        String set = jc.set(key, value);
                        String got = jc.get(key);
                        if (!"OK".equals(set) || !value.equals(got)) {
                            errors++;
                            if (firstError == null) firstError = key + ": SET " + set + ", GET " + got;
                        }
                    } catch (RuntimeException e) {
                        errors++;
                        if (firstError == null) firstError = key + ": " + e;
                    }
                }
                assertThat(jc.getClusterNodes())
                        .as("the nodes JedisCluster knows")
                        .hasSize(6);
            }
            assertThat(errors)
                    .as("errors of 10,000 SET/GET, the first: %s", firstError)
                    .isZero();
        }
    }

    @Test
    void afterKillOfOnePrimaryOnlyItsShardSeesErrorsAndForAtMostTheSessionPlusFiveSeconds(@TempDir Path dir)
            throws Exception {
        try (ChildProcesses children = new ChildProcesses();
                LocalCluster cluster = start(dir, children, "jedis-kill");
                JedisCluster jc = jedisCluster(cluster)) {
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
            System.out.println("JedisClusterTest kill of shard-0's primary: " + report);
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
