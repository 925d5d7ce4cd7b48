package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.bench.cluster.NodeProcess;
import dev.kvs.bench.cluster.NodeYaml;
import dev.kvs.bench.cluster.TwoDcs;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.ValueLagStatus;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two DCs on loopback for a benchmark ({@link TwoDcs}): a backup node process, a {@link WanLink} in
 * this process in front of the backup's replication port, and a primary node process whose peer is
 * the link. Closing it kills both nodes, closes every link it made, and removes the shutdown hook that
 * kills the nodes if the JVM is stopped first.
 */
final class BenchCluster implements AutoCloseable {
    static final String HOST = TwoDcs.LOOPBACK;
    /** How long a node may take to start (three JVMs at once on a loaded 2-core machine). */
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private static final ObjectMapper JSON =
            new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * The nodes' YAML after their mode: memory only, room for the benchmark's values, and a write
     * timeout long enough that a key acknowledgement stuck behind a full link queue is measured rather
     * than refused.
     */
    static final String TUNING = "store:\n" + "  maxBytes: 2GiB\n" + "replication:\n" + "  writeTimeoutMs: 10000\n";

    /**
     * What the primary reports about its replication ({@code GET /status}, {@code replication}).
     *
     * @param state link state, e.g. {@code streaming}
     * @param unackedKeys key packets not yet acknowledged
     * @param pendingValues values not yet acknowledged by the backup
     * @param pendingValueBytes their bytes: the value lag
     * @param oldestPendingValueMillis the value lag's age
     * @param valueBytesShipped value bytes the primary sent
     * @param flowControl the value traffic's flow control
     * @param valueLag the bound on the value lag in time, and the writes it held
     */
    record Replication(
            String state,
            long unackedKeys,
            long pendingValues,
            long pendingValueBytes,
            long oldestPendingValueMillis,
            long valueBytesShipped,
            FlowControlStatus flowControl,
            ValueLagStatus valueLag) {}

    private final ChildProcesses children;
    private final TwoDcs dcs;
    private final LinkSettings linkSettings;
    private final String adminToken;
    private final List<WanLink> probes = new ArrayList<>();

    private BenchCluster(ChildProcesses children, TwoDcs dcs, LinkSettings linkSettings, String adminToken) {
        this.children = children;
        this.dcs = dcs;
        this.linkSettings = linkSettings;
        this.adminToken = adminToken;
    }

    /**
     * Starts the backup, the link and the primary in {@code dir} (node configs and logs), and waits
     * until the primary streams to the backup.
     *
     * @param mode the nodes' default replication mode label
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @throws IllegalStateException naming the node and quoting its log if a node does not start
     */
    static BenchCluster start(LinkSettings link, String mode, String flowControl, Path dir)
            throws InterruptedException {
        return start(link, mode, flowControl, dir, JavaCommand.current());
    }

    /** As {@link #start(LinkSettings, String, String, Path)}, the nodes' JVMs started by {@code java}. */
    static BenchCluster start(LinkSettings link, String mode, String flowControl, Path dir, JavaCommand java)
            throws InterruptedException {
        return start(link, mode, flowControl, dir, java, "", TUNING);
    }

    /**
     * As {@link #start(LinkSettings, String, String, Path, JavaCommand)}, with {@code extraYaml} (whole
     * top-level lines, e.g. {@code requirepass}) in both nodes' YAML and {@code tuning} in place of the
     * default store and replication sections.
     */
    static BenchCluster start(
            LinkSettings link,
            String mode,
            String flowControl,
            Path dir,
            JavaCommand java,
            String extraYaml,
            String tuning)
            throws InterruptedException {
        return start(link, mode, flowControl, dir, java, extraYaml, tuning, true);
    }

    /**
     * As {@link #start(LinkSettings, String, String, Path, JavaCommand, String, String)}; without {@code
     * clusterSecret} the nodes have no secret (their replication frames carry no MAC).
     */
    static BenchCluster start(
            LinkSettings link,
            String mode,
            String flowControl,
            Path dir,
            JavaCommand java,
            String extraYaml,
            String tuning,
            boolean clusterSecret)
            throws InterruptedException {
        ChildProcesses children = new ChildProcesses();
        String token = NodeYaml.newAdminToken();
        NodeYaml yaml = new NodeYaml("kvs-bench", mode, extraYaml + tuning, token);
        try {
            TwoDcs dcs = TwoDcs.startOnLoopback(
                    new TwoDcs.Settings(
                            clusterSecret ? yaml : yaml.withoutClusterSecret(),
                            List.of("--flow-control", flowControl),
                            link,
                            START_TIMEOUT),
                    dir,
                    java,
                    children);
            return new BenchCluster(children, dcs, link, token);
        } catch (InterruptedException | RuntimeException e) {
            children.close();
            throw e;
        }
    }

    /** The primary's RESP port. */
    int primaryPort() {
        return dcs.primary().ports().client();
    }

    /** The primary's admin HTTP port. */
    int primaryAdminPort() {
        return dcs.primary().ports().admin();
    }

    /** Both nodes' {@code admin.token}. */
    String adminToken() {
        return adminToken;
    }

    /** The log file of the primary (or the backup). */
    Path log(boolean primary) {
        return (primary ? dcs.primary() : dcs.backup()).node().log();
    }

    /** The backup's RESP port. */
    int backupPort() {
        return dcs.backup().ports().client();
    }

    /** The backup's replication port itself (not the link in front of it). */
    int backupReplicationPort() {
        return dcs.backup().ports().repl();
    }

    /** Bytes the link delivered to the backup since it started: what the backup received. */
    long relayedToBackup() {
        return dcs.link().stats().toTarget().relayedBytes();
    }

    /**
     * A new link with the replication link's settings in front of the backup's RESP port, for
     * measuring the link's own round trip with {@code PING}; closed with the cluster.
     */
    synchronized WanLink probeLink() {
        WanLink probe = linkSettings.start(HOST, backupPort());
        probes.add(probe);
        return probe;
    }

    /** The primary's replication, from {@code GET /status}. */
    Replication primaryReplication() {
        JsonNode r = dcs.get(dcs.primary(), "/status").path("replication");
        try {
            return JSON.treeToValue(r, Replication.class);
        } catch (IOException e) {
            throw new UncheckedIOException("unexpected GET /status replication: " + r, e);
        }
    }

    /**
     * Waits until the backup has acknowledged every key packet and value the primary ordered.
     *
     * @throws IllegalStateException if it has not after {@code timeout}
     */
    void awaitDrained(Duration timeout) throws InterruptedException {
        NodeProcess primary = dcs.primary().node();
        long deadline = System.nanoTime() + timeout.toNanos();
        Replication r;
        while (true) {
            r = primaryReplication();
            if (r.unackedKeys() == 0 && r.pendingValues() == 0) return;
            if (System.nanoTime() > deadline || !primary.isAlive()) break;
            // the admin port is the only way to learn the value lag from outside
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new IllegalStateException("the backup has not caught up after " + timeout.toSeconds() + " s: "
                + r.unackedKeys() + " key packets and " + r.pendingValues() + " values (" + r.pendingValueBytes()
                + " bytes) not acknowledged; " + primary.log() + " ends with:\n" + primary.tail(10));
    }

    /** {@code GET /status} of the primary (or the backup) as JSON. */
    JsonNode status(boolean primary) {
        return dcs.get(primary ? dcs.primary() : dcs.backup(), "/status");
    }

    /** The process id of the primary (or the backup). */
    long pid(boolean primary) {
        return (primary ? dcs.primary() : dcs.backup()).node().pid();
    }

    /** Kills the primary at once ({@code SIGKILL}): it ships nothing more. */
    void killPrimary() {
        dcs.primary().node().kill();
    }

    /** {@code GET /lost} of the backup: its unfinished keys, each with when its key packet arrived. */
    JsonNode backupUnfinished() {
        return dcs.get(dcs.backup(), "/lost");
    }

    /** {@code POST /promote?lost=true} on the backup: it becomes the primary, its unfinished keys fenced as lost. */
    JsonNode promoteBackup() {
        return dcs.post(dcs.backup(), "/promote?lost=true");
    }

    /** Cuts the replication link: every connection across it is closed and new ones are refused. */
    void cutLink() {
        dcs.link().cut();
    }

    /** Heals a cut replication link. */
    void healLink() {
        dcs.link().heal();
    }

    /** Waits until the primary streams to the backup again; fails after {@code timeout}. */
    void awaitStreaming(Duration timeout) throws InterruptedException {
        dcs.awaitStreaming(timeout);
    }

    /** Fails with both nodes' last log lines if either node has exited. */
    void checkAlive() {
        dcs.checkAlive();
    }

    /** Kills both nodes and closes every link. */
    @Override
    public void close() {
        dcs.close();
        synchronized (this) {
            probes.forEach(WanLink::close);
        }
        children.close();
    }
}
