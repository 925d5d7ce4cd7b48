package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;

/**
 * Reads on a backup, opted into per connection as with Redis Cluster: {@code READONLY} lets this
 * connection's read commands run on a backup, {@code READWRITE} ends that. On a backup, a key whose
 * key packet arrived but whose value has not is fenced exactly as after a promotion ({@code
 * -UNFINISHED}, at once or after waiting per {@code failover.readPolicy}), so a reader never sees a
 * value older than the newest key packet the backup holds. Writes stay refused ({@code -NOTPRIMARY}),
 * and so are reads while a full resync runs (the store may still hold keys the primary deleted).
 *
 * <p>{@code -NOTPRIMARY} names the primary's client address as it advertised it in the replication
 * handshake ({@code -} until a primary has connected).
 */
final class BackupReadCommands {
    private BackupReadCommands() {}

    static void register(CommandTable t) {
        t.add("READONLY", 1, 0, 0, 0, 0, (s, a) -> {
            s.readonly = true;
            return Replies.OK;
        });
        t.add("READWRITE", 1, 0, 0, 0, 0, (s, a) -> {
            s.readonly = false;
            return Replies.OK;
        });
    }

    /**
     * Why a data command may not run on this node, which is not the primary, as an error reply text;
     * null if it may (a read, on a backup, on a {@code READONLY} connection, outside a resync).
     */
    static String refusal(NodeRole role, Session s, boolean write) {
        String primary = primaryAddress(role);
        if (write) return "NOTPRIMARY " + primary + " this node is a backup; write to the primary";
        if (!(role instanceof NodeRole.Backup b)) {
            // a deposed primary: what it holds may be rolled back by failback
            return "NOTPRIMARY " + primary + " this node is a backup; read from the primary";
        }
        if (!s.readonly) {
            return "NOTPRIMARY " + primary
                    + " this node is a backup; read from the primary, or send READONLY to read from the backup";
        }
        if (b.server().resyncing()) {
            return "NOTPRIMARY " + primary + " this backup is resyncing with its primary; read from the primary";
        }
        return null;
    }

    /** The primary's client address as this node knows it, or {@code -}: see {@link RoleMachine#primaryClientAddress()}. */
    static String primaryAddress(NodeRole role) {
        return RoleMachine.primaryClientAddress(role);
    }
}
