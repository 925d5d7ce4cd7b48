package dev.kvs.testing.cluster;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.TestContexts;
import dev.kvs.server.internal.Transport;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.LatestClusterView;
import dev.kvs.server.internal.resp.CommandContext;
import dev.kvs.server.internal.resp.RespServer;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A sharded kvs cluster in-process: one primary per shard (no backups, no replication, no ZooKeeper),
 * each a RESP port on loopback with an ephemeral port that answers as a member of one cluster map
 * (split as {@link ClusterMap#evenly}): {@code -MOVED}, {@code -CROSSSLOT}, {@code CLUSTER SHARDS},
 * {@code SLOTS}, {@code NODES}. Every node's view of the map is static but can be replaced: {@link
 * #moveSlot} gives every node a map in which a slot belongs to another shard, as a finished slot
 * migration would. For cluster-aware clients' tests (kvs-client's SDK) against kvs's own replies.
 *
 * <p>{@code KvsNode} does not take a cluster view yet, so each node is its RESP port over its parts,
 * as kvs-server's RESP tests assemble it ({@link TestContexts}, which this test jar carries for it).
 * Not thread-safe: one test drives it.
 */
public final class ShardedNodes implements AutoCloseable {
    /** The address the nodes listen on. */
    public static final String HOST = "127.0.0.1";

    private final EventLoopGroup boss = Transport.NIO.group(1, "sharded-accept");
    private final EventLoopGroup workers = Transport.NIO.group(2, "sharded-io");
    private final List<KvStore> stores = new ArrayList<>();
    private final List<CommandContext> commands = new ArrayList<>();
    private final List<RespServer> servers = new ArrayList<>();
    private final List<LatestClusterView> views = new ArrayList<>();
    private final int[] ports;
    /** The node (= shard) index owning each slot, as the nodes' views say. */
    private final int[] ownerOfSlot = new int[HashSlots.SLOTS];

    private ShardedNodes(int shards) throws InterruptedException {
        ports = new int[shards];
        ClusterMap even = ClusterMap.evenly(names(shards).stream().map(List::of).toList());
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
            ownerOfSlot[slot] = even.shards().indexOf(even.shardOf(slot));
        }
        // until every port is known, each view names port 1 for every member
        Arrays.fill(ports, 1);
        for (int i = 0; i < shards; i++) {
            NodeConfig config = NodeConfig.builder()
                    .name(name(i))
                    .store(StoreConfig.builder()
                            .maxEntries(50_000)
                            .maxBytes(64L << 20)
                            .build())
                    .build();
            KvStore store = KvStore.builder().config(config.store()).open();
            stores.add(store);
            LatestClusterView view = new LatestClusterView(layout(i));
            views.add(view);
            CommandContext c = TestContexts.commands(TestContexts.primary(config, store, 1, 0), view);
            commands.add(c);
            RespServer server = new RespServer(c);
            servers.add(server);
            ports[i] = server.start(HOST, 0, boss, workers, Transport.NIO);
        }
        publish();
    }

    /**
     * Starts {@code shards} nodes, one per shard, and gives each the map with every node's port.
     *
     * @throws IllegalArgumentException unless {@code shards} is in 1..16
     */
    public static ShardedNodes start(int shards) {
        if (shards < 1 || shards > 16) throw new IllegalArgumentException("shards is not in 1..16: " + shards);
        try {
            return new ShardedNodes(shards);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the nodes", e);
        }
    }

    /** How many nodes (= shards) there are. */
    public int size() {
        return ports.length;
    }

    /** Node {@code node}'s client port. */
    public int port(int node) {
        return ports[node];
    }

    /** Node {@code node}'s {@code host:port}, as {@code -MOVED} names it. */
    public String endpoint(int node) {
        return HOST + ":" + ports[node];
    }

    /** The node whose shard owns {@code key}'s slot in the current map. */
    public int owner(byte[] key) {
        return ownerOfSlot[HashSlots.slot(key)];
    }

    /** True if node {@code node}'s store holds a record of {@code key} (read directly, not over RESP). */
    public boolean holds(int node, byte[] key) {
        return stores.get(node).get(key) != null;
    }

    /**
     * Gives every node a map in which {@code slot} belongs to node {@code to}'s shard; the slot's keys
     * stay where they are (move only an empty slot). Each node answers by the new map from its next
     * command on.
     */
    public void moveSlot(int slot, int to) {
        if (to < 0 || to >= ports.length) throw new IllegalArgumentException("no node " + to);
        int from = ownerOfSlot[slot];
        if (from == to) return;
        for (int other = 0; other < HashSlots.SLOTS; other++) {
            if (other != slot && ownerOfSlot[other] == from) {
                ownerOfSlot[slot] = to;
                publish();
                return;
            }
        }
        throw new IllegalArgumentException("slot " + slot + " is node " + from + "'s last: a shard owns at least one");
    }

    private void publish() {
        for (int i = 0; i < views.size(); i++) views.get(i).update(layout(i));
    }

    /** The current map as node {@code me} answers for it. */
    private ClusterLayout layout(int me) {
        List<Shard> shards = new ArrayList<>();
        Map<String, ClusterMember> members = new HashMap<>();
        for (int i = 0; i < ports.length; i++) {
            shards.add(new Shard("shard-" + i, ranges(i), List.of(name(i)), name(i), 1));
            members.put(name(i), new ClusterMember(nodeId(name(i)), HOST, ports[i]));
        }
        return new ClusterLayout(new ClusterMap(shards), name(me), members);
    }

    private List<SlotRange> ranges(int node) {
        List<SlotRange> out = new ArrayList<>();
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
            if (ownerOfSlot[slot] != node) continue;
            int first = slot;
            while (slot + 1 < HashSlots.SLOTS && ownerOfSlot[slot + 1] == node) slot++;
            out.add(new SlotRange(first, slot));
        }
        return out;
    }

    private static List<String> names(int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(name(i));
        return out;
    }

    private static String name(int node) {
        return "n" + node;
    }

    /** A stable 40-hex node id: the SHA-1 of the node's name. */
    private static String nodeId(String name) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(name.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops every node and its event loops; idempotent enough for a test's cleanup. */
    @Override
    public void close() {
        for (RespServer s : servers) s.close();
        workers.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        for (CommandContext c : commands) c.metrics().close();
        for (KvStore s : stores) s.close();
    }
}
