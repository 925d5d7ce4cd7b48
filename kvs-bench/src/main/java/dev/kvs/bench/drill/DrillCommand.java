package dev.kvs.bench.drill;

import dev.kvs.bench.cli.DelayOption;
import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.shards.LocalCluster;
import dev.kvs.client.ReplicationMode;
import dev.kvs.server.cli.KvsVersionProvider;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs drill}: a failover drill on one machine. Starts a primary and a backup as separate
 * processes joined by an emulated WAN link, writes at full speed, kills the primary or cuts the link
 * mid-load, promotes the backup and classifies every acknowledged write. {@code drill load} and
 * {@code drill verify} are the two halves, for nodes started elsewhere.
 */
@Command(
        name = "drill",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        subcommands = {LoadCommand.class, VerifyCommand.class},
        headerHeading = "%n",
        header = "Failover drill: write at full speed, cause a disaster, promote the backup, check every"
                + " acknowledged write.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-main (primary) and dc-backup as separate JVMs on loopback, joined by an in-process"
                    + " WAN link emulator (--delay-ms each way, --bandwidth-mbit, FIFO queueing). Clients of the"
                    + " Java SDK write unique keys at full speed; at a moment in the second half of --duration"
                    + " (chosen by --seed) the disaster strikes: kill-primary (kill -9) or cut-link (the primary"
                    + " lives on, cut off). Then the backup is promoted with POST /promote?lost=true and every"
                    + " acknowledged write is read back from it and classified:",
            "  complete      the new primary serves the acknowledged value;",
            "  error-detect  it answers -UNFINISHED or -LOST: it knows the value is missing;",
            "  data loss     it serves nothing or another value, and does not know (silent loss).",
            "",
            "sync and id-first must show no data loss; async shows why they exist. Each mode gets fresh"
                    + " processes. Node logs, configs and ack files go to a run directory (printed). Ctrl-C stops"
                    + " every process the drill started.",
            "",
            "For nodes started elsewhere (containers, two machines): 'kvs drill load' and 'kvs drill verify'."
        },
        optionListHeading = "%nOptions:%n",
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every acknowledged write complete or detected in sync and id-first",
            "1:the drill could not run (a node did not start, a write could not be read back)",
            "2:bad flag, or --netns without root or the ip command",
            "3:silent data loss in sync or id-first"
        })
public final class DrillCommand implements Callable<Integer> {
    /** Exit code: the drill could not run, or some writes could not be classified. */
    static final int FAILURE = 1;
    /** Exit code: a bad flag, or {@code --netns} without root or {@code ip}. */
    static final int USAGE = 2;
    /** Exit code: acknowledged writes were silently lost in {@code sync} or {@code id-first}. */
    static final int DATA_LOSS = 3;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = LoadOptions.ModesConverter.class,
            description = "sync, id-first, id-first-after-reply, async, a comma-separated list, or all"
                    + " (default: id-first)")
    private LoadOptions.ModeList modes = new LoadOptions.ModeList(LoadOptions.modes("id-first"));

    @Option(
            names = "--disaster",
            paramLabel = "kill-primary|cut-link|isolate-dc|isolate-backup-dc",
            converter = LoadOptions.DisasterConverter.class,
            description = "kill-primary: kill -9 the primary; cut-link: cut the WAN link, the primary"
                    + " stays up; with --shards only: isolate-dc: cut DC a (the primaries) off ZooKeeper and"
                    + " DC b at once, silently, for 3 session timeouts, then heal; isolate-backup-dc: the"
                    + " same to DC b (default: kill-primary)")
    private Disaster disaster = Disaster.KILL_PRIMARY;

    @Mixin
    private LoadOptions load;

    @Mixin
    private final DelayOption delay = new DelayOption(5);

    @Option(
            names = "--bandwidth-mbit",
            paramLabel = "MBIT",
            description = "WAN bandwidth each way in Mbit/s, 0 for unlimited (default: ${DEFAULT-VALUE})")
    private double bandwidthMbit = 1000;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description = "Chooses when the disaster strikes; printed, so a run can be replayed (default: random)")
    private Long seed;

    @Option(
            names = "--netns",
            description = "Root only: run each DC in its own network namespace, joined by a veth pair;"
                    + " the delay by tc netem where the kernel has it, else by a kvs wan process; cut-link"
                    + " takes the veth down. Removes its namespaces, veths and processes when done.")
    private boolean netns;

    @Option(
            names = "--tls",
            description = "TLS on every port, as a production pair: a fresh CA and node certificates per mode"
                    + " (in the run directory, keys owner-only), mutual TLS on replication (besides the cluster"
                    + " secret), TLS-only client and admin ports; the drill's clients and admin requests use TLS.")
    private boolean tls;

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = "A sharded drill instead of a pair: ZooKeeper and N shards x 2 DCs (as kvs cluster), loaded"
                    + " by the SDK in cluster mode; the disaster strikes shard 0 (or a whole DC) and the nodes"
                    + " fail over by themselves (no admin call). Prints per shard the outcomes, failover times, epochs and"
                    + " whether two nodes acknowledged writes in overlapping time. 1.." + LocalCluster.MAX_SHARDS)
    private Integer shards;

    @Option(
            names = "--session-timeout-ms",
            paramLabel = "MS",
            description =
                    "With --shards: the nodes' ZooKeeper session timeout, 1000..10000 (default: ${DEFAULT-VALUE})")
    private long sessionTimeoutMs = 2000;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the results to FILE as JSON")
    private Path json;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "Run directory for node logs, configs and ack files (default: a new temporary one)")
    private Path dir;

    @Override
    public Integer call() throws InterruptedException {
        String problem = load.problem();
        if (problem != null) throw new ParameterException(spec.commandLine(), problem);
        Duration oneWayDelay;
        try {
            oneWayDelay = delay.delay();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (bandwidthMbit < 0 || Double.isNaN(bandwidthMbit)) {
            throw new ParameterException(spec.commandLine(), "--bandwidth-mbit < 0: " + bandwidthMbit);
        }
        if (netns) {
            String missing = NetnsNetwork.precondition(NetnsNetwork.isRoot(), NetnsNetwork.which("ip"));
            if (missing != null) {
                PrintWriter err = spec.commandLine().getErr();
                err.println(spec.qualifiedName() + ": " + missing);
                err.flush();
                return USAGE;
            }
        }
        long s = seed != null ? seed : System.nanoTime();
        if (shards != null) return sharded(s);
        if (disaster.isolatesDc()) {
            throw new ParameterException(
                    spec.commandLine(),
                    disaster.label() + " needs --shards: a pair has no ZooKeeper to isolate a DC from");
        }
        Drill drill = new Drill(
                modes.modes(),
                disaster,
                s,
                load.shape(),
                oneWayDelay,
                Math.round(bandwidthMbit * 1e6),
                dir != null ? dir : Drill.newRunDir(),
                netns,
                tls);
        return run(
                drill,
                "drill",
                spec.qualifiedName(),
                json,
                spec.commandLine().getOut(),
                spec.commandLine().getErr());
    }

    /** {@code --shards N}: one sharded drill per mode, each on a fresh cluster; the exit code as the pair's. */
    private int sharded(long s) throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        if (shards < 1 || shards > LocalCluster.MAX_SHARDS) {
            throw new ParameterException(
                    spec.commandLine(), "--shards is not in 1.." + LocalCluster.MAX_SHARDS + ": " + shards);
        }
        if (netns || tls) {
            throw new ParameterException(
                    spec.commandLine(), "--shards runs on loopback without TLS: drop --netns and --tls");
        }
        Path runDir = dir != null ? dir : Drill.newRunDir();
        Drill timing = new Drill(modes.modes(), disaster, s, load.shape(), Duration.ZERO, 0, runDir);
        err.printf(
                "%s: %d shards, %s on %s at %.1f s into %.1f s of load (seed %d); run directory %s%n",
                name,
                shards,
                disaster.label(),
                disaster == Disaster.ISOLATE_DC ? "dc-a" : disaster == Disaster.ISOLATE_BACKUP_DC ? "dc-b" : "shard-0",
                timing.disasterAt().toMillis() / 1000.0,
                load.shape().duration().toMillis() / 1000.0,
                s,
                runDir);
        err.flush();
        int code = 0;
        try (QuietLogs quiet = new QuietLogs();
                ChildProcesses children = new ChildProcesses()) {
            for (ReplicationMode m : modes.modes()) {
                ShardDrill.Result r = ShardDrill.run(
                        new ShardDrill.Settings(
                                m,
                                disaster,
                                shards,
                                0,
                                timing.disasterAt(),
                                load.shape(),
                                Duration.ofMillis(sessionTimeoutMs),
                                Duration.ofSeconds(120)),
                        runDir.resolve(m.label()),
                        JavaCommand.current(),
                        children,
                        err);
                out.println();
                out.print(ShardTable.render(r));
                out.flush();
                boolean forbidden = m.label().equals("sync") || m.label().equals("id-first");
                if (r.lines().stream().anyMatch(l -> l.outcome().unreadable() > 0)) code = Math.max(code, FAILURE);
                if (forbidden && r.dataLoss() > 0) {
                    err.printf("%s: %s SILENTLY LOST %,d acknowledged writes: a bug%n", name, m.label(), r.dataLoss());
                    code = DATA_LOSS;
                }
                if (r.definiteOverlaps() > 0) {
                    err.printf(
                            "%s: %s: two nodes of a shard acknowledged writes in overlapping time%n", name, m.label());
                    code = DATA_LOSS;
                }
            }
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return FAILURE;
        }
        err.flush();
        return code;
    }

    /** Runs {@code drill}, prints what it does and the table, writes the JSON; returns the exit code. */
    static int run(Drill drill, String command, String name, Path json, PrintWriter out, PrintWriter err)
            throws InterruptedException {
        err.println(name + ": " + describe(drill));
        err.println(name + ": run directory " + drill.runDir() + " (node logs, configs, acknowledged writes)");
        err.flush();
        DrillReport report;
        try {
            report = drill.run(command, err, ProgressLine.stderrIsTerminal());
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return FAILURE;
        }
        out.println();
        out.print(ResultTable.render(report.modes()));
        out.flush();
        if (json != null) report.write(json);
        return verdict(report, name, out, err);
    }

    static String describe(Drill d) {
        return String.format(
                Locale.ROOT,
                "%s %s at %.1f s into %.1f s of load (seed %d); %d clients x %d writes in flight, %s values;"
                        + " WAN %s ms each way, %s, %s%s",
                d.modes().stream().map(m -> m.label()).collect(Collectors.joining(", ")),
                d.disaster().label(),
                d.disasterAt().toMillis() / 1000.0,
                d.load().duration().toMillis() / 1000.0,
                d.seed(),
                d.load().clients(),
                d.load().pipeline(),
                size(d.load().valueSize()),
                number(d.delay().toNanos() / 1e6),
                d.bandwidthBitsPerSecond() == 0 ? "unlimited" : number(d.bandwidthBitsPerSecond() / 1e6) + " Mbit/s",
                d.netns()
                        ? "a network namespace per DC joined by a veth pair (tc netem, or kvs wan with FIFO queueing)"
                        : "FIFO queueing",
                d.tls() ? "; TLS on every port (mutual TLS on replication)" : "");
    }

    /** Prints what the report means and returns the exit code. */
    static int verdict(DrillReport report, String name, PrintWriter out, PrintWriter err) {
        int code = 0;
        for (ModeResult m : report.modes()) {
            if (m.unreadable() > 0) {
                err.printf("%s: %s: %,d acknowledged writes could not be read back%n", name, m.mode(), m.unreadable());
                code = FAILURE;
            }
        }
        for (ModeResult m : report.modes()) {
            if (m.lossForbidden() && m.dataLoss() > 0) {
                err.printf(
                        "%s: %s SILENTLY LOST %,d acknowledged writes (e.g. %s): a bug%n",
                        name, m.mode(), m.dataLoss(), String.join(", ", m.lossExamples()));
                code = DATA_LOSS;
            }
        }
        if (code == 0) {
            out.println("No acknowledged write was silently lost in sync or id-first"
                    + (report.modes().stream().anyMatch(m -> !m.lossForbidden() && m.dataLoss() > 0)
                            ? "; the other modes' data loss is what they trade for speed."
                            : "."));
        }
        out.flush();
        err.flush();
        return code;
    }

    static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) return (bytes >> 20) + " MiB";
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) return (bytes >> 10) + " KiB";
        return bytes + " B";
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
