package dev.kvs.bench.latency;

import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.server.cli.KvsVersionProvider;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kvs bench resync}: a backup restarted on its data gets only what changed while it was away.
 * See {@link Resync} and {@link ResyncReport#verdict}.
 */
@Command(
        name = "resync",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "A backup restarted on its data gets only what changed: incremental vs full resync.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup (with a data directory in the run directory) and dc-main as separate JVMs"
                    + " (-Xmx --node-heap) on loopback, joined by a WAN link emulator in this process, both in"
                    + " async mode, each store sized for the keys. Writes --keys keys of --value-size bytes"
                    + " (pipelined) and waits until the backup has them all. Incremental: stops the backup,"
                    + " rewrites --changed-percent of the keys on the primary, starts the backup on its data."
                    + " Full: stops the backup, empties its data directory, starts it. For each it measures the"
                    + " time from the backup's start until the primary logs the resync acknowledged and no value"
                    + " lags, and the value bytes the primary shipped since the backup stopped; then it reads"
                    + " every key back from the backup (KVS.PEEK) and compares DBSIZE on both nodes.",
            "",
            "PASS when the incremental resync's value bytes shipped are at most 5%% of the full one's, and"
                    + " after each resync, within --timeout, the backup holds every key with its last value and"
                    + " no other."
        },
        optionListHeading = "%nOptions:%n")
public final class ResyncCommand implements Callable<Integer> {
    /** The most keys: the stores are sized for them, and the key listing is held on the primary's heap. */
    static final int MAX_KEYS = 20_000_000;

    @Option(names = "--keys", paramLabel = "N", description = "Keys written (default: 1000000)")
    private int keys = 1_000_000;

    @Option(
            names = "--value-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Bytes per value, 16B..1MiB (default: 1KiB)")
    private long valueSize = 1024;

    @Option(
            names = "--changed-percent",
            paramLabel = "P",
            description = "Share of the keys rewritten while the backup is away, in percent (default: 1)")
    private double changedPercent = 1;

    @Mixin
    private final LinkOptions linkOptions = LinkOptions.withRateOrUnlimited(0, 0);

    @Option(
            names = "--timeout",
            paramLabel = "TIME",
            converter = BenchOptions.SecondsConverter.class,
            description = "How long each resync may take to converge: 90s, 10m (default: 10m)")
    private double timeout = 600;

    @Option(
            names = "--node-heap",
            paramLabel = "SIZE",
            description = "The nodes' -Xmx, e.g. 1g (default: ${DEFAULT-VALUE})")
    private String nodeHeap = "1g";

    @Mixin
    private RunOptions run;

    @Override
    public Integer call() throws InterruptedException {
        return run.run(this::benchmark);
    }

    /** The benchmark the options describe, checked. */
    Resync benchmark() {
        LinkSettings link = linkOptions.settings();
        return new Resync(settings(link), link);
    }

    /** The settings, checked; the stores sized for the keys. */
    ResyncReport.Settings settings(LinkSettings link) {
        if (keys < 100 || keys > MAX_KEYS)
            throw new IllegalArgumentException("--keys is not in 100..20000000: " + keys);
        if (valueSize < ResyncKeys.MIN_VALUE_SIZE || valueSize > 1 << 20) {
            throw new IllegalArgumentException("--value-size is not in 16B..1MiB: " + valueSize);
        }
        int changed = (int) Math.round(keys * changedPercent / 100);
        if (!(changedPercent > 0 && changedPercent <= 100) || changed < 1) {
            throw new IllegalArgumentException(
                    "--changed-percent is not above 0 (at least one key) and at most 100: " + changedPercent);
        }
        if (!(timeout >= 10 && timeout <= 24 * 3600)) {
            throw new IllegalArgumentException("--timeout is not in 10s..24h: " + timeout + " s");
        }
        if (!nodeHeap.matches("\\d+[kKmMgG]?")) {
            throw new IllegalArgumentException("--node-heap is not a -Xmx size like 1g: " + nodeHeap);
        }
        return new ResyncReport.Settings(
                keys,
                (int) valueSize,
                changedPercent,
                changed,
                link.delayMs(),
                link.bandwidthMbit(),
                run.flowControl(),
                nodeHeap,
                maxEntries(keys),
                maxBytes(keys, valueSize),
                timeout);
    }

    /** Room for every key and a fifth more, at least 10,000 entries. */
    static long maxEntries(long keys) {
        return Math.max(10_000, keys + keys / 5);
    }

    /** Twice the keys' values and 64 bytes each for the key and the record, at least 64 MiB. */
    static long maxBytes(long keys, long valueSize) {
        return Math.max(64L << 20, 2 * keys * (valueSize + 64));
    }
}
