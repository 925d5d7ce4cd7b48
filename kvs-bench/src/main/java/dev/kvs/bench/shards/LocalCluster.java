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
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.EmbeddedZooKeeper;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * A whole sharded cluster on this machine: one {@link EmbeddedZooKeeper} in this process, the cluster
 * map created in it, and for each shard two node processes, {@code shard-i-a} (DC a, the primary) and
 * {@code shard-i-b} (DC b, its backup), the primary replicating to the backup through a {@link WanLink}
 * in this process. Ports come from one block ({@link LocalPorts}). Every node joins the cluster with a
 * {@code coordination:} section and the run's fresh ZooKeeper credentials (in its environment, not its
 * file). Closing it kills the nodes, then closes the links and ZooKeeper; the {@link ChildProcesses}
 * passed in does the same if the JVM stops first, and each node exits by itself if this process dies
 * ({@link JavaCommand#exitingWithParent}).
 */
public final class LocalCluster implements AutoCloseable {
    /** The most shards: each is two JVMs on this machine. */
    public static final int MAX_SHARDS = 16;

    /** ZooKeeper's tick: it grants sessions of 2 to 20 ticks, so 1 to 10 s. */
    static final int TICK_MS = 500;

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
    private final EmbeddedZooKeeper zookeeper;
    private final List<WanLink> links;
    private final List<TwoDcs> pairs;
    private final List<Node> nodes;
    private final ClusterMap map;
    private final String credentials;
    private boolean closed; // guarded by this

    private LocalCluster(
            Settings settings,
            EmbeddedZooKeeper zookeeper,
            List<WanLink> links,
            List<TwoDcs> pairs,
            List<Node> nodes,
            ClusterMap map,
            String credentials) {
        this.settings = settings;
        this.credentials = credentials;
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
        for (int attempt = 0; attempt < 200; attempt++) {
            LocalPorts ports = new LocalPorts(
                    java.util.concurrent.ThreadLocalRandom.current().nextInt(10_000, 32_000), shards);
            try {
                ports.checkFree();
                return ports.base();
            } catch (IllegalStateException taken) {
                // another block
            }
        }
        throw new IllegalStateException("no free block of " + (7 * shards + 1) + " ports in 10000..32000");
    }

    /** The name of node {@code k}: {@code shard-(k/2)-a} or {@code -b}. */
    static String nodeName(int k) {
        return "shard-" + (k / 2) + "-" + dc(k);
    }

    private static String dc(int k) {
        return k % 2 == 0 ? "a" : "b";
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
        String credentials = "kvs:" + HexFormat.of().formatHex(randomBytes(16));
        writePrivate(dir.resolve("zookeeper.credentials"), credentials + "\n");
        EmbeddedZooKeeper zk;
        try {
            zk = EmbeddedZooKeeper.start(dir.resolve("zookeeper"), ports.zookeeper(), TICK_MS);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot start ZooKeeper on 127.0.0.1:" + ports.zookeeper() + ": " + e.getMessage(), e);
        }
        List<WanLink> links = new ArrayList<>();
        List<NodeProcess> started = new ArrayList<>();
        try {
            ClusterMap map = createMap(zk.connectString(), credentials, s.sessionTimeout(), plan);
            JavaCommand nodeJava =
                    java.withFlags(List.of("-Xmx" + s.nodeHeap())).exitingWithParent();
            String adminToken = NodeYaml.newAdminToken();
            Map<String, String> env = Map.of(CoordinationConfig.CREDENTIALS_ENV, credentials);
            for (int i = 0; i < s.shards(); i++) {
                int a = 2 * i;
                int b = 2 * i + 1;
                links.add(WanLink.builder()
                        .listen(TwoDcs.LOOPBACK, ports.link(i))
                        .target(TwoDcs.LOOPBACK, ports.replication(b))
                        .delay(s.delay())
                        .build());
                NodeYaml yaml = new NodeYaml(s.cluster(), s.mode(), tuning(zk, s, "shard-" + i), adminToken);
                for (int k : new int[] {b, a}) {
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
            LocalCluster cluster = awaitNodes(s, zk, links, started, map, adminToken, credentials);
            children.onClose(cluster::close);
            return cluster;
        } catch (InterruptedException | RuntimeException e) {
            for (NodeProcess n : started) n.kill();
            links.forEach(WanLink::close);
            zk.close();
            throw e;
        }
    }

    /** The nodes' YAML after their ports: a small store, and the cluster's ZooKeeper and this node's shard. */
    private static String tuning(EmbeddedZooKeeper zk, Settings s, String shard) {
        return STORE + "coordination:\n"
                + "  zookeeper: " + zk.connectString() + "\n"
                + "  sessionTimeoutMs: " + s.sessionTimeout().toMillis() + "\n"
                + "  shard: " + shard + "\n";
    }

    private static ClusterMap createMap(String connect, String credentials, Duration session, MapPlan plan)
            throws InterruptedException {
        CuratorFramework client = ZkClients.start(new ZkClients.Settings(connect, session, Optional.of(credentials)));
        try {
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("cannot reach the embedded ZooKeeper at " + connect + " in 10 s");
            }
            return MapInit.create(client, plan).map();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the cluster map in " + connect + ": " + e, e);
        } finally {
            client.close();
        }
    }

    /** Waits for the processes ({@code b, a} per shard, in order), then for the pairs' links and leases. */
    private static LocalCluster awaitNodes(
            Settings s,
            EmbeddedZooKeeper zk,
            List<WanLink> links,
            List<NodeProcess> started,
            ClusterMap map,
            String adminToken,
            String credentials)
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
        return new LocalCluster(s, zk, links, pairs, nodes, map, credentials);
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
        CuratorFramework client = ZkClients.start(
                new ZkClients.Settings(zookeeper.connectString(), settings.sessionTimeout(), Optional.of(credentials)));
        try {
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("cannot reach ZooKeeper at " + zookeeper.connectString() + " in 10 s");
            }
            return new ClusterMapStore(client, new ZkPaths(settings.cluster()))
                    .read()
                    .orElseThrow(() -> new IllegalStateException("ZooKeeper holds no map of " + settings.cluster()))
                    .map();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the map of " + settings.cluster() + ": " + e, e);
        } finally {
            client.close();
        }
    }

    /** Cuts shard {@code i}'s inter-DC replication link (its WAN link in this process); both nodes stay up. */
    public void cutLink(int i) {
        links.get(i).cut();
    }

    /** {@code 127.0.0.1:port} of the embedded ZooKeeper. */
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

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    /** Writes {@code text} to {@code file}, readable by its owner only where the file system says so. */
    static void writePrivate(Path file, String text) {
        try {
            Files.deleteIfExists(file);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(
                        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
