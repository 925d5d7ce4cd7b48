package dev.kvs.bench.latency;

import java.util.List;
import java.util.Locale;

/**
 * A benchmark's acceptance bounds and whether a run met them.
 *
 * @param pass whether every check is met
 * @param checks each bound with what was measured
 */
record Verdict(boolean pass, List<Check> checks) {
    Verdict {
        checks = List.copyOf(checks);
    }

    static Verdict of(List<Check> checks) {
        return new Verdict(!checks.isEmpty() && checks.stream().allMatch(Check::ok), checks);
    }

    /**
     * One bound.
     *
     * @param bound what must hold, e.g. {@code loaded p50 <= idle p50 + 15 ms}
     * @param measured the measured side, or null if it could not be measured (not met)
     * @param limit the bound's value for this run, or null if it could not be computed (not met)
     * @param unit of both numbers, e.g. {@code ms}, {@code %}, or empty
     * @param ok whether the bound is met
     */
    record Check(String bound, Double measured, Double limit, String unit, boolean ok) {
        /** A check that {@code measured <= limit}; not met if either is null. */
        static Check atMost(String bound, Double measured, Double limit, String unit) {
            return new Check(bound, measured, limit, unit, measured != null && limit != null && measured <= limit);
        }

        /** A check that {@code measured >= limit}; not met if either is null. */
        static Check atLeast(String bound, Double measured, Double limit, String unit) {
            return new Check(bound, measured, limit, unit, measured != null && limit != null && measured >= limit);
        }

        /** {@code met      loaded p50 <= idle p50 + 15 ms: 52.1 ms (limit 63.1 ms)}. */
        String describe() {
            return String.format(
                    Locale.ROOT,
                    "%-8s %s: %s (limit %s)",
                    ok ? "met" : "NOT MET",
                    bound,
                    format(measured),
                    format(limit));
        }

        private String format(Double d) {
            if (d == null) return "none";
            String n;
            if (d == Math.rint(d) && Math.abs(d) < 1e12) n = Long.toString(d.longValue());
            else n = String.format(Locale.ROOT, Math.abs(d) < 10 ? "%.2f" : "%.1f", d);
            if (unit.isEmpty()) return n;
            return unit.equals("%") ? n + "%" : n + " " + unit;
        }
    }

    /**
     * {@code PASS: every bound met} or {@code FAIL: 2 of 4 bounds not met} on the first line, then one
     * line per bound.
     */
    String render() {
        long notMet = checks.stream().filter(c -> !c.ok()).count();
        StringBuilder b = new StringBuilder(
                pass ? "PASS: every bound met" : "FAIL: " + notMet + " of " + checks.size() + " bounds not met");
        b.append('\n');
        for (Check c : checks) b.append("  ").append(c.describe()).append('\n');
        return b.toString();
    }
}
