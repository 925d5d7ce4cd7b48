package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import io.netty.handler.codec.redis.RedisMessage;

/**
 * Why a command may not run now, asked by {@link CommandDispatch} before every command: a wrong
 * number of arguments; no login yet ({@code -NOAUTH}, unless the command is {@link CommandSpec#NOAUTH});
 * a user whose role does not permit the command's flags ({@link CommandSpec#permits}: {@code -NOPERM},
 * counted and written to the {@link AclLog}); a data command on a node that is not the primary ({@link
 * BackupReadCommands#refusal}); on a clustered node, a command whose keys span slots or belong to
 * another node ({@link SlotCheck}: {@code -CROSSSLOT}, {@code -MOVED}); a data command on a coordinated
 * primary whose lease does not hold ({@link RoleMachine#leaseRefusal}); a write on a primary whose writes
 * are fenced. Owns no state; shared by
 * the port's connections.
 */
final class CommandRefusals {
    private final RoleMachine roles;
    private final ClusterView cluster;
    private final ClientStats stats;
    private final AclLog aclLog;

    CommandRefusals(RoleMachine roles, ClusterView cluster, ClientStats stats, AclLog aclLog) {
        this.roles = roles;
        this.cluster = cluster;
        this.stats = stats;
        this.aclLog = aclLog;
    }

    /** Why the command {@code spec} may not run now for {@code session}, or {@code null}. */
    RedisMessage refusal(Session session, CommandSpec spec, byte[][] args) {
        if (!spec.arityOk(args.length)) return Replies.wrongArity(spec.name());
        if (!session.authenticated()) {
            if (!spec.has(CommandSpec.NOAUTH)) return Replies.NOAUTH;
        } else if (!CommandSpec.permits(session.user.role(), spec.flagsFor(args))) {
            stats.aclDeniedCommands.increment();
            aclLog.deniedCommand(
                    spec.permissionName(args), session.user.name(), ConnectionCommands.clientLine(session));
            return Replies.noPermission(spec.permissionName(args));
        }
        return servingRefusal(session, spec, args);
    }

    /**
     * Why this node may not serve the command {@code spec} (already admitted: arity, login, role) now:
     * its keys' slot is served elsewhere ({@link SlotCheck}, for any command with keys); for a data
     * command, this node is not the primary, its lease does not hold, or its writes are fenced. Asked
     * again by {@link KeyGate} when a read that waited for a fenced key resumes: the slot may have moved
     * or the lease lapsed meanwhile.
     */
    RedisMessage servingRefusal(Session session, CommandSpec spec, byte[][] args) {
        ClusterLayout layout = cluster.layout(); // null, at no cost, unless clustering is on
        if (layout != null || cluster.unplaced() != null) { // unplaced: no slot served yet
            RedisMessage elsewhere = SlotCheck.refusal(layout, session, spec, args);
            if (elsewhere != null) return elsewhere;
        }
        if (spec.has(CommandSpec.DATA)) {
            NodeRole role = roles.current();
            if (!(role instanceof NodeRole.Primary p)) {
                String refusal = BackupReadCommands.refusal(role, session, spec.has(CommandSpec.WRITE));
                return refusal != null ? Replies.error(refusal) : null;
            }
            String noLease = roles.leaseRefusal(); // a coordinated primary without its lease
            if (noLease != null) return Replies.error(noLease);
            if (spec.has(CommandSpec.WRITE) && p.writeFence() != null) return Replies.error(p.writeFence());
        }
        return null;
    }
}
