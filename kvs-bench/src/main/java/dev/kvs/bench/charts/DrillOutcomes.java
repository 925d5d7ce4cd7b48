package dev.kvs.bench.charts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What became of every acknowledged write per mode in a drill's JSON ({@code kvs drill --json}): the
 * paper's Fig. 4.
 *
 * @param title what ran (disaster, value size, link), for the chart's title
 * @param modes one entry per mode, in the order run
 */
public record DrillOutcomes(String title, List<Mode> modes) {
    /**
     * One mode's acknowledged writes.
     *
     * @param mode the replication mode
     * @param acked acknowledged writes
     * @param complete served after the failover with the acknowledged value
     * @param errorDetect fenced ({@code -UNFINISHED}/{@code -LOST}): the loss is known
     * @param dataLoss missing or different, undetected
     */
    public record Mode(String mode, long acked, long complete, long errorDetect, long dataLoss) {
        /** {@code count} as a percentage of the acknowledged writes (0 if none were). */
        public double percent(long count) {
            return acked == 0 ? 0 : 100.0 * count / acked;
        }
    }

    public DrillOutcomes {
        modes = List.copyOf(modes);
    }

    /** Reads {@code file}. */
    public static DrillOutcomes read(Path file) {
        try {
            return of(new ObjectMapper().readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read drill results " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Extracts the outcomes from a drill report.
     *
     * @throws IllegalArgumentException if it has no {@code modes}
     */
    public static DrillOutcomes of(JsonNode report) {
        JsonNode modes = report.path("modes");
        if (!modes.isArray() || modes.isEmpty()) {
            throw new IllegalArgumentException("not a drill report: no \"modes\" array");
        }
        List<Mode> out = new ArrayList<>();
        for (JsonNode m : modes) {
            out.add(new Mode(
                    m.path("mode").asText(),
                    count(m, "acked"),
                    count(m, "complete"),
                    count(m, "errorDetect"),
                    count(m, "dataLoss")));
        }
        return new DrillOutcomes(title(report), out);
    }

    private static long count(JsonNode mode, String field) {
        JsonNode n = mode.path(field);
        if (!n.canConvertToLong()) {
            throw new IllegalArgumentException("drill mode " + mode.path("mode") + " has no count " + field);
        }
        return n.asLong();
    }

    private static String title(JsonNode r) {
        StringBuilder b = new StringBuilder("Fig. 4: acknowledged writes after ");
        b.append(r.path("disaster").asText("a disaster"));
        if (r.path("valueSize").canConvertToLong()) {
            b.append(", ")
                    .append(JmhLatencies.size(r.path("valueSize").asLong()))
                    .append(" values");
        }
        if (r.path("delayMs").isNumber()) {
            b.append(String.format(
                    Locale.ROOT, ", %s ms one way", trim(r.path("delayMs").asDouble())));
        }
        return b.toString();
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
