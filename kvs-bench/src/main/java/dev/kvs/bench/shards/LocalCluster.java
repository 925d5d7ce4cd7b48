package dev.kvs.bench.shards;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.NodeProcess;
import dev.kvs.bench.cluster.NodeYaml;
import dev.kvs.bench.cluster.TwoDcs;
import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.wan.WanLink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A whole sharded cluster on this machine: one embedded ZooKeeper in this process, the cluster map
 * created in it, and for each shard two node processes, {@code shard-i-a} (DC a, the primary) and
 * {@code shard-i-b} (DC b, its backup), the primary replicating to the backup through a {@link WanLink}
 * in this process. Each DC's nodes reach ZooKeeper through their DC's own link ({@link LocalZooKeeper}),
 * so a drill can {@linkplain #isolateDc cut a whole DC} off ZooKeeper and off the other DC at once.
 * Ports come from one block ({@link LocalPorts}); the two ZooKeeper links take ephemeral ones. Every
 * node joins the cluster with a {@code coordination:} section (its DC's link, its shard, its DC) and the
 * run's fresh ZooKeeper credentials (in its environment, not its file). Closing it kills the nodes, then
 * closes the links and ZooKeeper; the {@link ChildProcesses} passed in does the same if the JVM stops
 * first, and each node exits by itself if this process dies ({@link JavaCommand#exitingWithParent}).
 */
public final class LocalCluster implements AutoCloseable {
    /** The most shards: each is two JVMs on this machine. */
    public static final int MAX_SHARDS = 16;

    /** ZooKeeper's tick: it grants sessions of 2 to 20 ticks, so 1 to 10 s. */
    static final int TICK_MS = 500;

    /** The two datacenters: {@code a} holds the primaries when the cluster starts, {@code b} the backups. */
    public static final List<String> DCS = List.of("a", "b");

    /** The nodes' store: small, since a machine runs many of them. */
    private static final String STORE = "store:\n  maxEntries: 200000\n  maxBytes: 128MiB\n";

    /**
     * How to run the cluster.
     *
     * @param cluster the cluster's name
     * @param shards how many shards, 1..{@value #MAX_SHARDS}
     * @param basePort the first port of the block ({@link LocalPorts}): the first node's client port
     * @param delay each WAN link's one-way delay
     * @param sessionTimeout the nodes' ZooKeeper session timeout, 1..10 s ({@link #TICK_MS})
     * @param nodeHeap each node's {@code -Xmx}, e.g. {@code 256m}
     * @param startTimeout how long the nodes may take to start, stream and hold their leases
     * @param mode the nodes' default replication mode label ({@code id-first}, {@code sync}, ...)
     */
    public record Settings(
            String cluster,
            int shards,
            int basePort,
            Duration delay,
            Duration sessionTimeout,
            String nodeHeap,
            Duration startTimeout,
            String mode) {
        /** Settings with the nodes replicating id-first, as {@code kvs cluster} runs them. */
        public Settings(
                String cluster,
                int shards,
                int basePort,
                Duration delay,
                Duration sessionTimeout,
                String nodeHeap,
                Duration startTimeout) {
            this(cluster, shards, basePort, delay, sessionTimeout, nodeHeap, startTimeout, "id-first");
        }

        /** @throws IllegalArgumentException quoting the value out of its bounds */
        public Settings {
            if (mode == null || mode.isBlank()) throw new IllegalArgumentException("mode is empty: " + mode);
            new LocalPorts(basePort, shards); // its bounds, with their messages
            MapPlan.even(cluster, shards); // the cluster name's
            if (delay.isNegative() || delay.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("delay is not in 0..60000 ms: " + delay.toMillis());
            }
            long session = sessionTimeout.toMillis();
            if (session < 2 * TICK_MS || session > 20 * TICK_MS) {
                throw new IllegalArgumentException("session timeout is not in " + 2 * TICK_MS + ".." + 20 * TICK_MS
                        + " ms (what the embedded ZooKeeper grants): " + session);
            }
            if (nodeHeap == null || !nodeHeap.matches("[1-9][0-9]*[kKmMgG]")) {
                throw new IllegalArgumentException("node heap is not a -Xmx size like 256m: " + nodeHeap);
            }
        }
    }

    /**
     * One node as it runs.
     *
     * @param name its name, {@code shard-i-a} or {@code shard-i-b}
     * @param shard its shard's id
     * @param dc {@code a} or {@code b}
     * @param role {@code primary} or {@code backup}, as its {@code /status} said when it was ready
     * @param ports its client, replication and admin ports
     * @param id its node id in the map
     * @param slots its shard's slots
     * @param process its process
     */
    public record Node(
            String name,
            String shard,
            String dc,
            String role,
            NodeProcess.Ports ports,
            String id,
            List<SlotRange> slots,
            NodeProcess process) {}

    private final Settings settings;
    private final LocalZooKeeper zookeeper;
    private final List<WanLink> links;
    private final List<TwoDcs> pairs;
    private final List<Node> nodes;
    private final ClusterMap map;
    private boolean closed; // guarded by this

    private LocalCluster(
            Settings settings,
            LocalZooKeeper zookeeper,
            List<WanLink> links,
            List<TwoDcs> pairs,
            List<Node> nodes,
            ClusterMap map) {
        this.settings = settings;
        this.zookeeper = zookeeper;
        this.links = links;
        this.pairs = pairs;
        this.nodes = nodes;
        this.map = map;
    }

    /**
     * The first port of a free block for {@code shards} shards, chosen at random in 10000..32000 (a
     * drill's cluster, which needs no fixed port).
     *
     * @throws IllegalStateException if 200 random blocks were all partly taken
     */
    public static int freeBasePort(int shards) {
        return LocalPorts.freeBlock(shards).base();
    }

    /** The name of node {@code k}: {@code shard-(k/2)-a} or {@code -b}. */
    static String nodeName(int k) {
        return "shard-" + (k / 2) + "-" + dc(k);
    }

    private static String dc(int k) {
        return DCS.get(k % 2);
    }

    /**
     * Starts ZooKeeper, creates the map, starts every node at once and waits until each is up, each
     * primary streams to its backup and holds its lease.
     *
     * @param dir an empty directory for ZooKeeper's data, the nodes' files and their logs
     * @throws IllegalStateException naming the port taken, or the node that did not start (quoting its
     *     log) or not in time; whatever was started is stopped first
     */
    public static LocalCluster start(Settings s, Path dir, JavaCommand java, ChildProcesses children)
            throws InterruptedException {
        LocalPorts ports = new LocalPorts(s.basePort(), s.shards());
        ports.checkFree();
        MapPlan plan = MapPlan.even(s.cluster(), s.shards());
        LocalZooKeeper zk = LocalZooKeeper.start(
                dir.resolve("zookeeper"), ports.zookeeper(), TICK_MS, dir.resolve("zookeeper.credentials"), DCS);
        List<WanLink> links = new ArrayList<>();
        List<NodeProcess> started = new ArrayList<>();
        try {
            ClusterMap map = zk.createMap(s.sessionTimeout(), plan);
            JavaCommand nodeJava =
                    java.withFlags(List.of("-Xmx" + s.nodeHeap())).exitingWithParent();
            String adminToken = NodeYaml.newAdminToken();
            Map<String, String> env = Map.of(CoordinationConfig.CREDENTIALS_ENV, zk.credentials());
            for (int i = 0; i < s.shards(); i++) {
                int a = 2 * i;
                int b = 2 * i + 1;
                links.add(WanLink.builder()
                        .listen(TwoDcs.LOOPBACK, ports.link(i))
                        .target(TwoDcs.LOOPBACK, ports.replication(b))
                        .delay(s.delay())
                        .build());
                for (int k : new int[] {b, a}) {
                    NodeYaml yaml = new NodeYaml(s.cluster(), s.mode(), tuning(zk, s, "shard-" + i, dc(k)), adminToken);
                    String peer = k == a ? TwoDcs.LOOPBACK + ":" + ports.link(i) : null;
                    Path config = yaml.write(
                            dir,
                            nodeName(k),
                            k == a ? "primary" : "backup",
                            TwoDcs.LOOPBACK,
                            ports.client(k),
                            ports.replication(k),
                            ports.admin(k),
                            peer);
                    started.add(NodeProcess.start(
                            nodeName(k),
                            nodeJava.kvs(TwoDcs.server(config, List.of())),
                            env,
                            dir.resolve(nodeName(k) + ".log"),
                            children));
                }
            }
            LocalCluster cluster = awaitNodes(s, zk, links, started, map, adminToken);
            children.onClose(cluster::close);
            return cluster;
        } catch (InterruptedException | RuntimeException e) {
            for (NodeProcess n : started) n.kill();
            links.forEach(WanLink::close);
            zk.close();
            throw e;
        }
    }

    /**
     * The nodes' YAML after their ports: a small store, and the cluster's ZooKeeper as the node's DC
     * reaches it (its DC's link), this node's shard and its DC.
     */
    private static String tuning(LocalZooKeeper zk, Settings s, String shard, String dc) {
        return STORE + "coordination:\n"
                + "  zookeeper: " + zk.connectString(dc) + "\n"
                + "  sessionTimeoutMs: " + s.sessionTimeout().toMillis() + "\n"
                + "  shard: " + shard + "\n"
                + "  dc: " + dc + "\n";
    }

    /** Waits for the processes ({@code b, a} per shard, in order), then for the pairs' links and leases. */
    private static LocalCluster awaitNodes(
            Settings s,
            LocalZooKeeper zk,
            List<WanLink> links,
            List<NodeProcess> started,
            ClusterMap map,
            String adminToken)
            throws InterruptedException {
        long deadline = System.nanoTime() + s.startTimeout().toNanos();
        List<TwoDcs> pairs = new ArrayList<>();
        for (int i = 0; i < s.shards(); i++) {
            NodeProcess backup = started.get(2 * i);
            NodeProcess primary = started.get(2 * i + 1);
            NodeProcess.Ports b = backup.awaitReady(left(deadline));
            NodeProcess.Ports p = primary.awaitReady(left(deadline));
            pairs.add(TwoDcs.of(
                    new TwoDcs.Dc(primary, TwoDcs.LOOPBACK, p),
                    new TwoDcs.Dc(backup, TwoDcs.LOOPBACK, b),
                    null,
                    adminToken,
                    null));
        }
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < s.shards(); i++) {
            TwoDcs pair = pairs.get(i);
            pair.awaitStreaming(left(deadline));
            awaitLease(pair, deadline);
            Shard shard = map.shard("shard-" + i).orElseThrow();
            for (TwoDcs.Dc dc : List.of(pair.primary(), pair.backup())) {
                int k = dc == pair.primary() ? 2 * i : 2 * i + 1;
                JsonNode status = pair.get(dc, "/status");
                nodes.add(new Node(
                        nodeName(k),
                        shard.id(),
                        dc(k),
                        status.path("role").asText(),
                        dc.ports(),
                        status.path("coordination").path("node").asText(),
                        shard.slots(),
                        dc.node()));
            }
        }
        return new LocalCluster(s, zk, links, pairs, nodes, map);
    }

    /**
     * Waits until the pair's primary holds its lease ({@code /status}: {@code coordination.lease.held}).
     *
     * @throws IllegalStateException with the last status seen and the primary's log if not by {@code deadline}
     */
    private static void awaitLease(TwoDcs pair, long deadline) throws InterruptedException {
        JsonNode coordination = null;
        while (System.nanoTime() < deadline) {
            pair.checkAlive();
            coordination = pair.get(pair.primary(), "/status").path("coordination");
            if (coordination.path("lease").path("held").asBoolean()) return;
            // the admin port is the only way to see the lease from outside the node
            TimeUnit.MILLISECONDS.sleep(50);
        }
        NodeProcess p = pair.primary().node();
        throw new IllegalStateException(p.name() + " does not hold its lease in time (coordination: " + coordination
                + "); " + p.log() + " ends with:\n" + p.tail(10));
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** The nodes, shard by shard, each shard's primary first. */
    public List<Node> nodes() {
        return nodes;
    }

    /** The map as created. */
    public ClusterMap map() {
        return map;
    }

    /**
     * The map as ZooKeeper holds it now (a drill reads each shard's epoch before and after a failover).
     *
     * @throws IllegalStateException if ZooKeeper cannot be read in 10 s or holds no map
     */
    public ClusterMap currentMap() throws InterruptedException {
        return zookeeper.readMap(settings.cluster(), settings.sessionTimeout());
    }

    /** Cuts shard {@code i}'s inter-DC replication link (its WAN link in this process); both nodes stay up. */
    public void cutLink(int i) {
        links.get(i).cut();
    }

    /**
     * Cuts DC {@code dc} off ZooKeeper and off the other DC at once, silently: its ZooKeeper link and
     * every shard's inter-DC replication link are {@linkplain WanLink#pause() paused} (connections stay
     * open, nothing is delivered, nothing is reset), as a partition of the DC's network would. The nodes
     * stay up, and this process (the drill's clients) still reaches all of them.
     *
     * @param dc {@code a} or {@code b} ({@link #DCS})
     */
    public void isolateDc(String dc) {
        zookeeper.isolate(dc);
        links.forEach(WanLink::pause);
    }

    /** Ends {@link #isolateDc}: the links deliver again, first what queued in them meanwhile. */
    public void healDc(String dc) {
        links.forEach(WanLink::resume);
        zookeeper.heal(dc);
    }

    /** {@code 127.0.0.1:port} of the embedded ZooKeeper itself (the nodes reach it through their DC's link). */
    public String zookeeper() {
        return zookeeper.connectString();
    }

    /** The settings it runs with. */
    public Settings settings() {
        return settings;
    }

    /** {@code GET path} on {@code node}'s admin port, e.g. {@code /status}. */
    public JsonNode admin(Node node, String path) {
        for (TwoDcs pair : pairs) {
            for (TwoDcs.Dc dc : List.of(pair.primary(), pair.backup())) {
                if (dc.node() == node.process()) return pair.get(dc, path);
            }
        }
        throw new IllegalArgumentException("not a node of this cluster: " + node.name());
    }

    /** Kills every node, then closes the links and ZooKeeper. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        pairs.forEach(TwoDcs::close);
        links.forEach(WanLink::close);
        zookeeper.close();
    }
}
