package dev.kvs.bench.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.bench.cluster.NodeAccess;
import dev.kvs.bench.cluster.NodeProcess;
import dev.kvs.bench.cluster.NodeYaml;
import dev.kvs.bench.cluster.RunPki;
import dev.kvs.bench.cluster.TwoDcs;
import dev.kvs.client.ReplicationMode;
import dev.kvs.wan.WanLink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The two DCs of a drill ({@link TwoDcs}): a backup node and a primary node as separate processes. On
 * loopback they are joined by an in-process {@link WanLink} with FIFO queueing. With {@code --netns}
 * each node runs in its own network namespace ({@link NetnsNetwork}) and the primary's peer is the
 * backup's address across the inter-DC veth pair, delayed there by {@code tc netem}, or by a {@code
 * kvs wan} process in the backup's namespace. The nodes start in parallel.
 */
final class DrillCluster implements AutoCloseable {
    private static final Pattern WAN_READY = Pattern.compile("WAN link listening on ");

    /**
     * The nodes' YAML after their mode: memory only, room for a full-speed run of large values, a
     * write timeout short enough that writes stuck behind a cut link fail quickly, and a promoted
     * backup that answers fenced keys at once.
     */
    private static final String TUNING = "store:\n"
            + "  maxBytes: 4GiB\n"
            + "replication:\n"
            + "  maxPendingValueBytes: 3GiB\n"
            + "  writeTimeoutMs: 3000\n"
            + "failover:\n"
            + "  readPolicy: reject\n"
            + "  blockTimeoutMs: 0\n"
            + "  lostAfterMs: 0\n";

    /**
     * How to set the cluster up.
     *
     * @param mode the primary's default mode (clients ask for theirs too)
     * @param delay one-way WAN delay
     * @param bandwidthBitsPerSecond WAN bandwidth per direction, 0 for unlimited
     * @param startTimeout how long a node may take to start and the link to come up
     * @param tls whether the nodes get certificates of a fresh CA ({@link RunPki}) for mutual TLS on
     *     replication and TLS-only client and admin ports
     */
    record Settings(
            ReplicationMode mode, Duration delay, long bandwidthBitsPerSecond, Duration startTimeout, boolean tls) {
        /**
         * The nodes' YAML, with a fresh admin token: the drill promotes the backup over its admin port,
         * which with {@code --netns} is not on loopback.
         */
        NodeYaml yaml() {
            return new NodeYaml("kvs-drill", mode.label(), TUNING, NodeYaml.newAdminToken());
        }
    }

    private final TwoDcs dcs;
    private final NetnsNetwork net;
    private final NodeAccess access;

    private DrillCluster(TwoDcs dcs, NetnsNetwork net, RunPki pki) {
        this.dcs = dcs;
        this.net = net;
        this.access = pki == null ? NodeAccess.PLAIN : new NodeAccess(pki.clientTls(), null, null);
    }

    /** The nodes' names, as their certificates name them. */
    private static final List<String> NODES = List.of("dc-main", "dc-backup");

    /** With {@code s.tls()}: a fresh CA and node certificates in {@code dir/tls} naming {@code hosts}; else null. */
    private static RunPki pki(Settings s, Path dir, List<String> hosts) {
        return s.tls() ? RunPki.create(dir, NODES, hosts) : null;
    }

    /**
     * Starts the backup, the link and the primary on loopback, and waits until the primary streams to
     * the backup.
     *
     * @throws IllegalStateException naming the node and quoting its log if a node does not start
     */
    static DrillCluster start(Settings s, Path dir, JavaCommand java, ChildProcesses children)
            throws InterruptedException {
        LinkSettings link = new LinkSettings(
                s.delay(), s.bandwidthBitsPerSecond(), WanLink.DEFAULT_BUFFER_BYTES, WanLink.Queueing.FIFO);
        RunPki pki = pki(s, dir, List.of(TwoDcs.LOOPBACK));
        TwoDcs dcs = TwoDcs.startOnLoopback(
                new TwoDcs.Settings(s.yaml().withPki(pki), List.of(), link, s.startTimeout()), dir, java, children);
        return new DrillCluster(dcs, null, pki);
    }

    /**
     * Starts the backup, the WAN emulator if {@code wan} says so, and the primary in the namespaces of
     * {@code net} (already built), and waits until the primary streams to the backup. Every node binds
     * all the addresses of its namespace on fixed ports: the namespaces are fresh.
     *
     * @throws IllegalStateException naming the process and quoting its log if one does not start
     */
    static DrillCluster startInNamespaces(
            Settings s, Path dir, JavaCommand java, ChildProcesses children, NetnsNetwork net, NetnsNetwork.Wan wan)
            throws InterruptedException {
        NetnsPlan plan = net.plan();
        String peer = plan.backupLinkAddress() + ":"
                + (wan == NetnsNetwork.Wan.WAN_LINK ? NetnsPlan.WAN_PORT : NetnsPlan.REPL_PORT);
        NodeProcess backup = null;
        NodeProcess primary = null;
        NodeProcess wanProcess = null;
        String any = "0.0.0.0";
        try {
            // clients reach the nodes from another namespace, not on loopback: protected mode would refuse them
            NodeYaml base = s.yaml();
            RunPki pki = pki(
                    s,
                    dir,
                    List.of(
                            plan.mainAddress(),
                            plan.backupAddress(),
                            plan.mainLinkAddress(),
                            plan.backupLinkAddress()));
            NodeYaml yaml = new NodeYaml(
                    base.cluster(), base.mode(), base.tuning() + "protectedMode: false\n", base.adminToken(), pki);
            Path backupConfig = yaml.write(
                    dir,
                    "dc-backup",
                    "backup",
                    any,
                    NetnsPlan.CLIENT_PORT,
                    NetnsPlan.REPL_PORT,
                    NetnsPlan.ADMIN_PORT,
                    null);
            Path primaryConfig = yaml.write(
                    dir,
                    "dc-main",
                    "primary",
                    any,
                    NetnsPlan.CLIENT_PORT,
                    NetnsPlan.REPL_PORT,
                    NetnsPlan.ADMIN_PORT,
                    peer);
            backup = NodeProcess.start(
                    "dc-backup",
                    plan.inNamespace(plan.backupNamespace(), java.kvs(TwoDcs.server(backupConfig, List.of()))),
                    dir.resolve("dc-backup.log"),
                    children);
            if (wan == NetnsNetwork.Wan.WAN_LINK) {
                wanProcess = NodeProcess.start(
                        "kvs wan",
                        plan.inNamespace(
                                plan.backupNamespace(), java.kvs(plan.wanArgs(s.delay(), s.bandwidthBitsPerSecond()))),
                        dir.resolve("wan.log"),
                        children);
            }
            primary = NodeProcess.start(
                    "dc-main",
                    plan.inNamespace(plan.mainNamespace(), java.kvs(TwoDcs.server(primaryConfig, List.of()))),
                    dir.resolve("dc-main.log"),
                    children);
            NodeProcess.Ports b = backup.awaitReady(s.startTimeout());
            NodeProcess.Ports p = primary.awaitReady(s.startTimeout());
            if (wanProcess != null) wanProcess.awaitLine(WAN_READY, s.startTimeout());
            TwoDcs dcs = TwoDcs.of(
                    new TwoDcs.Dc(primary, plan.mainAddress(), p),
                    new TwoDcs.Dc(backup, plan.backupAddress(), b),
                    wanProcess,
                    yaml.adminToken(),
                    pki == null ? null : pki.clientTls());
            dcs.awaitStreaming(s.startTimeout());
            return new DrillCluster(dcs, net, pki);
        } catch (InterruptedException | RuntimeException e) {
            if (primary != null) primary.kill();
            if (wanProcess != null) wanProcess.kill();
            if (backup != null) backup.kill();
            throw e;
        }
    }

    /** How the drill's clients reach the nodes: over TLS trusting the run's CA, or plain. */
    NodeAccess access() {
        return access;
    }

    String primaryEndpoint() {
        return dcs.primary().endpoint();
    }

    String backupEndpoint() {
        return dcs.backup().endpoint();
    }

    /** The disaster: kills the primary or cuts the link (with {@code --netns}: the veth goes down). */
    void disaster(Disaster d) {
        switch (d) {
            case KILL_PRIMARY -> dcs.primary().node().kill();
            case CUT_LINK -> {
                if (net != null) net.cut();
                else dcs.link().cut();
            }
        }
    }

    /** {@code POST /promote?lost=true} on the backup: it becomes the primary, unfinished keys lost. */
    JsonNode promote() {
        return dcs.post(dcs.backup(), "/promote?lost=true");
    }

    /** Kills both nodes and the WAN emulator; the network namespaces are their owner's to remove. */
    @Override
    public void close() {
        dcs.close();
    }
}
