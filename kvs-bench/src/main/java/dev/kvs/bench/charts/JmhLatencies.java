package dev.kvs.bench.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.bench.jmh.ReplicationLatencyBenchmark;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The medians of the end-to-end benchmarks in a JMH JSON result file ({@code kvs bench jmh --json}), as
 * the series of the paper's Fig. 3: per replication mode (and the Redis baseline), value size to the
 * median latency in milliseconds.
 *
 * @param protection Fig. 3(a), time to consistency protection: {@code
 *     ReplicationLatencyBenchmark.timeToConsistencyProtection} per mode, and {@value #REDIS} from {@code
 *     RedisWaitBenchmark.setThenWait}
 * @param valueOnBackup Fig. 3(b), time until the value is on the backup: {@code
 *     ReplicationLatencyBenchmark.timeToValueOnBackup} per mode, and {@value #REDIS} again ({@code WAIT}
 *     answers once the replica has the value)
 * @param floor the physical floor of a replicated write's time to consistency protection, per value
 *     size: the local write ({@code async}'s median, which waits for nothing remote) plus one round trip
 *     of an identical link ({@code WanLinkBenchmark.roundTrip} at the end-to-end benchmarks' one-way
 *     delay). No protocol that waits for the other site can answer sooner. Empty when the run lacks
 *     either.
 */
public record JmhLatencies(
        Map<String, SortedMap<Long, Double>> protection,
        Map<String, SortedMap<Long, Double>> valueOnBackup,
        SortedMap<Long, Double> floor) {
    /** The series name of the Redis baseline. */
    public static final String REDIS = "Redis SET+WAIT";
    /** The series name of the physical floor. */
    public static final String FLOOR = "floor: local write + link RTT";

    /*
     * Benchmarks are known by class and method, without their package: the result files of runs made
     * before the JMH classes moved into packages mirroring the code they measure (all in
     * dev.kvs.bench.jmh then, as docs/jmh-results.json) chart as those made after.
     */
    static final String REPLICATION = "ReplicationLatencyBenchmark.";
    static final String PROTECTION = REPLICATION + "timeToConsistencyProtection";
    static final String ON_BACKUP = REPLICATION + "timeToValueOnBackup";
    static final String REDIS_WAIT = "RedisWaitBenchmark.setThenWait";
    static final String LINK_ROUND_TRIP = "WanLinkBenchmark.roundTrip";
    /** The one-way delay of the end-to-end benchmarks' link, whose round trip makes the floor. */
    static final long ONE_WAY_DELAY_MICROS = ReplicationLatencyBenchmark.ONE_WAY_DELAY.toNanos() / 1000;
    /** The order of the series in charts and tables: strongest guarantee first. */
    static final List<String> MODE_ORDER = List.of("sync", "id-first", "id-first-after-reply", "async");

    public JmhLatencies {
        protection = Collections.unmodifiableMap(protection);
        valueOnBackup = Collections.unmodifiableMap(valueOnBackup);
        floor = Collections.unmodifiableSortedMap(floor);
    }

    /** Reads {@code file}. */
    public static JmhLatencies read(Path file) {
        try {
            return of(new ObjectMapper().readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read JMH results " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Extracts the series from JMH's JSON (an array of results); other benchmarks are ignored.
     *
     * @throws IllegalArgumentException if the JSON is not JMH's, or a result has no median
     */
    public static JmhLatencies of(JsonNode results) {
        if (!results.isArray())
            throw new IllegalArgumentException("not JMH JSON results: the top level is not an array");
        Map<String, SortedMap<Long, Double>> protection = new TreeMap<>(JmhLatencies::compareSeries);
        Map<String, SortedMap<Long, Double>> onBackup = new TreeMap<>(JmhLatencies::compareSeries);
        Double linkRoundTrip = null;
        for (JsonNode r : results) {
            String benchmark = classAndMethod(r.path("benchmark").asText());
            JsonNode params = r.path("params");
            switch (benchmark) {
                case PROTECTION -> put(protection, params.path("mode").asText(), r);
                case ON_BACKUP -> put(onBackup, params.path("mode").asText(), r);
                case REDIS_WAIT -> {
                    put(protection, REDIS, r);
                    put(onBackup, REDIS, r);
                }
                case LINK_ROUND_TRIP -> {
                    if (params.path("delayMicros").asLong() == ONE_WAY_DELAY_MICROS) linkRoundTrip = medianMillis(r);
                }
                default -> {
                    // another benchmark of the suite
                }
            }
        }
        SortedMap<Long, Double> floor = new TreeMap<>();
        SortedMap<Long, Double> local = protection.get("async");
        if (linkRoundTrip != null && local != null) {
            for (Map.Entry<Long, Double> e : local.entrySet()) floor.put(e.getKey(), e.getValue() + linkRoundTrip);
        }
        return new JmhLatencies(new LinkedHashMap<>(protection), new LinkedHashMap<>(onBackup), floor);
    }

    /** {@code Class.method} of a JMH benchmark name {@code package.Class.method}. */
    static String classAndMethod(String benchmark) {
        int method = benchmark.lastIndexOf('.');
        return benchmark.substring(benchmark.lastIndexOf('.', method - 1) + 1);
    }

    private static void put(Map<String, SortedMap<Long, Double>> series, String name, JsonNode r) {
        if (name.isEmpty()) throw new IllegalArgumentException("a result of " + r.path("benchmark") + " has no mode");
        JsonNode size = r.path("params").path("valueSize");
        if (!size.isTextual() && !size.isNumber()) {
            throw new IllegalArgumentException("a result of " + r.path("benchmark") + " has no valueSize");
        }
        series.computeIfAbsent(name, k -> new TreeMap<>()).put(Long.parseLong(size.asText()), medianMillis(r));
    }

    /** The median of a SampleTime result ({@code scorePercentiles."50.0"}) in milliseconds. */
    static double medianMillis(JsonNode r) {
        JsonNode metric = r.path("primaryMetric");
        JsonNode p50 = metric.path("scorePercentiles").path("50.0");
        if (!p50.isNumber()) {
            throw new IllegalArgumentException(r.path("benchmark").asText() + " " + r.path("params")
                    + " has no median (not a SampleTime result?)");
        }
        return p50.asDouble() * millisPer(metric.path("scoreUnit").asText());
    }

    /** Milliseconds per unit of a JMH score unit such as {@code us/op}. */
    static double millisPer(String unit) {
        return switch (unit) {
            case "ns/op" -> 1e-6;
            case "us/op" -> 1e-3;
            case "ms/op" -> 1.0;
            case "s/op" -> 1e3;
            default -> throw new IllegalArgumentException("not a time per operation: " + unit);
        };
    }

    /** Modes in {@link #MODE_ORDER}, then others by name, then Redis last. */
    static int compareSeries(String a, String b) {
        return Integer.compare(rank(a), rank(b)) != 0 ? Integer.compare(rank(a), rank(b)) : a.compareTo(b);
    }

    private static int rank(String series) {
        if (series.equals(REDIS)) return Integer.MAX_VALUE;
        int i = MODE_ORDER.indexOf(series);
        return i < 0 ? MODE_ORDER.size() : i;
    }

    /** Every value size of either figure, ascending. */
    public List<Long> sizes() {
        TreeSet<Long> sizes = new TreeSet<>();
        protection.values().forEach(s -> sizes.addAll(s.keySet()));
        valueOnBackup.values().forEach(s -> sizes.addAll(s.keySet()));
        return new ArrayList<>(sizes);
    }

    /**
     * The Markdown table of Fig. 3(a)'s medians: one row per value size, a column per series, each kvs
     * mode's ratio to {@value #REDIS} (when the run has it), and, when the run has the link's round trip,
     * the {@link #floor} and id-first's ratio to it.
     */
    public String protectionTable() {
        List<String> series = new ArrayList<>(protection.keySet());
        List<String> modes = series.stream().filter(s -> !s.equals(REDIS)).toList();
        boolean redis = protection.containsKey(REDIS);
        StringBuilder b = new StringBuilder("| value |");
        for (String s : series) b.append(' ').append(s).append(" p50 ms |");
        if (redis) for (String m : modes) b.append(' ').append(m).append(" / Redis |");
        boolean floors = !floor.isEmpty() && protection.containsKey("id-first");
        if (floors) b.append(" floor ms | id-first / floor |");
        b.append("\n|---|");
        b.append("---:|".repeat(series.size() + (redis ? modes.size() : 0) + (floors ? 2 : 0)));
        b.append('\n');
        SortedMap<Long, Double> redisSeries = protection.getOrDefault(REDIS, new TreeMap<>());
        for (long size : sizes()) {
            b.append("| ").append(size(size)).append(" |");
            for (String s : series)
                b.append(' ').append(ms(protection.get(s).get(size))).append(" |");
            if (redis) {
                for (String m : modes) {
                    Double v = protection.get(m).get(size);
                    Double r = redisSeries.get(size);
                    b.append(' ')
                            .append(v == null || r == null ? "-" : String.format(Locale.ROOT, "%.2f", v / r))
                            .append(" |");
                }
            }
            if (floors) {
                Double f = floor.get(size);
                Double v = protection.get("id-first").get(size);
                b.append(' ').append(ms(f)).append(" | ");
                b.append(v == null || f == null ? "-" : String.format(Locale.ROOT, "%.2f", v / f));
                b.append(" |");
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** {@code 100 B}, {@code 100 kB}, {@code 1 MiB}, {@code 10 MiB}: the labels of the paper's sizes. */
    public static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) return (bytes >> 20) + " MiB";
        if (bytes >= 1024 && bytes % 1024 == 0) return (bytes >> 10) + " KiB";
        if (bytes >= 1000 && bytes % 1000 == 0) return bytes / 1000 + " kB";
        return bytes + " B";
    }

    static String ms(Double v) {
        if (v == null) return "-";
        return String.format(Locale.ROOT, v < 10 ? "%.2f" : "%.1f", v);
    }
}
