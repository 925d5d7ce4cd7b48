package dev.kvs.client.internal;

import dev.kvs.client.KvsClientException;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.SlotRange;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster's shards as a {@code CLUSTER SHARDS} reply (Redis 7) describes them: for each shard
 * that serves slots, its slot ranges and its nodes' client addresses, the primary ({@code role
 * master}) first, then its replicas, healthy ones ({@code health online}) before the others. The
 * client treats each shard as a pair of today: the primary, then the replica as its backup.
 * Immutable.
 *
 * @param shards the shards that serve at least one slot, in the reply's order
 */
record Topology(List<ShardNodes> shards) {

    /** One shard: the slots it serves and its nodes, primary first. */
    record ShardNodes(List<SlotRange> slots, List<Endpoint> nodes) {}

    Topology {
        shards = List.copyOf(shards);
    }

    /** How many slots some shard serves (16,384 when the cluster has no hole). */
    int slotsCovered() {
        int n = 0;
        for (ShardNodes s : shards) {
            for (SlotRange r : s.slots()) n += r.size();
        }
        return n;
    }

    /**
     * The decoder of a {@code CLUSTER SHARDS} reply.
     *
     * @param tls whether the client speaks TLS: a node's {@code tls-port} is then preferred to its
     *     {@code port}
     */
    static ReplyDecoder<Topology> decoder(boolean tls) {
        return (command, reply) -> parse(reply, tls);
    }

    /**
     * Parses a {@code CLUSTER SHARDS} reply (RESP2: each map a flat array of name, value, ...).
     * Unknown fields are ignored; a node's address is its {@code endpoint} unless that is empty or
     * {@code ?} (Redis's "unknown"), then its {@code ip}.
     *
     * @throws KvsClientException if the reply is not that shape, a slot is out of range, or a slot is
     *     in two shards
     */
    static Topology parse(RedisMessage reply, boolean tls) {
        List<RedisMessage> shardReplies = array(reply, "the reply");
        List<ShardNodes> shards = new ArrayList<>();
        boolean[] seen = new boolean[HashSlots.SLOTS];
        for (RedisMessage shardReply : shardReplies) {
            Map<String, RedisMessage> shard = map(shardReply, "a shard");
            List<SlotRange> ranges = slots(shard.get("slots"), seen);
            if (ranges.isEmpty()) continue; // a primary without slots serves no key
            List<Endpoint> primaries = new ArrayList<>();
            List<Endpoint> online = new ArrayList<>();
            List<Endpoint> others = new ArrayList<>();
            for (RedisMessage nodeReply : array(shard.get("nodes"), "a shard's nodes")) {
                Map<String, RedisMessage> node = map(nodeReply, "a node");
                Endpoint e = address(node, tls);
                if (e == null) continue;
                if ("master".equals(text(node.get("role")))) {
                    primaries.add(e);
                } else if ("online".equals(text(node.get("health")))) {
                    online.add(e);
                } else {
                    others.add(e);
                }
            }
            List<Endpoint> nodes = new ArrayList<>(primaries);
            nodes.addAll(online);
            nodes.addAll(others);
            if (!nodes.isEmpty()) shards.add(new ShardNodes(List.copyOf(ranges), List.copyOf(nodes)));
        }
        return new Topology(shards);
    }

    private static List<SlotRange> slots(RedisMessage slotsReply, boolean[] seen) {
        List<RedisMessage> bounds = array(slotsReply, "a shard's slots");
        if (bounds.size() % 2 != 0) throw malformed("a shard's slots are not start,end pairs: " + bounds.size());
        List<SlotRange> ranges = new ArrayList<>(bounds.size() / 2);
        for (int i = 0; i < bounds.size(); i += 2) {
            long first = integer(bounds.get(i));
            long last = integer(bounds.get(i + 1));
            if (first < 0 || last >= HashSlots.SLOTS || first > last)
                throw malformed("slot range is not in 0..16383: " + first + "-" + last);
            for (int s = (int) first; s <= last; s++) {
                if (seen[s]) throw malformed("slot " + s + " is served by two shards");
                seen[s] = true;
            }
            ranges.add(new SlotRange((int) first, (int) last));
        }
        return ranges;
    }

    private static Endpoint address(Map<String, RedisMessage> node, boolean tls) {
        String host = text(node.get("endpoint"));
        if (host == null || host.isEmpty() || host.equals("?")) host = text(node.get("ip"));
        if (host == null || host.isEmpty() || host.equals("?")) return null;
        long plain = node.containsKey("port") ? integer(node.get("port")) : 0;
        long secure = node.containsKey("tls-port") ? integer(node.get("tls-port")) : 0;
        long port = tls && secure > 0 ? secure : plain > 0 ? plain : secure;
        if (port < 1 || port > 65535) return null;
        return new Endpoint(host, (int) port);
    }

    private static List<RedisMessage> array(RedisMessage m, String what) {
        if (m instanceof ArrayRedisMessage a && !a.isNull()) return a.children();
        throw malformed(what + " is not an array");
    }

    private static Map<String, RedisMessage> map(RedisMessage m, String what) {
        List<RedisMessage> flat = array(m, what);
        if (flat.size() % 2 != 0) throw malformed(what + " is not a map: " + flat.size() + " elements");
        Map<String, RedisMessage> out = new HashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            String name = text(flat.get(i));
            if (name == null) throw malformed(what + " has a field name that is not a string");
            out.put(name, flat.get(i + 1));
        }
        return out;
    }

    private static String text(RedisMessage m) {
        if (m instanceof FullBulkStringRedisMessage b && !b.isNull())
            return b.content().toString(StandardCharsets.UTF_8);
        if (m instanceof SimpleStringRedisMessage s) return s.content();
        return null;
    }

    private static long integer(RedisMessage m) {
        if (m instanceof IntegerRedisMessage i) return i.value();
        String t = text(m);
        try {
            if (t != null) return Long.parseLong(t);
        } catch (NumberFormatException e) {
            // below
        }
        throw malformed("expected an integer");
    }

    private static KvsClientException malformed(String why) {
        return new KvsClientException("unexpected reply to CLUSTER SHARDS: " + why);
    }
}
