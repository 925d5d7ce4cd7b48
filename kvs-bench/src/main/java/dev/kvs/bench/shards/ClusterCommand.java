package dev.kvs.bench.shards;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.kvs.bench.cli.DelayOption;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.server.cli.CliErrorHandler;
import dev.kvs.server.cli.KvsVersionProvider;
import dev.kvs.server.config.CoordinationConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code kvs cluster}: a whole sharded cluster on this machine ({@link LocalCluster}) until Ctrl-C; and
 * its subcommands {@code init} and {@code show}, the map of a cluster on any ensemble.
 */
@Command(
        name = "cluster",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        subcommands = {ClusterInitCommand.class, ClusterShowCommand.class},
        headerHeading = "%n",
        header = "Run a sharded cluster on this machine: ZooKeeper and 2 nodes (2 DCs) per shard, until Ctrl-C.",
        descriptionHeading = "%n",
        description = {
            "Starts a ZooKeeper server in this process (loopback, credentials fresh for the run), creates the"
                    + " cluster map (the 16384 slots split evenly), then per shard a primary in DC a replicating"
                    + " id-first to its backup in DC b through an emulated WAN link in this process. Client"
                    + " ports start at --port; admin, replication, link and ZooKeeper ports follow in one block"
                    + " of 7 x shards + 1 ports, all on 127.0.0.1. Prints every node's ports and role once each"
                    + " primary streams to its backup and holds its lease. Ctrl-C stops everything; a node"
                    + " also stops if this process is killed.",
            "Production nodes start with 'kvs server --zookeeper HOST:PORT,... --shard ID' (or the YAML"
                    + " coordination: section) after 'kvs cluster init' made the map."
        },
        optionListHeading = "%nOptions:%n",
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:stopped after Ctrl-C (or SIGTERM)",
            "1:the cluster could not start: a port taken, a node failed (its log is quoted)",
            "2:bad options"
        })
public final class ClusterCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = "Shards, 1.." + LocalCluster.MAX_SHARDS + ", each 2 node JVMs (default: ${DEFAULT-VALUE})")
    private int shards = 3;

    @Option(
            names = "--port",
            paramLabel = "P",
            description = "The first node's client port; the cluster uses ports P..P+7xN (default: ${DEFAULT-VALUE})")
    private int port = 7000;

    @Option(
            names = "--cluster",
            paramLabel = "NAME",
            description = "The cluster's name, in its node ids (default: ${DEFAULT-VALUE})")
    private String cluster = "kvs-local";

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "An empty or new directory for ZooKeeper's data, the nodes' configs and logs (default: a"
                    + " new one under the system's temporary directory)")
    private Path dir;

    @Mixin
    private DelayOption delay = new DelayOption(1);

    @Option(
            names = "--session-timeout-ms",
            paramLabel = "MS",
            description = "The nodes' ZooKeeper session timeout, " + 2 * LocalCluster.TICK_MS + ".."
                    + 20 * LocalCluster.TICK_MS + " ms: a primary cut off stops serving within 2/3 of it"
                    + " (default: ${DEFAULT-VALUE})")
    private long sessionTimeoutMs = CoordinationConfig.DEFAULT_SESSION_TIMEOUT.toMillis();

    @Option(names = "--node-heap", paramLabel = "SIZE", description = "Each node's -Xmx (default: ${DEFAULT-VALUE})")
    private String nodeHeap = "256m";

    @Option(
            names = "--start-timeout-s",
            paramLabel = "S",
            description =
                    "How long the nodes may take to start and hold their leases, 1..600 (default: ${DEFAULT-VALUE})")
    private int startTimeoutS = 120;

    @Override
    public Integer call() throws InterruptedException {
        LocalCluster.Settings settings;
        try {
            if (startTimeoutS < 1 || startTimeoutS > 600) {
                throw new IllegalArgumentException("--start-timeout-s is not in 1..600: " + startTimeoutS);
            }
            settings = new LocalCluster.Settings(
                    cluster,
                    shards,
                    port,
                    delay.delay(),
                    Duration.ofMillis(sessionTimeoutMs),
                    nodeHeap,
                    Duration.ofSeconds(startTimeoutS));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        LocalPorts ports = new LocalPorts(port, shards);
        quietZooKeeper();
        try (ChildProcesses children = new ChildProcesses()) {
            Path runDir = runDir();
            out.printf(
                    "kvs cluster: ZooKeeper on 127.0.0.1:%d, %d shards x 2 DCs, ports %d-%d, files in %s%n",
                    ports.zookeeper(), shards, ports.base(), ports.last(), runDir);
            out.flush();
            LocalCluster running = LocalCluster.start(settings, runDir, JavaCommand.current(), children);
            out.println();
            out.print(NodeTable.format(running.nodes()));
            out.println();
            out.printf(
                    "Replication: each primary (DC a) to its backup (DC b) through a WAN link in this process, %s ms"
                            + " one way.%n",
                    settings.delay().toNanos() / 1e6);
            out.printf(
                    "The map: ./kvs cluster show --zookeeper %s --cluster %s --credentials-file %s%n",
                    running.zookeeper(), cluster, runDir.resolve("zookeeper.credentials"));
            out.printf(
                    "ready: %d shards, %d nodes, 16384 slots; redis-cli -c -p %d. Ctrl-C stops everything.%n",
                    shards, running.nodes().size(), port);
            out.flush();
            // until Ctrl-C or SIGTERM: the shutdown hook of children kills the nodes and closes the cluster
            new CountDownLatch(1).await();
            return 0;
        } catch (IllegalStateException | UncheckedIOException e) {
            err.println(name + ": " + e.getMessage());
            err.flush();
            return CliErrorHandler.FAILURE;
        }
    }

    /**
     * The embedded ZooKeeper server logs every session and znode at INFO to this process's output, where
     * the node table goes: only its errors are shown (the nodes' own logs are in their files).
     */
    private static void quietZooKeeper() {
        if (LoggerFactory.getLogger("org.apache.zookeeper") instanceof Logger zk) zk.setLevel(Level.ERROR);
        if (LoggerFactory.getLogger("org.apache.curator") instanceof Logger curator) curator.setLevel(Level.WARN);
    }

    /** {@code --dir}, created if new and refused if not empty; else a new temporary directory. */
    private Path runDir() {
        try {
            if (dir == null) return Files.createTempDirectory("kvs-cluster-");
            if (Files.isDirectory(dir)) {
                try (Stream<Path> entries = Files.list(dir)) {
                    if (entries.findAny().isPresent()) {
                        throw new IllegalStateException("--dir " + dir + " is not empty: give an empty or new one");
                    }
                }
            }
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create --dir " + dir + ": " + e.getMessage(), e);
        }
    }
}
