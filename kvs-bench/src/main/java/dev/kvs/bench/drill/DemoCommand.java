package dev.kvs.bench.drill;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.client.ReplicationMode;
import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code kvs demo}: the point of kvs in under a minute. A short {@link Drill} in {@code id-first} and
 * then {@code async} over a slow emulated WAN, the primary killed mid-write, and what each mode's
 * acknowledged writes became on the promoted backup.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Show in under a minute why identifier-first replication matters (no options needed).",
        descriptionHeading = "%n",
        description = {
            "Runs a short failover drill twice, in id-first and in async mode: two DCs on this machine"
                    + " 5 ms apart over a 50 Mbit/s link, four clients writing 64 KiB values at full speed, the"
                    + " primary killed (kill -9) mid-write, the backup promoted, every acknowledged write read"
                    + " back. 'kvs drill --help' runs the same with your own settings."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:as expected: id-first lost nothing silently, async did",
            "1:the demo could not run, or async lost nothing (nothing was in flight: a slow machine?)",
            "3:id-first silently lost acknowledged writes (a bug)"
        })
public final class DemoCommand implements Callable<Integer> {
    /**
     * The demo's drill: the link is slower than the clients, so values queue up behind it in both
     * modes and the kill always finds some in flight.
     */
    static Drill drill() {
        return new Drill(
                List.of(ReplicationMode.ID_FIRST, ReplicationMode.ASYNC),
                Disaster.KILL_PRIMARY,
                System.nanoTime(),
                new DrillRun.LoadShape(4, 64 * 1024, Duration.ofSeconds(6), 16),
                Duration.ofMillis(5),
                50_000_000,
                Drill.newRunDir());
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        return run(drill());
    }

    int run(Drill drill) throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        out.println("kvs demo: two datacenters on this machine, dc-main and dc-backup, 5 ms apart over a"
                + " 50 Mbit/s link.");
        out.println("For each mode: 4 clients write 64 KiB values at full speed for 6 s; mid-write dc-main is"
                + " killed (kill -9), dc-backup is promoted, and every write dc-main acknowledged is read back.");
        out.println();
        out.flush();
        long started = System.nanoTime();
        DrillReport report;
        try {
            report = drill.run("demo", err, ProgressLine.stderrIsTerminal());
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return DrillCommand.FAILURE;
        }
        ModeResult idFirst = report.modes().get(0);
        ModeResult async = report.modes().get(1);
        out.println();
        out.print(ResultTable.columns(report.modes()));
        out.println();
        out.printf(
                "async answered each write at once and shipped it later: %s acknowledged writes were still on"
                        + " their way when dc-main died.%n"
                        + "The promoted backup never heard of them: it serves old data or nothing, and nobody knows.%n%n",
                ResultTable.count(async.dataLoss()));
        out.printf(
                "id-first answered a write only once dc-backup had its key and transaction id (one round trip of a"
                        + " tiny packet,%nwhatever the value size); values followed in the background. %s values were"
                        + " in flight at the kill,%nbut dc-backup knew exactly which: it fences those keys (-LOST key"
                        + " txid) and lists them in its loss manifest%n(GET /lost) instead of serving stale data."
                        + " Silently lost: %s.%n%n",
                ResultTable.count(idFirst.errorDetect()), ResultTable.count(idFirst.dataLoss()));
        out.printf(
                "Took %.0f s; node logs and acknowledged writes in %s%n%n",
                (System.nanoTime() - started) / 1e9, drill.runDir());
        out.println("Go further:");
        out.println(
                "  ./kvs drill --help                                   every option (value size, link, clients, ...)");
        out.println(
                "  ./kvs drill --mode all --disaster cut-link           sync, id-first, id-first-after-reply, async");
        out.println("  BENCHMARKS.md                                        measured drills and latency per mode");
        out.println("  docker/                                              the drill across containers with tc netem");
        out.flush();
        if (idFirst.dataLoss() > 0 || idFirst.unreadable() > 0 || async.unreadable() > 0) {
            return DrillCommand.verdict(report, name, out, err);
        }
        if (async.dataLoss() == 0) {
            err.println(name + ": async lost nothing this time: no value was in flight when dc-main died"
                    + " (a very fast or very loaded machine?); try ./kvs drill --mode async --bandwidth-mbit 10");
            err.flush();
            return DrillCommand.FAILURE;
        }
        return 0;
    }
}
