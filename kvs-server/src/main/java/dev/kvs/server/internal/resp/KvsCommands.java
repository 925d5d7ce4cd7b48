package dev.kvs.server.internal.resp;

import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.internal.role.RoleChangeException;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.List;
import java.util.Locale;

/**
 * kvs's own commands, which Redis has not: KVS.MODE (the connection's replication mode), KVS.PROMOTE
 * (failover for operators with only redis-cli), KVS.PEEK (what this node holds for a key, replicated
 * copies included). Reads on a backup ({@code READONLY}) are in {@link BackupReadCommands}.
 */
final class KvsCommands {
    private final CommandContext node;

    KvsCommands(CommandContext node) {
        this.node = node;
    }

    void register(CommandTable t) {
        t.add("KVS.MODE", -1, 0, 0, 0, 0, this::mode);
        t.add("KVS.PROMOTE", -1, CommandSpec.ADMIN, 0, 0, 0, this::promote);
        // diagnostic, on any role: what this node holds for a key (a backup's replicated copy, say)
        t.add("KVS.PEEK", 2, 0, 1, 1, 1, this::peek);
    }

    /**
     * KVS.PROMOTE [LOST] [FORCE]: for operators with only redis-cli; the same as POST /promote (through the
     * cluster map on a node coordinated on ZooKeeper, where FORCE skips the old primary's znode check).
     */
    private RedisMessage promote(Session s, byte[][] a) {
        if (!node.config().admin().respCommands()) {
            return Replies.error("NOPERM KVS.PROMOTE is disabled: use POST /promote on the admin port, or set"
                    + " admin.respCommands: true");
        }
        boolean lost = false;
        boolean force = false;
        for (int i = 1; i < a.length; i++) {
            String arg = Args.upper(a[i]);
            if (arg.equals("LOST") && !lost) {
                lost = true;
            } else if (arg.equals("FORCE") && !force) {
                force = true;
            } else {
                return Replies.SYNTAX;
            }
        }
        try {
            long epoch = node.failover().promoteByOperator(lost, force);
            return new SimpleStringRedisMessage("OK promoted to primary in epoch " + epoch);
        } catch (RoleChangeException e) {
            return Replies.error("ERR " + e.getMessage());
        }
    }

    private RedisMessage mode(Session s, byte[][] a) {
        if (a.length == 1) return Replies.bulk((s.mode != null ? s.mode : node.mode()).label());
        if (a.length != 2) return Replies.wrongArity("KVS.MODE");
        String m = Args.text(a[1]);
        if (m.equalsIgnoreCase("default")) {
            s.mode = null;
            return Replies.OK;
        }
        try {
            s.mode = ReplicationMode.parse(m);
            return Replies.OK;
        } catch (IllegalArgumentException e) {
            return Replies.error("ERR " + e.getMessage());
        }
    }

    private RedisMessage peek(Session s, byte[][] a) {
        StoredValue v = node.store().get(a[1]);
        if (v == null) return Replies.NIL;
        return Replies.array(List.of(
                Replies.bulk(v.state().name().toLowerCase(Locale.ROOT)),
                Replies.bulk(v.txId().toString()),
                Replies.integer(v.header().valueLength()),
                Replies.integer(Integer.toUnsignedLong(v.header().checksum())),
                v.state() == RecordState.COMPLETE ? Replies.bulk(v.value()) : Replies.NIL,
                Replies.integer(v.expireAtMillis())));
    }
}
