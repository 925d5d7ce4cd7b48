package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Seeded random histories of scripts ({@code EVAL} and {@code FCALL}) beside plain writes, over an emulated
 * WAN slow enough that a script's large value is still on the wire when the link is cut and the backup
 * promoted at a random point: on the new primary every acknowledged script is complete or fenced as a
 * whole (each key it was the last to write answers its value or {@code -UNFINISHED}, all of them the same
 * way), and no key answers an older value than its last acknowledged write. Each history prints its seed;
 * {@code -Dkvs.seed=N} replays one.
 */
class ScriptUnitFailoverRandomTest {
    private static final String PAD = "x".repeat(60_000); // 0.24 s at 2 Mbit/s
    private static final int KEYS = 8;
    private static final String WRITE_ALL =
            "for i, k in ipairs(KEYS) do redis.call('SET', k, ARGV[i]) end return #KEYS";
    private static final String LIBRARY = "#!lua name=units\nredis.register_function('write_all',"
            + " function(keys, args) for i, k in ipairs(keys) do redis.call('SET', k, args[i]) end return #keys end)";

    static Stream<Long> seeds() {
        Long fixed = Long.getLong("kvs.seed");
        if (fixed != null) return Stream.of(fixed);
        long base = System.nanoTime();
        return LongStream.range(0, 3).mapToObj(i -> base + i * 7919);
    }

    /** One acknowledged write: which step, and the value it left at each of its keys. */
    private record Write(int step, boolean script, Map<String, String> values) {}

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyAcknowledgedScriptIsCompleteOrFencedAsAWholeAfterAFailover(long seed) throws Exception {
        System.out.println("ScriptUnitFailoverRandomTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        int steps = 6 + random.nextInt(20);
        int failoverAfter = 1 + random.nextInt(steps);
        try (TwoDc dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(5), 2_000_000)
                .replication(TwoDc.replication().build())
                .failover(new FailoverConfig(FailoverConfig.ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO))
                .start()) {
            try (Jedis primary = new Jedis(TwoDc.HOST, dc.primary().port());
                    Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
                primary.set("ready", "1");
                primary.functionLoad(LIBRARY);
                backup.readonly();
                await("the backup serves reads (its first resync done)")
                        .atMost(Duration.ofSeconds(30))
                        .ignoreExceptions()
                        .until(() -> "1".equals(backup.get("ready")));
            }
            Map<String, Write> lastWriter = new HashMap<>();
            List<Write> history = new ArrayList<>();
            try (Jedis primary = new Jedis(TwoDc.HOST, dc.primary().port())) {
                for (int step = 1; step <= failoverAfter; step++) {
                    Write w = random.nextInt(10) < 7 ? script(primary, random, step) : plain(primary, random, step);
                    history.add(w);
                    for (String k : w.values().keySet()) lastWriter.put(k, w);
                }
            }
            dc.link().cut();
            System.out.println("ScriptUnitFailoverRandomTest seed " + seed + ": " + failoverAfter + " writes, then "
                    + dc.promoteBackup(""));
            Map<String, String> seen = new LinkedHashMap<>();
            try (Jedis promoted = new Jedis(TwoDc.HOST, dc.backup().port())) {
                for (String k : lastWriter.keySet()) seen.put(k, read(promoted, k));
            }
            System.out.println("ScriptUnitFailoverRandomTest seed " + seed + ": " + seen);
            for (Map.Entry<String, String> e : seen.entrySet()) {
                String expected = lastWriter.get(e.getKey()).values().get(e.getKey());
                assertThat(e.getValue())
                        .as("seed %d: %s is its last acknowledged write's value or fenced", seed, e.getKey())
                        .isIn(summary(expected), "UNFINISHED");
            }
            for (Write w : history) {
                if (!w.script()) continue;
                List<String> outcomes = new ArrayList<>();
                for (String k : w.values().keySet())
                    if (lastWriter.get(k) == w) outcomes.add(seen.get(k).equals("UNFINISHED") ? "fenced" : "complete");
                assertThat(outcomes.stream().distinct().count())
                        .as("seed %d: script of step %d is complete or fenced as a whole: %s", seed, w.step(), outcomes)
                        .isLessThanOrEqualTo(1);
            }
        }
    }

    /** A script (EVAL or FCALL, as the dice say) writing 2 to 4 distinct keys, one perhaps large. */
    private static Write script(Jedis primary, Random random, int step) {
        int n = 2 + random.nextInt(3);
        List<String> keys = new ArrayList<>();
        while (keys.size() < n) {
            String k = "k" + random.nextInt(KEYS);
            if (!keys.contains(k)) keys.add(k);
        }
        Map<String, String> values = new LinkedHashMap<>();
        List<String> args = new ArrayList<>();
        int large = random.nextInt(2) == 0 ? random.nextInt(n) : -1;
        for (int i = 0; i < n; i++) {
            String v = step + ":" + keys.get(i) + (i == large ? ":" + PAD : "");
            values.put(keys.get(i), v);
            args.add(v);
        }
        Object reply =
                random.nextBoolean() ? primary.eval(WRITE_ALL, keys, args) : primary.fcall("write_all", keys, args);
        assertThat(reply).isEqualTo((long) n);
        return new Write(step, true, values);
    }

    private static Write plain(Jedis primary, Random random, int step) {
        String k = "k" + random.nextInt(KEYS);
        String v = step + ":" + k;
        assertThat(primary.set(k, v)).isEqualTo("OK");
        return new Write(step, false, Map.of(k, v));
    }

    /** The key's value on the promoted node, shortened, or UNFINISHED if it is fenced. */
    private static String read(Jedis promoted, String key) {
        try {
            return summary(promoted.get(key));
        } catch (JedisDataException e) {
            assertThat(e.getMessage()).startsWith("UNFINISHED ");
            return "UNFINISHED";
        }
    }

    private static String summary(String value) {
        if (value == null) return "nil";
        return value.length() > 40
                ? value.substring(0, 40) + "...(" + value.getBytes(StandardCharsets.UTF_8).length + ")"
                : value;
    }
}
