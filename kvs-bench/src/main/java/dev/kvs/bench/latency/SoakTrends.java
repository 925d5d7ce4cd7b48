package dev.kvs.bench.latency;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * Whether each figure of each node stayed flat over a soak: its least-squares slope over the samples
 * after the warm-up, projected over a day, against a budget for a day's growth.
 *
 * <p>A figure is <b>flat</b> when {@code growth - 2 * error <= budget}, where {@code growth} is the
 * slope times 24 h and {@code error} the slope's standard error times 24 h: the run does not show, at
 * about 95%, that the figure would grow by more than its budget in a day. The error is what the run
 * cannot resolve; it is printed beside each slope, so a reader sees how small a growth the run could
 * have caught (a long run resolves far less than a short one). A store filling with tombstones grows
 * by thousands of entries a minute, far beyond it.
 *
 * <p>The samples judged are those after the warm-up taken while the link was up and more than {@link
 * #RECOVERY_SECONDS} after a cut (the writers wait through a cut while their keys expire: a dip in
 * both stores that belongs to the cut, not to a trend). Heap after GC is judged on the samples taken
 * right after a forced full GC, if there are {@link #MIN_FULL_GC_SAMPLES}: after a young collection
 * the heap still holds the old garbage that accumulates until the next mixed collection. Too few
 * samples is not flat.
 *
 * <p>The budgets, a day's growth: entries (tombstones included) a tenth of {@code maxEntries} (the
 * store would take ten days to fill); tombstones the tombstone reserve; the store's off-heap bytes (its
 * reservation, which grows only by extra tiers) a tenth of their mean; heap after GC a quarter of
 * {@code -Xmx}; RSS half its mean (the heap is touched at start and so is the store, see {@link
 * SoakPretouch}, but the JIT's code and the C heap still creep for a while after the warm-up); open
 * fds and threads a quarter of their mean plus 16 and 8.
 */
final class SoakTrends {
    /** Samples after the warm-up (with the link up) that a trend needs. */
    static final int MIN_SAMPLES = 10;
    /** Samples right after a forced full GC that heap after GC needs before it is judged on them alone. */
    static final int MIN_FULL_GC_SAMPLES = 4;
    /** How far ahead a slope is projected. */
    static final double HORIZON_HOURS = 24;
    /** Standard errors of the slope a growth may exceed its budget by: about 95%. */
    static final double ERRORS = 2;
    /**
     * Seconds after a cut's last sample that are not judged either: the writers waited through the
     * cut, so the keys that expire in up to 10 s are fewer until they have written that long again.
     */
    static final double RECOVERY_SECONDS = SoakChurn.MAX_EXPIRY + 5;

    private SoakTrends() {}

    /** A figure of a node whose slope is judged, and its budget. */
    enum Figure {
        ENTRIES("entries", "", SoakReport.Node::entries),
        TOMBSTONES("tombstones", "", SoakReport.Node::tombstones),
        OFF_HEAP("off-heap", "MiB", SoakReport.Node::offHeapBytes),
        HEAP_AFTER_GC("heap after GC", "MiB", SoakReport.Node::heapAfterGcBytes),
        RSS("RSS", "MiB", SoakReport.Node::rssBytes),
        FDS("open fds", "", SoakReport.Node::fds),
        THREADS("threads", "", SoakReport.Node::threads);

        final String label;
        /** The unit figures are shown in: {@code MiB} for bytes. */
        final String unit;

        final ToLongFunction<SoakReport.Node> get;

        Figure(String label, String unit, ToLongFunction<SoakReport.Node> get) {
            this.label = label;
            this.unit = unit;
            this.get = get;
        }

        /** A day's growth allowed, in the figure's own unit (bytes for MiB figures). */
        double budget(SoakReport.Settings s, double mean, long heapMaxBytes) {
            return switch (this) {
                case ENTRIES -> s.maxEntries() / 10.0;
                case TOMBSTONES -> s.tombstoneReserve();
                case OFF_HEAP -> mean / 10;
                case HEAP_AFTER_GC -> heapMaxBytes / 4.0;
                case RSS -> mean / 2;
                case FDS -> mean / 4 + 16;
                case THREADS -> mean / 4 + 8;
            };
        }

        /** How the budget is set, as the verdict prints it. */
        String budgetText() {
            return switch (this) {
                case ENTRIES -> "maxEntries / 10";
                case TOMBSTONES -> "tombstone reserve";
                case OFF_HEAP -> "mean / 10";
                case HEAP_AFTER_GC -> "-Xmx / 4";
                case RSS -> "mean / 2";
                case FDS -> "mean / 4 + 16";
                case THREADS -> "mean / 4 + 8";
            };
        }

        /** {@code v} in the unit shown. */
        double shown(double v) {
            return unit.isEmpty() ? v : v / (1 << 20);
        }
    }

    /**
     * A least-squares line through points {@code (t, y)}.
     *
     * @param n points
     * @param mean mean of {@code y}
     * @param slope per unit of {@code t}
     * @param error the slope's standard error (0 for two points)
     */
    record Line(int n, double mean, double slope, double error) {
        /** The line through {@code t} and {@code y}, or null for fewer than two points or a single t. */
        static Line fit(double[] t, double[] y) {
            int n = t.length;
            if (n < 2) return null;
            double mt = 0;
            double my = 0;
            for (int i = 0; i < n; i++) {
                mt += t[i];
                my += y[i];
            }
            mt /= n;
            my /= n;
            double sxx = 0;
            double sxy = 0;
            for (int i = 0; i < n; i++) {
                sxx += (t[i] - mt) * (t[i] - mt);
                sxy += (t[i] - mt) * (y[i] - my);
            }
            if (sxx == 0) return null;
            double slope = sxy / sxx;
            double rss = 0;
            for (int i = 0; i < n; i++) {
                double r = y[i] - my - slope * (t[i] - mt);
                rss += r * r;
            }
            double error = n > 2 ? Math.sqrt(rss / (n - 2) / sxx) : 0;
            return new Line(n, my, slope, error);
        }
    }

    /**
     * One figure of one node.
     *
     * @param node {@code primary} or {@code backup}
     * @param figure what was measured
     * @param samples samples the line went through
     * @param mean their mean, in {@code unit}
     * @param slopePerHour the slope, {@code unit} an hour; null if there were too few samples
     * @param errorPerHour its standard error
     * @param growth24h the slope times 24 h
     * @param budget a day's growth allowed
     * @param unit {@code MiB} or empty
     */
    record Trend(
            String node,
            Figure figure,
            int samples,
            Double mean,
            Double slopePerHour,
            Double errorPerHour,
            Double growth24h,
            Double budget,
            String unit) {

        /** Growth beyond the budget that the run can tell from noise; null if not measured. */
        Double excess() {
            if (growth24h == null || budget == null) return null;
            return growth24h - ERRORS * errorPerHour * HORIZON_HOURS;
        }

        /** The verdict's check: the growth, less its error, at most the budget. */
        Verdict.Check check() {
            return Verdict.Check.atMost(
                    String.format(
                            Locale.ROOT,
                            "%s %s flat: 24 h growth at the slope, less %.0f standard errors, <= %s",
                            node,
                            figure.label,
                            ERRORS,
                            figure.budgetText()),
                    excess() == null ? null : round(excess()),
                    budget == null ? null : round(budget),
                    unit);
        }
    }

    /** Every figure of both nodes, in {@link Figure} order, the primary's first. */
    static List<Trend> of(SoakReport.Settings settings, List<SoakReport.Sample> samples) {
        List<Trend> out = new ArrayList<>();
        for (boolean primary : new boolean[] {true, false}) {
            for (Figure f : Figure.values()) out.add(trend(settings, samples, primary, f));
        }
        return out;
    }

    static Trend trend(SoakReport.Settings settings, List<SoakReport.Sample> samples, boolean primary, Figure f) {
        List<SoakReport.Sample> judged = judged(settings, samples, false);
        if (f == Figure.HEAP_AFTER_GC) {
            List<SoakReport.Sample> afterFullGc = judged(settings, samples, true);
            if (afterFullGc.size() >= MIN_FULL_GC_SAMPLES) judged = afterFullGc;
        }
        List<double[]> points = new ArrayList<>();
        for (SoakReport.Sample s : judged) {
            SoakReport.Node n = primary ? s.primary() : s.backup();
            long v = f.get.applyAsLong(n);
            if (v >= 0) points.add(new double[] {s.seconds() / 3600, v});
        }
        String node = primary ? "primary" : "backup";
        Line line = points.size() >= MIN_SAMPLES || (f == Figure.HEAP_AFTER_GC && points.size() >= MIN_FULL_GC_SAMPLES)
                ? Line.fit(column(points, 0), column(points, 1))
                : null;
        if (line == null) return new Trend(node, f, points.size(), null, null, null, null, null, f.unit);
        double budget = f.budget(settings, line.mean(), heapMaxBytes(settings));
        return new Trend(
                node,
                f,
                line.n(),
                round(f.shown(line.mean())),
                f.shown(line.slope()),
                f.shown(line.error()),
                f.shown(line.slope() * HORIZON_HOURS),
                f.shown(budget),
                f.unit);
    }

    /**
     * The samples after the warm-up with the link up and not within {@link #RECOVERY_SECONDS} of a
     * cut; or, if {@code afterFullGc}, those after the warm-up taken right after a full GC, cut or not
     * (what a full GC leaves is no key that a cut kept from being written).
     */
    static List<SoakReport.Sample> judged(
            SoakReport.Settings settings, List<SoakReport.Sample> samples, boolean afterFullGc) {
        List<SoakReport.Sample> out = new ArrayList<>();
        double lastCut = Double.NEGATIVE_INFINITY;
        for (SoakReport.Sample s : samples) {
            if (s.linkCut()) lastCut = s.seconds();
            if (s.seconds() < settings.warmUpSeconds()) continue;
            if (afterFullGc ? s.afterFullGc() : !s.linkCut() && s.seconds() - lastCut > RECOVERY_SECONDS) out.add(s);
        }
        return out;
    }

    /** {@code -Xmx}: the nodes' heap size in bytes. */
    static long heapMaxBytes(SoakReport.Settings s) {
        String h = s.nodeHeap().toLowerCase(Locale.ROOT);
        char last = h.charAt(h.length() - 1);
        int shift = switch (last) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        return Long.parseLong(shift == 0 ? h : h.substring(0, h.length() - 1)) << shift;
    }

    /** One row per trend: mean, slope an hour with its standard error, a day's growth, the budget. */
    static String render(List<Trend> trends, SoakReport.Settings settings) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"node", "figure", "samples", "mean", "slope /h (± s.e.)", "24 h growth", "budget", "flat"
        });
        for (Trend t : trends) {
            String u = t.unit().isEmpty() ? "" : " " + t.unit();
            rows.add(new String[] {
                t.node(),
                t.figure().label,
                Integer.toString(t.samples()),
                t.mean() == null ? "?" : number(t.mean()) + u,
                t.slopePerHour() == null
                        ? "too few samples"
                        : number(t.slopePerHour()) + " (± " + number(t.errorPerHour()) + ")" + u,
                t.growth24h() == null ? "?" : number(t.growth24h()) + u,
                t.budget() == null ? "?" : number(t.budget()) + u,
                t.check().ok() ? "yes" : "NO"
            });
        }
        return String.format(
                        Locale.ROOT,
                        "trends after the %.0f s warm-up, link up (heap after GC: right after forced full GCs)%n",
                        settings.warmUpSeconds())
                + Report.columns(rows);
    }

    private static String number(double v) {
        return String.format(Locale.ROOT, Math.abs(v) < 10 ? "%.2f" : Math.abs(v) < 1000 ? "%.1f" : "%,.0f", v);
    }

    private static double[] column(List<double[]> points, int i) {
        return points.stream().mapToDouble(p -> p[i]).toArray();
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
