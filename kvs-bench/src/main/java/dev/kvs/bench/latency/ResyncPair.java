package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.bench.cluster.NodeProcess;
import dev.kvs.bench.cluster.NodeYaml;
import dev.kvs.bench.cluster.TwoDcs;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A primary and a backup with a data directory, for the resync benchmark: separate JVMs on loopback
 * in the {@code async} mode, the backup's replication port behind a {@link WanLink} in this process
 * (the primary's peer). Unlike {@link BenchCluster}, the backup can be stopped and started again, on
 * its data or on an empty directory, on the same replication port; the primary's acknowledged
 * resyncs are counted from its log, where it says so. Closing it kills both nodes and the link.
 */
final class ResyncPair implements AutoCloseable {
    private static final Pattern RESYNC_ACKNOWLEDGED = Pattern.compile("full resync to \\S+ acknowledged: ");
    private static final int START_ATTEMPTS = 3;

    /**
     * The primary's replication counters, and the bytes the link delivered to the backup.
     *
     * @param resyncs full resyncs started
     * @param keysListed keys the resyncs listed
     * @param valueBytesListed their value bytes
     * @param valueBytesWanted value bytes the backup asked for in its answers to the listings
     * @param valuesShipped values sent
     * @param valueBytesShipped their bytes
     * @param linkBytes bytes the link delivered to the backup
     */
    record Counters(
            long resyncs,
            long keysListed,
            long valueBytesListed,
            long valueBytesWanted,
            long valuesShipped,
            long valueBytesShipped,
            long linkBytes) {
        Counters since(Counters before) {
            return new Counters(
                    resyncs - before.resyncs,
                    keysListed - before.keysListed,
                    valueBytesListed - before.valueBytesListed,
                    valueBytesWanted - before.valueBytesWanted,
                    valuesShipped - before.valuesShipped,
                    valueBytesShipped - before.valueBytesShipped,
                    linkBytes - before.linkBytes);
        }
    }

    /**
     * A start of the backup.
     *
     * @param nanos {@link System#nanoTime()} when its JVM was started
     * @param startupSeconds from then until it listened
     */
    record Start(long nanos, double startupSeconds) {}

    private final ChildProcesses children;
    private final JavaCommand java;
    private final Path dir;
    private final Path backupConfig;
    private final Path dataDir;
    private final WanLink link;
    private final NodeProcess primary;
    private final NodeProcess.Ports primaryPorts;
    private final String adminToken;
    private NodeProcess backup;
    private TwoDcs dcs;

    private ResyncPair(
            ChildProcesses children,
            JavaCommand java,
            Path dir,
            Path backupConfig,
            Path dataDir,
            WanLink link,
            NodeProcess primary,
            NodeProcess.Ports primaryPorts,
            String adminToken) {
        this.children = children;
        this.java = java;
        this.dir = dir;
        this.backupConfig = backupConfig;
        this.dataDir = dataDir;
        this.link = link;
        this.primary = primary;
        this.primaryPorts = primaryPorts;
        this.adminToken = adminToken;
    }

    /**
     * Starts the backup (its data in {@code dir/dc-backup-data}), the link and the primary in {@code
     * dir}, and waits until the primary streams to the backup. If another socket takes the backup's
     * replication port before it listens, the three start again on another port.
     *
     * @param tuning both nodes' store and replication sections
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @throws IllegalStateException naming the node and quoting its log if a node does not start
     */
    static ResyncPair start(LinkSettings linkSettings, String tuning, String flowControl, Path dir, JavaCommand java)
            throws InterruptedException {
        ChildProcesses children = new ChildProcesses();
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return start(linkSettings, tuning, flowControl, dir, java, children, freePort());
                } catch (IllegalStateException e) {
                    if (attempt == START_ATTEMPTS || !portTaken(e)) throw e;
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            children.close();
            throw e;
        }
    }

    private static ResyncPair start(
            LinkSettings linkSettings,
            String tuning,
            String flowControl,
            Path dir,
            JavaCommand java,
            ChildProcesses children,
            int backupRepl)
            throws InterruptedException {
        String token = NodeYaml.newAdminToken();
        Path dataDir = dir.resolve("dc-backup-data");
        NodeYaml backupYaml =
                new NodeYaml("kvs-bench", "async", "dataDir: " + yamlString(dataDir) + "\n" + tuning, token);
        NodeYaml primaryYaml = new NodeYaml("kvs-bench", "async", tuning, token);
        WanLink link = linkSettings.start(TwoDcs.LOOPBACK, backupRepl);
        NodeProcess backup = null;
        NodeProcess primary = null;
        try {
            createDirectories(dataDir);
            Path backupConfig = backupYaml.write(dir, "dc-backup", "backup", TwoDcs.LOOPBACK, 0, backupRepl, 0, null);
            Path primaryConfig = primaryYaml.write(
                    dir, "dc-main", "primary", TwoDcs.LOOPBACK, 0, 0, 0, TwoDcs.LOOPBACK + ":" + link.port());
            backup = NodeProcess.start(
                    "dc-backup",
                    java.kvs(TwoDcs.server(backupConfig, List.of())),
                    dir.resolve("dc-backup.log"),
                    children);
            primary = NodeProcess.start(
                    "dc-main",
                    java.kvs(TwoDcs.server(primaryConfig, List.of("--flow-control", flowControl))),
                    dir.resolve("dc-main.log"),
                    children);
            NodeProcess.Ports b = backup.awaitReady(BenchCluster.START_TIMEOUT);
            NodeProcess.Ports p = primary.awaitReady(BenchCluster.START_TIMEOUT);
            ResyncPair pair = new ResyncPair(children, java, dir, backupConfig, dataDir, link, primary, p, token);
            pair.backup(backup, b);
            pair.dcs.awaitStreaming(BenchCluster.START_TIMEOUT);
            return pair;
        } catch (InterruptedException | RuntimeException e) {
            if (primary != null) primary.kill();
            if (backup != null) backup.kill();
            link.close();
            throw e;
        }
    }

    private void backup(NodeProcess node, NodeProcess.Ports ports) {
        backup = node;
        dcs = TwoDcs.of(
                new TwoDcs.Dc(primary, TwoDcs.LOOPBACK, primaryPorts),
                new TwoDcs.Dc(node, TwoDcs.LOOPBACK, ports),
                null,
                adminToken,
                null);
    }

    /** The primary's RESP port. */
    int primaryPort() {
        return primaryPorts.client();
    }

    /** The backup's RESP port (of its last start). */
    int backupPort() {
        return dcs.backup().ports().client();
    }

    /** Asks the backup to stop ({@code SIGTERM}), killing it if it has not after 60 s. */
    void stopBackup() throws InterruptedException {
        backup.stop(Duration.ofSeconds(60));
    }

    /** Deletes the stopped backup's data directory and makes it again, empty. */
    void wipeBackupData() {
        deleteBackupData();
        createDirectories(dataDir);
    }

    private void deleteBackupData() {
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dataDir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts the backup again on its data directory and replication port, its output in {@code
     * dir/logName.log}, and waits until it listens. If another socket took its replication port
     * meanwhile (an outgoing connection's ephemeral port), it tries again.
     *
     * @throws IllegalStateException quoting its log if it does not start
     */
    Start startBackup(String logName) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            long nanos = System.nanoTime();
            NodeProcess node = NodeProcess.start(
                    "dc-backup",
                    java.kvs(TwoDcs.server(backupConfig, List.of())),
                    dir.resolve(logName + (attempt == 1 ? "" : "-" + attempt) + ".log"),
                    children);
            try {
                NodeProcess.Ports ports = node.awaitReady(BenchCluster.START_TIMEOUT);
                backup(node, ports);
                return new Start(nanos, (System.nanoTime() - nanos) / 1e9);
            } catch (IllegalStateException e) {
                node.kill();
                if (attempt == START_ATTEMPTS || !portTaken(e)) throw e;
            }
        }
    }

    /** Full resyncs the primary logged as acknowledged by the backup. */
    int resyncsAcknowledged() {
        try {
            String log = Files.readString(primary.log(), StandardCharsets.UTF_8);
            return (int) RESYNC_ACKNOWLEDGED.matcher(log).results().count();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + primary.log() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Waits until the primary has logged more than {@code acknowledgedBefore} acknowledged resyncs and
     * streams with no key packet or value unacknowledged.
     *
     * @return the seconds from {@code start} until then, or null if not within {@code timeout}
     * @throws IllegalStateException quoting its log if a node exits meanwhile
     */
    Double awaitResynced(int acknowledgedBefore, Start start, Duration timeout) throws InterruptedException {
        return await(start, timeout, () -> resyncsAcknowledged() > acknowledgedBefore);
    }

    /**
     * Waits until the primary streams with no key packet or value unacknowledged.
     *
     * @return the seconds from {@code start} until then, or null if not within {@code timeout}
     * @throws IllegalStateException quoting its log if a node exits meanwhile
     */
    Double awaitDrained(Start start, Duration timeout) throws InterruptedException {
        return await(start, timeout, () -> true);
    }

    private Double await(Start start, Duration timeout, BooleanSupplier also) throws InterruptedException {
        long deadline = start.nanos() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            dcs.checkAlive();
            JsonNode r = primaryStatus().path("replication");
            if (r.path("state").asText().equals("streaming")
                    && r.path("unackedKeys").asLong(-1) == 0
                    && r.path("pendingValues").asLong(-1) == 0
                    && also.getAsBoolean()) {
                return (System.nanoTime() - start.nanos()) / 1e9;
            }
            // the admin port and the log are the only ways to learn the resync's progress from outside
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return null;
    }

    /** The primary's counters now. */
    Counters counters() {
        JsonNode r = primaryStatus().path("replication");
        JsonNode resync = r.path("resync");
        return new Counters(
                r.path("resyncs").asLong(),
                resync.path("keysListed").asLong(),
                resync.path("valueBytesListed").asLong(),
                resync.path("valueBytesWanted").asLong(),
                r.path("valuesShipped").asLong(),
                r.path("valueBytesShipped").asLong(),
                link.stats().toTarget().relayedBytes());
    }

    /** {@code GET /status} of the primary. */
    JsonNode primaryStatus() {
        return dcs.get(dcs.primary(), "/status");
    }

    /**
     * Kills both nodes, closes the link, and deletes the backup's data directory: its files take
     * several times the values' bytes (5 GB for the default run), and the run directory keeps the
     * configs and logs.
     */
    @Override
    public void close() {
        children.close();
        link.close();
        if (Files.exists(dataDir)) deleteBackupData();
    }

    /** Whether {@code e} says the backup could not listen on its replication port, which another socket took. */
    private static boolean portTaken(IllegalStateException e) {
        String m = e.getMessage();
        return m != null && m.startsWith("dc-backup ") && m.contains("address already in use");
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(TwoDcs.LOOPBACK))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port: " + e.getMessage(), e);
        }
    }

    /** {@code path} as a single-quoted YAML string. */
    static String yamlString(Path path) {
        return "'" + path.toAbsolutePath().toString().replace("'", "''") + "'";
    }

    private static void createDirectories(Path d) {
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + d + ": " + e.getMessage(), e);
        }
    }
}
