package dev.kvs.bench.latency;

import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The resync benchmark: what a backup restarted on its data gets, against one restarted empty. A
 * primary and a backup with {@code --data-dir} ({@link ResyncPair}); {@code keys} keys are written and
 * replicated. Then the backup is stopped, a share of the keys is rewritten on the primary, and the
 * backup started again on its data: its full resync lists every key and ships only the values it
 * lacks. Then it is stopped, its data directory emptied, and started again: the full resync ships
 * every value. For each: the time from the backup's start until the resync is acknowledged and no
 * value lags, the value bytes the primary shipped, and every key read back from the backup.
 *
 * @param settings what to run
 * @param link the link between the nodes
 */
record Resync(ResyncReport.Settings settings, LinkSettings link) implements Benchmark {
    /** How long the initial load may take to replicate. */
    static final Duration LOAD_TIMEOUT = Duration.ofMinutes(15);

    @Override
    public String describe() {
        return ResyncReport.describe(settings);
    }

    /** Both stores' YAML: room for every key, and a write timeout a slow machine does not hit. */
    static String tuning(long maxEntries, long maxBytes) {
        return "store:\n  maxEntries: " + maxEntries + "\n  maxBytes: " + maxBytes + "\n"
                + "replication:\n  writeTimeoutMs: 10000\n";
    }

    @Override
    public ResyncReport run(Path runDir, PrintWriter err) throws InterruptedException {
        JavaCommand java = JavaCommand.current().withFlags(List.of("-Xmx" + settings.nodeHeap()));
        ResyncKeys keys = new ResyncKeys(settings.keys(), settings.valueSize(), settings.changedKeys());
        Duration timeout = Duration.ofMillis(Math.round(settings.timeoutSeconds() * 1000));
        try (ResyncPair pair = ResyncPair.start(
                link, tuning(settings.maxEntries(), settings.maxBytes()), settings.flowControl(), runDir, java)) {
            ResyncKeys.Connector primary = () -> connect(pair.primaryPort());
            long loadStart = System.nanoTime();
            keys.load(primary);
            say(err, "loaded %,d keys; waiting for the backup", keys.keys());
            if (pair.awaitDrained(new ResyncPair.Start(loadStart, 0), LOAD_TIMEOUT) == null) {
                throw new IllegalStateException(
                        "the backup has not caught up with the load after " + LOAD_TIMEOUT.toMinutes() + " min; "
                                + pair.primaryStatus().path("replication"));
            }
            ResyncReport.Load load =
                    new ResyncReport.Load(keys.keys(), keys.valueBytes(), (System.nanoTime() - loadStart) / 1e9);
            say(err, "replicated in %.1f s", load.seconds());

            ResyncReport.Phase incremental = phase(pair, keys, primary, timeout, err, true);
            ResyncReport.Phase full = phase(pair, keys, primary, timeout, err, false);
            return new ResyncReport(
                    "resync",
                    settings,
                    load,
                    incremental,
                    full,
                    ResyncReport.shippedPercent(incremental, full),
                    ResyncReport.verdict(incremental, full, settings.timeoutSeconds()),
                    Provenance.now(runDir));
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection failed: " + e.getMessage(), e);
        }
    }

    /**
     * Stops the backup; then, for an incremental resync, rewrites the changed keys on the primary, or
     * else empties the backup's data directory; starts the backup and measures its resync.
     */
    private ResyncReport.Phase phase(
            ResyncPair pair,
            ResyncKeys keys,
            ResyncKeys.Connector primary,
            Duration timeout,
            PrintWriter err,
            boolean incremental)
            throws IOException, InterruptedException {
        String name = incremental ? "incremental" : "full";
        pair.stopBackup();
        ResyncPair.Counters before = pair.counters();
        int acknowledged = pair.resyncsAcknowledged();
        if (incremental) {
            keys.change(primary);
            say(err, "%s: backup stopped; %,d keys changed on the primary", name, keys.changedKeys());
        } else {
            pair.wipeBackupData();
            say(err, "%s: backup stopped; its data directory emptied", name);
        }
        ResyncPair.Start start = pair.startBackup("dc-backup-" + name);
        say(err, "%s: backup started in %.1f s; waiting for its resync", name, start.startupSeconds());
        Double seconds = pair.awaitResynced(acknowledged, start, timeout);
        ResyncPair.Counters shipped = pair.counters().since(before);
        say(
                err,
                "%s: %s; %,d value bytes shipped; reading every key back from the backup",
                name,
                seconds == null
                        ? "not converged after " + timeout.toSeconds() + " s"
                        : String.format(Locale.ROOT, "converged %.1f s after the start", seconds),
                shipped.valueBytesShipped());
        long primaryKeys = dbSize(primary);
        long backupKeys = dbSize(() -> connect(pair.backupPort()));
        ResyncKeys.Check check = keys.check(() -> connect(pair.backupPort()));
        say(
                err,
                "%s: %,d keys on the primary, %,d on the backup; %d missing, %d unfinished, %d different",
                name,
                primaryKeys,
                backupKeys,
                check.missing(),
                check.unfinished(),
                check.different());
        return new ResyncReport.Phase(
                incremental ? keys.changedKeys() : 0,
                start.startupSeconds(),
                seconds,
                shipped.resyncs(),
                shipped.keysListed(),
                shipped.valuesShipped(),
                shipped.valueBytesShipped(),
                shipped.valueBytesWanted(),
                shipped.valueBytesListed() - shipped.valueBytesWanted(),
                shipped.linkBytes(),
                primaryKeys,
                backupKeys,
                check);
    }

    private static long dbSize(ResyncKeys.Connector node) throws IOException {
        try (RespConnection c = node.open()) {
            Object reply = c.call("DBSIZE");
            if (reply instanceof Long n) return n;
            throw new IllegalStateException("DBSIZE answered " + RespConnection.describe(reply));
        }
    }

    private static RespConnection connect(int port) throws IOException {
        return RespConnection.open(BenchCluster.HOST, port, Duration.ofSeconds(5), Duration.ofSeconds(60));
    }

    private static void say(PrintWriter err, String format, Object... args) {
        err.println(String.format(Locale.ROOT, format, args));
        err.flush();
    }
}
