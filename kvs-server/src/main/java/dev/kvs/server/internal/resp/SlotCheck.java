package dev.kvs.server.internal.resp;

import dev.kvs.cluster.HashSlots;
import dev.kvs.server.internal.cluster.ClusterLayout;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

/**
 * The Redis Cluster step of {@link CommandRefusals}, for a command with keys on a clustered node (data
 * commands, and the keyed diagnostics {@code MEMORY USAGE} and {@code KVS.PEEK}): its keys (the
 * positions {@link CommandSpec} gives, as Redis's key specs, a subcommand's included) must hash to one
 * slot ({@code -CROSSSLOT}, checked first, as Redis does), and that slot must be this node's to serve,
 * else {@code -MOVED <slot> <host>:<port>} names the owning shard's primary. A backup serves its
 * shard's slots to reads on a {@code READONLY} connection and sends everything else to its primary, as
 * a Redis replica. Commands without keys pass. Before the node has a layout, no slot is served.
 */
final class SlotCheck {
    static final ErrorRedisMessage CROSSSLOT =
            new ErrorRedisMessage("CROSSSLOT Keys in request don't hash to the same slot");
    /** A key's slot is assigned to no shard: a clustered node that has no layout yet (Redis: no slots). */
    static final ErrorRedisMessage NOT_SERVED = new ErrorRedisMessage("CLUSTERDOWN Hash slot not served");

    private SlotCheck() {}

    /**
     * Why {@code args} may not run on this node of {@code layout}, or {@code null}. With no layout (a
     * clustered node before its first map) no slot is served: a command with keys answers {@link
     * #NOT_SERVED}, as Redis does before checking the other keys' slots.
     */
    static RedisMessage refusal(ClusterLayout layout, Session session, CommandSpec spec, byte[][] args) {
        int first = spec.firstKeyIn(args);
        int last = spec.lastKeyIn(args);
        int step = Math.max(1, spec.keyStep());
        if (first <= 0 || first >= args.length) return null;
        if (layout == null) return NOT_SERVED;
        int slot = HashSlots.slot(args[first]);
        for (int i = first + step; i <= last; i += step) {
            if (HashSlots.slot(args[i]) != slot) return CROSSSLOT;
        }
        String owner = layout.redirect(slot, session.readonly && !spec.has(CommandSpec.WRITE));
        return owner == null ? null : Replies.error("MOVED " + slot + " " + owner);
    }
}
