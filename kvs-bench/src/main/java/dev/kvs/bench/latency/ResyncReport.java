package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * What {@code kvs bench resync} measured, as printed and as written by {@code --json}, and its verdict
 * ({@link #verdict}): a backup restarted on its data after a small share of the keys changed gets
 * only what changed, and both resyncs leave the backup holding exactly the primary's keys.
 *
 * @param benchmark {@code resync}
 * @param settings what ran
 * @param load the keys written before the first restart
 * @param incremental the backup restarted on its data directory, after {@code changedKeys} were
 *     rewritten on the primary meanwhile
 * @param full the backup restarted on an empty data directory
 * @param shippedPercent the incremental resync's value bytes shipped, in percent of the full one's;
 *     null if the full one shipped none
 * @param verdict the bounds
 * @param provenance where and on what it ran
 */
record ResyncReport(
        String benchmark,
        Settings settings,
        Load load,
        Phase incremental,
        Phase full,
        Double shippedPercent,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** The most value bytes an incremental resync may ship, in percent of a full resync's. */
    static final double MAX_SHIPPED_PERCENT = 5;

    /**
     * What ran.
     *
     * @param keys keys written
     * @param valueSize bytes per value
     * @param changedPercent share of the keys rewritten while the backup was away, in percent
     * @param changedKeys those keys
     * @param delayMs the link's one-way delay
     * @param bandwidthMbit the link's bandwidth each way (0: unlimited)
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @param nodeHeap the nodes' {@code -Xmx}
     * @param maxEntries both stores' {@code maxEntries}
     * @param maxBytes both stores' {@code maxBytes}
     * @param timeoutSeconds how long each resync may take to converge
     */
    record Settings(
            int keys,
            int valueSize,
            double changedPercent,
            int changedKeys,
            double delayMs,
            double bandwidthMbit,
            String flowControl,
            String nodeHeap,
            long maxEntries,
            long maxBytes,
            double timeoutSeconds) {}

    /**
     * The keys written before the first restart, pipelined, and replicated.
     *
     * @param keys keys written
     * @param valueBytes their value bytes
     * @param seconds from the first SET until the backup had acknowledged every key and value
     */
    record Load(long keys, long valueBytes, double seconds) {}

    /**
     * One restart of the backup and its resync. The byte and value counts are the primary's, from the
     * moment the backup stopped (so a value sent into the stopping link counts too) until it converged.
     *
     * @param changedKeys keys rewritten on the primary while the backup was away
     * @param startupSeconds from starting the backup's JVM until it listened
     * @param secondsToConverge from starting the backup's JVM until the primary logged the resync
     *     acknowledged and no key packet or value was unacknowledged; null if not within the timeout
     * @param resyncs full resyncs the primary started
     * @param keysListed keys the resyncs listed
     * @param valuesShipped values the primary sent (any value: wanted by the resync or pending anyway)
     * @param valueBytesShipped their bytes
     * @param resyncValueBytesShipped value bytes the backup asked for in its answers to the listing
     * @param resyncValueBytesSaved value bytes listed that the backup held already
     * @param linkBytes bytes the link delivered to the backup: key listing, values and frames
     * @param primaryKeys keys the primary holds ({@code DBSIZE})
     * @param backupKeys keys the backup holds ({@code DBSIZE})
     * @param check every key read back from the backup ({@code KVS.PEEK})
     */
    record Phase(
            int changedKeys,
            double startupSeconds,
            Double secondsToConverge,
            long resyncs,
            long keysListed,
            long valuesShipped,
            long valueBytesShipped,
            long resyncValueBytesShipped,
            long resyncValueBytesSaved,
            long linkBytes,
            long primaryKeys,
            long backupKeys,
            ResyncKeys.Check check) {

        /** Keys the backup does not hold as the primary does: missing, unfinished, different, or extra. */
        long differing() {
            return check.missing() + check.unfinished() + check.different() + Math.abs(backupKeys - primaryKeys);
        }
    }

    /** The incremental resync's value bytes shipped in percent of the full one's; null if that is 0. */
    static Double shippedPercent(Phase incremental, Phase full) {
        if (full.valueBytesShipped() <= 0) return null;
        return 100.0 * incremental.valueBytesShipped() / full.valueBytesShipped();
    }

    /**
     * The incremental resync's value bytes shipped at most {@value #MAX_SHIPPED_PERCENT}% of the full
     * resync's; and for each, the resync acknowledged with no value lag within the timeout, and the
     * backup holding every key with the primary's value and no other.
     */
    static Verdict verdict(Phase incremental, Phase full, double timeoutSeconds) {
        List<Verdict.Check> checks = new ArrayList<>();
        checks.add(Verdict.Check.atMost(
                "incremental value bytes shipped <= " + Report.number(MAX_SHIPPED_PERCENT) + "% of the full resync's",
                shippedPercent(incremental, full),
                MAX_SHIPPED_PERCENT,
                "%"));
        for (String name : List.of("incremental", "full")) {
            Phase p = name.equals("incremental") ? incremental : full;
            checks.add(Verdict.Check.atMost(
                    name + ": resync acknowledged and value lag 0 within the timeout",
                    p.secondsToConverge(),
                    timeoutSeconds,
                    "s"));
            checks.add(Verdict.Check.atMost(
                    name + ": keys missing, unfinished, different or extra on the backup = 0",
                    (double) p.differing(),
                    0.0,
                    ""));
        }
        return Verdict.of(checks);
    }

    /** One line saying what runs. */
    static String describe(Settings s) {
        return String.format(
                Locale.ROOT,
                "%,d keys of %s (async); the backup (--data-dir) restarted after %s%% (%,d keys) changed, then"
                        + " restarted empty; link %s ms each way, %s; stores maxEntries %,d, maxBytes %,d; nodes"
                        + " -Xmx%s; flow control %s",
                s.keys(),
                Report.bytes(s.valueSize()),
                Report.number(s.changedPercent()),
                s.changedKeys(),
                Report.number(s.delayMs()),
                s.bandwidthMbit() == 0 ? "unlimited bandwidth" : Report.number(s.bandwidthMbit()) + " Mbit/s",
                s.maxEntries(),
                s.maxBytes(),
                s.nodeHeap(),
                s.flowControl());
    }

    /** The results as text: the load, both resyncs side by side, the ratio, the verdict. */
    @Override
    public String render() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "loaded %,d keys (%,d value bytes) in %.1f s, replicated%n%n",
                load.keys(),
                load.valueBytes(),
                load.seconds()));
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "", "incremental (" + Report.number(settings.changedPercent()) + "% changed)", "full (empty backup)"
        });
        row(rows, "keys changed while away", p -> count(p.changedKeys()));
        row(rows, "JVM start until listening s", p -> seconds(p.startupSeconds()));
        row(rows, "start until converged s", p -> seconds(p.secondsToConverge()));
        row(rows, "resyncs", p -> count(p.resyncs()));
        row(rows, "keys listed", p -> count(p.keysListed()));
        row(rows, "values shipped", p -> count(p.valuesShipped()));
        row(rows, "value bytes shipped", p -> count(p.valueBytesShipped()));
        row(rows, "  asked for by the backup", p -> count(p.resyncValueBytesShipped()));
        row(rows, "  listed, held already (saved)", p -> count(p.resyncValueBytesSaved()));
        row(rows, "bytes over the link", p -> count(p.linkBytes()));
        row(rows, "keys on primary / backup", p -> count(p.primaryKeys()) + " / " + count(p.backupKeys()));
        row(rows, "keys read back from the backup", p -> count(p.check().keys()));
        row(
                rows,
                "  missing / unfinished / different",
                p -> p.check().missing() + " / " + p.check().unfinished() + " / "
                        + p.check().different());
        b.append(Report.columns(rows));
        b.append(String.format(
                Locale.ROOT,
                "%nincremental / full value bytes shipped: %s%n%n",
                shippedPercent == null ? "-" : String.format(Locale.ROOT, "%.2f%%", shippedPercent)));
        b.append(verdict.render());
        return b.toString();
    }

    private void row(List<String[]> rows, String label, Function<Phase, String> cell) {
        rows.add(new String[] {label, cell.apply(incremental), cell.apply(full)});
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String seconds(Double s) {
        return s == null ? "-" : String.format(Locale.ROOT, "%.1f", s);
    }
}
