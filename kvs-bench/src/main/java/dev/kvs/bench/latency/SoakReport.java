package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code kvs bench soak} measured, as printed and as written by {@code --json}, and its verdict
 * ({@link #verdict}): whether the nodes' store, memory, file descriptors and threads stayed flat
 * ({@link SoakTrends}), the store held no more than its keys and its tombstone reserve, and no
 * acknowledged write was lost nor deleted key came back.
 *
 * @param benchmark {@code soak}
 * @param settings what ran
 * @param samples the nodes' figures, one sample every {@code sampleSeconds}
 * @param minutes small SETs per minute of the run
 * @param writes what the load did
 * @param checks the keys read back from both nodes at the end
 * @param trends the slope of each figure of each node after the warm-up
 * @param verdict the bounds
 * @param provenance where and on what it ran
 */
record SoakReport(
        String benchmark,
        Settings settings,
        List<Sample> samples,
        List<Minute> minutes,
        Writes writes,
        Checks checks,
        List<SoakTrends.Trend> trends,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** Small SETs acknowledged in each whole minute of the run: more than one. */
    static final int MIN_SETS_PER_MINUTE = 2;
    /** Deleted and expiring keys the churn must write, in {@code maxEntries}: the store cycled twice. */
    static final int MIN_CHURN_CYCLES = 2;

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
     * @param nodeHeap the nodes' {@code -Xmx} (and {@code -Xms}, the heap touched at start)
     * @param deleteWriters writers of {@code SET}+{@code DEL} pairs on fresh keys
     * @param expireWriters writers of {@code SET .. EX n} on fresh keys, n in 1..10 s
     * @param churnRate fresh keys a second per churn writer
     * @param maxEntries both nodes' {@code store.maxEntries}
     * @param tombstoneReserve the entries beyond it that only tombstones may take
     * @param maxBytes both nodes' {@code store.maxBytes}
     * @param warmUpSeconds samples before this are not judged for trends
     * @param fullGcEverySeconds time between two forced full GCs of both nodes (0: none)
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
            String nodeHeap,
            int deleteWriters,
            int expireWriters,
            int churnRate,
            long maxEntries,
            long tombstoneReserve,
            long maxBytes,
            double warmUpSeconds,
            double fullGcEverySeconds) {}

    /**
     * One node's figures at one moment; -1 where a figure could not be read.
     *
     * @param heapUsedBytes heap in use ({@code GET /status})
     * @param heapAfterGcBytes heap in use after the node's most recent GC
     * @param rssBytes resident memory ({@code /proc})
     * @param fds open file descriptors
     * @param threads threads
     * @param connections client connections open
     * @param entries the store's records, tombstones included
     * @param tombstones of those, tombstones
     * @param keys of those, keys (as {@code DBSIZE})
     * @param offHeapBytes off-heap memory the store reserved
     */
    record Node(
            long heapUsedBytes,
            long heapAfterGcBytes,
            long rssBytes,
            long fds,
            long threads,
            long connections,
            long entries,
            long tombstones,
            long keys,
            long offHeapBytes) {}

    /**
     * One sample.
     *
     * @param seconds since the load started
     * @param linkCut whether the link was cut then
     * @param afterFullGc whether both nodes' full GC, forced, had just ended
     * @param primary the primary's figures
     * @param backup the backup's figures
     * @param unackedKeys the primary's key log: key packets the backup has not acknowledged
     * @param pendingValues values the backup has not acknowledged
     * @param pendingValueBytes their bytes
     * @param oldestPendingValueMillis how long the oldest of them has waited: a value that never lands
     *     (one overwritten faster than it ships, say) shows here, and on the backup as a key unfinished
     *     for as long, its announced writes piling up
     */
    record Sample(
            double seconds,
            boolean linkCut,
            boolean afterFullGc,
            Node primary,
            Node backup,
            long unackedKeys,
            long pendingValues,
            long pendingValueBytes,
            long oldestPendingValueMillis) {}

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
     * @param deleted fresh keys written and deleted, both acknowledged
     * @param expiring fresh keys written with an expiry, acknowledged
     * @param churnFailures the churn's commands that failed, by kind
     */
    record Writes(
            long smallAcked,
            long largeAcked,
            Map<String, Long> failures,
            long reads,
            long readMismatches,
            long reconnects,
            long linkCuts,
            long deleted,
            long expiring,
            Map<String, Long> churnFailures) {}

    /**
     * The keys read back from both nodes at the end, after the backup caught up.
     *
     * @param primary every key the load wrote, from the primary
     * @param backup the same from the backup
     * @param primaryChurn the churn's sampled deleted and expired keys, from the primary
     * @param backupChurn the same from the backup
     */
    record Checks(
            SoakLoad.Check primary, SoakLoad.Check backup, SoakChurn.Check primaryChurn, SoakChurn.Check backupChurn) {}

    /**
     * The bounds: per node, every figure flat after the warm-up ({@link SoakTrends}) and, in every
     * sample, entries beyond its keys at most the tombstone reserve (a store that keeps what was deleted
     * fills with it); no acknowledged write lost on either node, no read of an older value, no sampled
     * deleted or expired key holding a live value again; the churn writing at least {@value
     * #MIN_CHURN_CYCLES} x {@code maxEntries} keys (a run that never cycled the store proves nothing
     * about collecting it); more than one small SET acknowledged in every whole minute of the run (in
     * the first, for a run shorter than two), so that a load which stopped early or failed throughout
     * cannot pass as flat.
     *
     * @param trends {@link SoakTrends#of} the samples
     * @param minutes the small SETs acknowledged per minute of the run, in order
     */
    static Verdict verdict(
            Settings settings,
            List<Sample> samples,
            List<SoakTrends.Trend> trends,
            List<Minute> minutes,
            Writes writes,
            Checks checks) {
        List<Verdict.Check> out = new ArrayList<>();
        for (SoakTrends.Trend t : trends) out.add(t.check());
        for (boolean primary : new boolean[] {true, false}) {
            out.add(Verdict.Check.atMost(
                    (primary ? "primary" : "backup") + " entries - keys <= tombstone reserve, in every sample",
                    slack(samples, primary),
                    (double) settings.tombstoneReserve(),
                    ""));
        }
        out.add(Verdict.Check.atMost("acknowledged writes lost on the primary = 0", lost(checks.primary()), 0.0, ""));
        out.add(Verdict.Check.atMost("acknowledged writes lost on the backup = 0", lost(checks.backup()), 0.0, ""));
        out.add(Verdict.Check.atMost(
                "reads of an older value than acknowledged = 0", (double) writes.readMismatches(), 0.0, ""));
        out.add(Verdict.Check.atMost(
                "deleted or expired keys live again on the primary = 0", cameBack(checks.primaryChurn()), 0.0, ""));
        out.add(Verdict.Check.atMost(
                "deleted or expired keys live again on the backup = 0", cameBack(checks.backupChurn()), 0.0, ""));
        out.add(Verdict.Check.atLeast(
                "deleted and expiring keys written >= " + MIN_CHURN_CYCLES + " x maxEntries",
                (double) (writes.deleted() + writes.expiring()),
                (double) MIN_CHURN_CYCLES * settings.maxEntries(),
                ""));
        int wholeMinutes = Math.max(1, (int) (settings.durationSeconds() / 60));
        int fewest = Integer.MAX_VALUE;
        for (int m = 0; m < wholeMinutes; m++) {
            fewest = Math.min(fewest, m < minutes.size() ? minutes.get(m).sets() : 0);
        }
        out.add(Verdict.Check.atLeast(
                "small SETs acknowledged in each minute " + (wholeMinutes == 1 ? "1" : "1.." + wholeMinutes) + " >= "
                        + MIN_SETS_PER_MINUTE,
                (double) fewest,
                (double) MIN_SETS_PER_MINUTE,
                ""));
        return Verdict.of(out);
    }

    /** The most entries a node held beyond its keys in any sample; null if none was read. */
    static Double slack(List<Sample> samples, boolean primary) {
        return samples.stream()
                .map(s -> primary ? s.primary() : s.backup())
                .filter(n -> n.entries() >= 0 && n.keys() >= 0)
                .mapToLong(n -> n.entries() - n.keys())
                .max()
                .stream()
                .mapToObj(v -> (double) v)
                .findFirst()
                .orElse(null);
    }

    private static Double lost(SoakLoad.Check c) {
        return c == null ? null : (double) c.lost();
    }

    private static Double cameBack(SoakChurn.Check c) {
        return c == null ? null : (double) c.cameBack();
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
            "GC",
            "P entries/tomb",
            "P heap/afterGC MiB",
            "P rss MiB",
            "P fds",
            "B entries/tomb",
            "B heap/afterGC MiB",
            "B rss MiB",
            "B fds",
            "key log",
            "pending values",
            "oldest s"
        });
        int every = Math.max(1, (int) Math.round(30 / settings.sampleSeconds()));
        for (int i = 0; i < samples.size(); i++) {
            if (i % every != 0 && i != samples.size() - 1) continue;
            Sample s = samples.get(i);
            rows.add(new String[] {
                String.format(Locale.ROOT, "%.0f", s.seconds()),
                s.linkCut() ? "cut" : "",
                s.afterFullGc() ? "full" : "",
                store(s.primary()),
                heap(s.primary()),
                mibText(s.primary().rssBytes()),
                count(s.primary().fds()),
                store(s.backup()),
                heap(s.backup()),
                mibText(s.backup().rssBytes()),
                count(s.backup().fds()),
                count(s.unackedKeys()),
                count(s.pendingValues()),
                s.oldestPendingValueMillis() < 0
                        ? "?"
                        : String.format(Locale.ROOT, "%.1f", s.oldestPendingValueMillis() / 1000.0)
            });
        }
        b.append("samples (every ")
                .append(every * settings.sampleSeconds())
                .append(" s shown of every ")
                .append(settings.sampleSeconds())
                .append(
                        " s; P primary, B backup; GC full: right after a forced full GC; key log, pending values and the"
                                + " oldest one's age: the primary's; --json has all)\n");
        b.append(Report.columns(rows)).append('\n');
        b.append(SoakTrends.render(trends, settings)).append('\n');

        b.append(String.format(
                Locale.ROOT,
                "writes: %,d small and %,d large SETs acknowledged; failed %s; %,d GETs checked;"
                        + " %,d reconnects; %,d link cuts%n"
                        + "churn: %,d keys written and deleted, %,d written with an expiry (%.1f x maxEntries);"
                        + " failed %s%n",
                writes.smallAcked(),
                writes.largeAcked(),
                writes.failures().isEmpty() ? "none" : writes.failures().toString(),
                writes.reads(),
                writes.reconnects(),
                writes.linkCuts(),
                writes.deleted(),
                writes.expiring(),
                (writes.deleted() + writes.expiring()) / (double) settings.maxEntries(),
                writes.churnFailures().isEmpty()
                        ? "none"
                        : writes.churnFailures().toString()));
        b.append(check("primary", checks.primary())).append(check("backup", checks.backup()));
        b.append(churnCheck("primary", checks.primaryChurn())).append(churnCheck("backup", checks.backupChurn()));
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

    private static String churnCheck(String who, SoakChurn.Check c) {
        if (c == null) return "churn read back from the " + who + ": not done\n";
        return String.format(
                Locale.ROOT,
                "churn read back from the %s: %,d deleted and %,d expired keys, %,d live again%s%n",
                who,
                c.deleted(),
                c.expired(),
                c.cameBack(),
                c.examples().isEmpty() ? "" : " " + c.examples());
    }

    private static String store(Node n) {
        return count(n.entries()) + "/" + count(n.tombstones());
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
