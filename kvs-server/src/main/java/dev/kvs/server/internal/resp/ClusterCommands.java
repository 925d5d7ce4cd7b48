package dev.kvs.server.internal.resp;

import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.ClusterView;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Redis's {@code CLUSTER} command, as Redis 7.0.15 answers it: {@code KEYSLOT}, {@code INFO}, {@code
 * MYID}, {@code SLOTS}, {@code SHARDS}, {@code NODES} and {@code HELP}, from the node's {@link
 * ClusterView}. With clustering off every known subcommand answers {@code ERR This instance has cluster
 * support disabled}, as Redis without {@code cluster-enabled} does, after the same unknown-subcommand and
 * arity checks; a clustered node without a layout yet answers as a Redis Cluster node with no slots. Redis's subcommands that change the cluster ({@code MEET},
 * {@code ADDSLOTS}, {@code FAILOVER}, ...) are refused: the map is kept in ZooKeeper.
 *
 * <p>kvs has no cluster bus: {@code CLUSTER NODES} shows bus port 0 and ping times 0, and {@code
 * CLUSTER INFO} no per-type message counts. Shards are listed by their first slot, each primary before
 * its backups; Redis lists them in its node table's order.
 */
final class ClusterCommands {
    static final String DISABLED = "ERR This instance has cluster support disabled";

    /** Redis 7.0.15's CLUSTER subcommands and their arity (COMMAND INFO CLUSTER). */
    private static final Map<String, Integer> ARITY = Map.ofEntries(
            Map.entry("ADDSLOTS", -3),
            Map.entry("ADDSLOTSRANGE", -4),
            Map.entry("BUMPEPOCH", 2),
            Map.entry("COUNT-FAILURE-REPORTS", 3),
            Map.entry("COUNTKEYSINSLOT", 3),
            Map.entry("DELSLOTS", -3),
            Map.entry("DELSLOTSRANGE", -4),
            Map.entry("FAILOVER", -2),
            Map.entry("FLUSHSLOTS", 2),
            Map.entry("FORGET", 3),
            Map.entry("GETKEYSINSLOT", 4),
            Map.entry("HELP", 2),
            Map.entry("INFO", 2),
            Map.entry("KEYSLOT", 3),
            Map.entry("LINKS", 2),
            Map.entry("MEET", -4),
            Map.entry("MYID", 2),
            Map.entry("NODES", 2),
            Map.entry("REPLICAS", 3),
            Map.entry("REPLICATE", 3),
            Map.entry("RESET", -2),
            Map.entry("SAVECONFIG", 2),
            Map.entry("SET-CONFIG-EPOCH", 3),
            Map.entry("SETSLOT", -4),
            Map.entry("SHARDS", 2),
            Map.entry("SLAVES", 3),
            Map.entry("SLOTS", 2));

    /** The subcommands Redis flags {@code admin}: only admin users may run them (refused all the same). */
    private static final List<String> ADMIN = List.of(
            "ADDSLOTS",
            "ADDSLOTSRANGE",
            "BUMPEPOCH",
            "COUNT-FAILURE-REPORTS",
            "DELSLOTS",
            "DELSLOTSRANGE",
            "FAILOVER",
            "FLUSHSLOTS",
            "FORGET",
            "MEET",
            "REPLICAS",
            "REPLICATE",
            "RESET",
            "SAVECONFIG",
            "SET-CONFIG-EPOCH",
            "SETSLOT",
            "SLAVES");

    private static final String[] HELP = {
        "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "INFO",
        "    Return information about the cluster.",
        "KEYSLOT <key>",
        "    Return the hash slot for <key>.",
        "MYID",
        "    Return the node id.",
        "NODES",
        "    Return cluster configuration seen by node. Output format:",
        "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
        "SLOTS",
        "    Return information about slots range mappings. Each range is made of:",
        "    start, end, master and replicas IP addresses, ports and ids",
        "SHARDS",
        "    Return information about slot range mappings and the nodes associated with them.",
        "HELP",
        "    Prints this help.",
    };

    private final ClusterView view;

    ClusterCommands(ClusterView view) {
        this.view = view;
    }

    void register(CommandTable t) {
        t.add("CLUSTER", -2, 0, 0, 0, 0, this::cluster);
        for (String sub : ADMIN) t.addSubcommandFlags("CLUSTER", sub, CommandSpec.ADMIN);
    }

    private RedisMessage cluster(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        Integer arity = ARITY.get(sub);
        if (arity == null) {
            return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try CLUSTER HELP.");
        }
        if (arity >= 0 ? a.length != arity : a.length < -arity) return Replies.wrongArity("cluster|" + sub);
        ClusterLayout layout = view.layout();
        if (layout == null) {
            ClusterView.Unplaced self = view.unplaced();
            return self == null ? Replies.error(DISABLED) : unplaced(sub, a, self);
        }
        return switch (sub) {
            case "KEYSLOT" -> Replies.integer(HashSlots.slot(a[2]));
            case "MYID" -> Replies.bulk(layout.myId());
            case "INFO" -> new TypedReplies.VerbatimReply(info(layout));
            case "SLOTS" -> slots(layout);
            case "SHARDS" -> shards(layout);
            case "NODES" -> new TypedReplies.VerbatimReply(nodes(layout, System.currentTimeMillis()));
            case "HELP" -> help();
            default -> notSupported(sub);
        };
    }

    /**
     * {@code sub} on a clustered node without a layout yet, as Redis 7.0.15 answers on a cluster node with
     * no slots that has met no other node: this node alone, a primary of no slot, epoch 0, its ip not
     * known ({@code ""}).
     */
    private static RedisMessage unplaced(String sub, byte[][] a, ClusterView.Unplaced self) {
        return switch (sub) {
            case "KEYSLOT" -> Replies.integer(HashSlots.slot(a[2]));
            case "MYID" -> Replies.bulk(self.id());
            case "INFO" -> new TypedReplies.VerbatimReply(info("fail", 0, 0, 0, 1, 0, 0, 0));
            case "SLOTS" -> Replies.array(List.of());
            case "SHARDS" ->
                Replies.array(List.of(TypedReplies.map(List.of(
                        Replies.bulk("slots"),
                        Replies.array(List.of()),
                        Replies.bulk("nodes"),
                        Replies.array(List.of(shardsNode(self.id(), self.port(), "", "master", 0, true)))))));
            case "NODES" ->
                new TypedReplies.VerbatimReply(self.id() + " :" + self.port() + "@0 myself,master - 0 0 0 connected\n");
            case "HELP" -> help();
            default -> notSupported(sub);
        };
    }

    private static RedisMessage notSupported(String sub) {
        return Replies.error("ERR CLUSTER " + sub
                + " is not supported: kvs's cluster map is kept in ZooKeeper, not changed through a node");
    }

    /** The map's shards ordered by their first slot. */
    private static List<Shard> bySlot(ClusterLayout layout) {
        List<Shard> out = new ArrayList<>(layout.map().shards());
        out.sort(Comparator.comparingInt(sh -> layout.ranges(sh).get(0).first()));
        return out;
    }

    static String info(ClusterLayout layout) {
        int ok = 0;
        int nodes = 0;
        for (Shard sh : layout.map().shards()) {
            nodes += sh.members().size();
            if (layout.member(sh.primary()).connected()) {
                for (SlotRange r : sh.slots()) ok += r.size();
            }
        }
        return info(
                ok == HashSlots.SLOTS ? "ok" : "fail",
                HashSlots.SLOTS,
                ok,
                HashSlots.SLOTS - ok,
                nodes,
                layout.map().shards().size(),
                layout.currentEpoch(),
                layout.myShard().epoch());
    }

    private static String info(
            String state, int assigned, int ok, int fail, int nodes, int size, long currentEpoch, long myEpoch) {
        StringBuilder b = new StringBuilder(512);
        line(b, "cluster_state", state);
        line(b, "cluster_slots_assigned", assigned);
        line(b, "cluster_slots_ok", ok);
        line(b, "cluster_slots_pfail", 0);
        line(b, "cluster_slots_fail", fail);
        line(b, "cluster_known_nodes", nodes);
        line(b, "cluster_size", size);
        line(b, "cluster_current_epoch", currentEpoch);
        line(b, "cluster_my_epoch", myEpoch);
        line(b, "cluster_stats_messages_sent", 0);
        line(b, "cluster_stats_messages_received", 0);
        line(b, "total_cluster_links_buffer_limit_exceeded", 0);
        return b.toString();
    }

    private static void line(StringBuilder b, String key, Object value) {
        b.append(key).append(':').append(value).append("\r\n");
    }

    /** Per slot range: start, end, the primary, then the backups that are up; each [ip, port, id, {}]. */
    private static RedisMessage slots(ClusterLayout layout) {
        record Owned(SlotRange range, Shard shard) {}
        List<Owned> owned = new ArrayList<>();
        for (Shard sh : layout.map().shards()) {
            for (SlotRange r : layout.ranges(sh)) owned.add(new Owned(r, sh));
        }
        owned.sort(Comparator.comparing(Owned::range));
        List<RedisMessage> out = new ArrayList<>();
        for (Owned o : owned) {
            List<RedisMessage> entry = new ArrayList<>();
            entry.add(Replies.integer(o.range().first()));
            entry.add(Replies.integer(o.range().last()));
            entry.add(slotsNode(layout.member(o.shard().primary())));
            for (String b : o.shard().backups()) {
                ClusterMember m = layout.member(b);
                if (m.connected()) entry.add(slotsNode(m));
            }
            out.add(Replies.array(entry));
        }
        return Replies.array(out);
    }

    private static RedisMessage slotsNode(ClusterMember m) {
        return Replies.array(List.of(
                Replies.bulk(m.host()), Replies.integer(m.port()), Replies.bulk(m.id()), Replies.array(List.of())));
    }

    /**
     * Per shard: {@code slots} (start, end pairs) and {@code nodes}, each a map as Redis 7.0.15 writes it
     * (a flat array in RESP2). {@code INFO} and {@code NODES} are verbatim strings in RESP3.
     */
    private static RedisMessage shards(ClusterLayout layout) {
        List<RedisMessage> out = new ArrayList<>();
        for (Shard sh : bySlot(layout)) {
            List<RedisMessage> slots = new ArrayList<>();
            for (SlotRange r : layout.ranges(sh)) {
                slots.add(Replies.integer(r.first()));
                slots.add(Replies.integer(r.last()));
            }
            List<RedisMessage> nodes = new ArrayList<>();
            nodes.add(shardsNode(layout.member(sh.primary()), "master"));
            for (String b : sh.backups()) nodes.add(shardsNode(layout.member(b), "replica"));
            out.add(TypedReplies.map(
                    List.of(Replies.bulk("slots"), Replies.array(slots), Replies.bulk("nodes"), Replies.array(nodes))));
        }
        return Replies.array(out);
    }

    private static RedisMessage shardsNode(ClusterMember m, String role) {
        return shardsNode(m.id(), m.port(), m.host(), role, m.replicationOffset(), m.connected());
    }

    private static RedisMessage shardsNode(String id, int port, String host, String role, long offset, boolean up) {
        return TypedReplies.map(List.of(
                Replies.bulk("id"),
                Replies.bulk(id),
                Replies.bulk("port"),
                Replies.integer(port),
                Replies.bulk("ip"),
                Replies.bulk(host),
                Replies.bulk("endpoint"),
                Replies.bulk(host),
                Replies.bulk("role"),
                Replies.bulk(role),
                Replies.bulk("replication-offset"),
                Replies.integer(offset),
                Replies.bulk("health"),
                Replies.bulk(up ? "online" : "fail")));
    }

    /**
     * One line per member: {@code <id> <ip:port@cport> <flags> <master> <ping-sent> <pong-recv>
     * <config-epoch> <link-state> <slot> ...}; a backup's epoch is its shard's, as a Redis replica's is its
     * master's config epoch.
     */
    static String nodes(ClusterLayout layout, long nowMillis) {
        StringBuilder b = new StringBuilder(256);
        for (Shard sh : bySlot(layout)) {
            ClusterMember primary = layout.member(sh.primary());
            for (String name : sh.members()) {
                ClusterMember m = layout.member(name);
                boolean isPrimary = name.equals(sh.primary());
                boolean myself = name.equals(layout.me());
                boolean up = myself || m.connected();
                b.append(m.id()).append(' ').append(m.address()).append("@0 ");
                if (myself) b.append("myself,");
                b.append(isPrimary ? "master" : "slave");
                if (!up) b.append(",fail");
                b.append(' ').append(isPrimary ? "-" : primary.id());
                b.append(" 0 ").append(myself || !up ? 0 : nowMillis);
                b.append(' ').append(sh.epoch()).append(' ').append(up ? "connected" : "disconnected");
                if (isPrimary) {
                    for (SlotRange r : layout.ranges(sh)) b.append(' ').append(r);
                }
                b.append('\n');
            }
        }
        return b.toString();
    }

    private static RedisMessage help() {
        List<RedisMessage> out = new ArrayList<>();
        for (String line : HELP) out.add(new SimpleStringRedisMessage(line));
        return Replies.array(out);
    }
}
