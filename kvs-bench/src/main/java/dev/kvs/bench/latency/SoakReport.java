package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * What {@code kvs bench soak} measured, as printed and as written by {@code --json}, and its verdict
 * ({@link #verdict}): whether the nodes' heap, file descriptors and threads stayed flat and no
 * acknowledged write was lost.
 *
 * @param benchmark {@code soak}
 * @param settings what ran
 * @param samples the nodes' figures, one sample every {@code sampleSeconds}
 * @param minutes small SETs per minute of the run
 * @param writes what the load did
 * @param primaryCheck every written key read back from the primary at the end
 * @param backupCheck the same from the backup, after it caught up
 * @param verdict the bounds
 * @param provenance where and on what it ran
 */
record SoakReport(
        String benchmark,
        Settings settings,
        List<Sample> samples,
        List<Minute> minutes,
        Writes writes,
        SoakLoad.Check primaryCheck,
        SoakLoad.Check backupCheck,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** Heap after GC: the last third's minimum may exceed the first third's by this share... */
    static final double HEAP_GROWTH = 0.25;
    /** ... plus this many bytes. */
    static final long HEAP_SLACK_BYTES = 32L << 20;
    /** Open file descriptors: the last third's median may exceed the first third's by this share... */
    static final double FD_GROWTH = 0.10;
    /** ... plus this many. */
    static final long FD_SLACK = 16;
    /** Threads: the last third's median may exceed the first third's by this many. */
    static final long THREAD_SLACK = 8;
    /** Small SETs acknowledged in each whole minute of the run: more than one. */
    static final int MIN_SETS_PER_MINUTE = 2;

    /**
     * What ran.
     *
     * @param durationSeconds how long the load ran
     * @param sampleSeconds time between two samples
     * @param delayMs one-way WAN delay
     * @param bandwidthMbit WAN bandwidth each way (0: unlimited)
     * @param mode the clients' replication mode
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @param smallWriters writers of small values
     * @param smallSize bytes per small value
     * @param largeWriters writers of large values
     * @param largeSize bytes per large value
     * @param reconnectEvery commands per connection
     * @param cutEverySeconds time between two link cuts (0: none)
     * @param cutSeconds how long a cut lasts
     * @param nodeHeap the nodes' {@code -Xmx}
     */
    record Settings(
            double durationSeconds,
            double sampleSeconds,
            double delayMs,
            double bandwidthMbit,
            String mode,
            String flowControl,
            int smallWriters,
            long smallSize,
            int largeWriters,
            long largeSize,
            int reconnectEvery,
            double cutEverySeconds,
            double cutSeconds,
            String nodeHeap) {}

    /**
     * One node's figures at one moment; -1 where a figure could not be read.
     *
     * @param heapUsedBytes heap in use ({@code GET /status})
     * @param heapAfterGcBytes heap in use after the node's most recent GC
     * @param rssBytes resident memory ({@code /proc})
     * @param fds open file descriptors
     * @param threads threads
     * @param connections client connections open
     */
    record Node(long heapUsedBytes, long heapAfterGcBytes, long rssBytes, long fds, long threads, long connections) {
        static final Node UNKNOWN = new Node(-1, -1, -1, -1, -1, -1);
    }

    /**
     * One sample.
     *
     * @param seconds since the load started
     * @param linkCut whether the link was cut then
     * @param primary the primary's figures
     * @param backup the backup's figures
     * @param unackedKeys the primary's key log: key packets the backup has not acknowledged
     * @param pendingValues values the backup has not acknowledged
     * @param pendingValueBytes their bytes
     */
    record Sample(
            double seconds,
            boolean linkCut,
            Node primary,
            Node backup,
            long unackedKeys,
            long pendingValues,
            long pendingValueBytes) {}

    /** One minute's small SETs: how many were acknowledged, p50, p99, max. */
    record Minute(int minute, int sets, Double p50Ms, Double p99Ms, Double maxMs) {
        static Minute of(int minute, Latencies l) {
            return new Minute(minute, l.count(), l.percentileMs(50), l.percentileMs(99), l.maxMs());
        }
    }

    /**
     * What the load did.
     *
     * @param smallAcked small SETs acknowledged
     * @param largeAcked large SETs acknowledged
     * @param failures commands that failed, by kind
     * @param reads GETs of written keys
     * @param readMismatches GETs that did not return a write at or after the newest acknowledged one
     * @param reconnects connections closed and opened again by the writers
     * @param linkCuts times the replication link was cut (and healed)
     */
    record Writes(
            long smallAcked,
            long largeAcked,
            Map<String, Long> failures,
            long reads,
            long readMismatches,
            long reconnects,
            long linkCuts) {}

    /** Which figure of a node a bound is on. */
    enum Figure {
        HEAP_AFTER_GC("heap after GC", Node::heapAfterGcBytes),
        FDS("open fds", Node::fds),
        THREADS("threads", Node::threads);

        final String label;
        final ToLongFunction<Node> get;

        Figure(String label, ToLongFunction<Node> get) {
            this.label = label;
            this.get = get;
        }
    }

    /**
     * The bounds: per node, the last third's heap after GC (its minimum: the troughs after
     * collections, which a leak raises), open file descriptors and threads (their medians) against the
     * first third's; no acknowledged write lost on either node and no read of an older value; more than
     * one small SET acknowledged in every whole minute of the run (in the first, for a run shorter than
     * two), so that a load which stopped early or failed throughout cannot pass as flat. A figure with
     * fewer than two samples in a third is not met.
     *
     * @param minutes the small SETs acknowledged per minute of the run, in order
     * @param durationSeconds how long the load ran
     */
    static Verdict verdict(
            List<Sample> samples,
            List<Minute> minutes,
            double durationSeconds,
            Writes writes,
            SoakLoad.Check primary,
            SoakLoad.Check backup) {
        List<Verdict.Check> checks = new ArrayList<>();
        for (boolean isPrimary : new boolean[] {true, false}) {
            String who = isPrimary ? "primary" : "backup";
            for (Figure f : Figure.values()) {
                long[] first = thirdValues(samples, isPrimary, f, 0);
                long[] last = thirdValues(samples, isPrimary, f, 2);
                Double measured = null;
                Double limit = null;
                String bound;
                String unit;
                switch (f) {
                    case HEAP_AFTER_GC -> {
                        bound = who + " heap after GC: last third's min <= first third's min + 25% + 32 MiB";
                        unit = "MiB";
                        if (first.length >= 2 && last.length >= 2) {
                            measured = mib(min(last));
                            limit = mib(min(first) * (1 + HEAP_GROWTH) + HEAP_SLACK_BYTES);
                        }
                    }
                    case FDS -> {
                        bound = who + " open fds: last third's median <= first third's median + 10% + 16";
                        unit = "";
                        if (first.length >= 2 && last.length >= 2) {
                            measured = (double) median(last);
                            limit = Math.floor(median(first) * (1 + FD_GROWTH) + FD_SLACK);
                        }
                    }
                    default -> {
                        bound = who + " threads: last third's median <= first third's median + 8";
                        unit = "";
                        if (first.length >= 2 && last.length >= 2) {
                            measured = (double) median(last);
                            limit = (double) (median(first) + THREAD_SLACK);
                        }
                    }
                }
                checks.add(Verdict.Check.atMost(bound, measured, limit, unit));
            }
        }
        checks.add(Verdict.Check.atMost(
                "acknowledged writes lost on the primary = 0",
                primary == null ? null : (double) primary.lost(),
                0.0,
                ""));
        checks.add(Verdict.Check.atMost(
                "acknowledged writes lost on the backup = 0", backup == null ? null : (double) backup.lost(), 0.0, ""));
        checks.add(Verdict.Check.atMost(
                "reads of an older value than acknowledged = 0", (double) writes.readMismatches(), 0.0, ""));
        int wholeMinutes = Math.max(1, (int) (durationSeconds / 60));
        int fewest = Integer.MAX_VALUE;
        for (int m = 0; m < wholeMinutes; m++) {
            fewest = Math.min(fewest, m < minutes.size() ? minutes.get(m).sets() : 0);
        }
        checks.add(Verdict.Check.atLeast(
                "small SETs acknowledged in each minute " + (wholeMinutes == 1 ? "1" : "1.." + wholeMinutes) + " >= "
                        + MIN_SETS_PER_MINUTE,
                (double) fewest,
                (double) MIN_SETS_PER_MINUTE,
                ""));
        return Verdict.of(checks);
    }

    /**
     * The known values of figure {@code f} of one node in third {@code third} (0, 1, 2) of the run,
     * the thirds cut by the time of the last sample.
     */
    static long[] thirdValues(List<Sample> samples, boolean primary, Figure f, int third) {
        if (samples.isEmpty()) return new long[0];
        double end = samples.get(samples.size() - 1).seconds();
        return samples.stream()
                .filter(s -> Math.min(2, (int) (s.seconds() * 3 / end)) == third)
                .mapToLong(s -> f.get.applyAsLong(primary ? s.primary() : s.backup()))
                .filter(v -> v >= 0)
                .toArray();
    }

    static long median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        return v[(v.length - 1) / 2];
    }

    private static long min(long[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static double mib(double bytes) {
        return Math.round(bytes / (1 << 20) * 10) / 10.0;
    }

    @Override
    public String render() {
        StringBuilder b = new StringBuilder();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"minute", "SETs ok", "p50 ms", "p99 ms", "max ms"});
        for (Minute m : minutes) {
            rows.add(new String[] {
                Integer.toString(m.minute() + 1),
                String.format(Locale.ROOT, "%,d", m.sets()),
                Report.ms(m.p50Ms()),
                Report.ms(m.p99Ms()),
                Report.ms(m.maxMs())
            });
        }
        b.append("small SETs (").append(Report.bytes(settings.smallSize())).append(") per minute\n");
        b.append(Report.columns(rows)).append('\n');

        rows = new ArrayList<>();
        rows.add(new String[] {
            "t s",
            "cut",
            "P heap/afterGC MiB",
            "P rss MiB",
            "P fds",
            "P thr",
            "P conns",
            "B heap/afterGC MiB",
            "B rss MiB",
            "B fds",
            "B thr",
            "key log",
            "pending values"
        });
        int every = Math.max(1, (int) Math.round(30 / settings.sampleSeconds()));
        for (int i = 0; i < samples.size(); i++) {
            if (i % every != 0 && i != samples.size() - 1) continue;
            Sample s = samples.get(i);
            rows.add(new String[] {
                String.format(Locale.ROOT, "%.0f", s.seconds()),
                s.linkCut() ? "cut" : "",
                heap(s.primary()),
                mibText(s.primary().rssBytes()),
                count(s.primary().fds()),
                count(s.primary().threads()),
                count(s.primary().connections()),
                heap(s.backup()),
                mibText(s.backup().rssBytes()),
                count(s.backup().fds()),
                count(s.backup().threads()),
                count(s.unackedKeys()),
                count(s.pendingValues())
            });
        }
        b.append("samples (every ")
                .append(every * settings.sampleSeconds())
                .append(" s shown of every ")
                .append(settings.sampleSeconds())
                .append(" s; P primary, B backup; --json has all)\n");
        b.append(Report.columns(rows)).append('\n');

        b.append(String.format(
                Locale.ROOT,
                "writes: %,d small and %,d large SETs acknowledged; failed %s; %,d GETs checked;"
                        + " %,d reconnects; %,d link cuts%n",
                writes.smallAcked(),
                writes.largeAcked(),
                writes.failures().isEmpty() ? "none" : writes.failures().toString(),
                writes.reads(),
                writes.reconnects(),
                writes.linkCuts()));
        b.append(check("primary", primaryCheck)).append(check("backup", backupCheck));
        b.append(verdict.render());
        return b.toString();
    }

    private static String check(String who, SoakLoad.Check c) {
        if (c == null) return "read back from the " + who + ": not done\n";
        return String.format(
                Locale.ROOT,
                "read back from the %s: %,d keys, %,d acknowledged writes lost%s%n",
                who,
                c.keys(),
                c.lost(),
                c.examples().isEmpty() ? "" : " " + c.examples());
    }

    private static String heap(Node n) {
        return mibText(n.heapUsedBytes()) + "/" + mibText(n.heapAfterGcBytes());
    }

    private static String mibText(long bytes) {
        return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.0f", bytes / (double) (1 << 20));
    }

    private static String count(long n) {
        return n < 0 ? "?" : Long.toString(n);
    }
}
