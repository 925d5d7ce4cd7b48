package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The commands one connection has read but not run yet, in order; empty normally. They wait behind a
 * write that waits for replication room, behind a script the connection runs, or for the client's
 * queued replies to drain; reading pauses meanwhile. Owns the held commands, the wait for room (retried every millisecond, never blocking the
 * event loop, refused with BUSY once the write timeout has passed, or run at once to be refused with
 * CLUSTERDOWN if the primary's lease lapses meanwhile) and the deferred resumption of reading. Confined to the connection's event loop.
 */
final class HeldCommands {
    private final RespHandler connection;
    private final RoleMachine roles;
    private final CommandTable table;

    private final ArrayDeque<RespCommand> held = new ArrayDeque<>();

    private long holdDeadlineNanos;
    /** When the write at the head of {@link #held} began to wait for room; 0 if it does not. */
    private long roomWaitSinceNanos;

    private boolean roomRetryScheduled;
    private boolean resumeScheduled;
    private boolean runningHeld;

    /** @param connection runs the held commands and writes their replies */
    HeldCommands(RespHandler connection, RoleMachine roles, CommandTable table) {
        this.connection = connection;
        this.roles = roles;
        this.table = table;
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    /** Holds {@code command} behind those held already (or behind the client's unread replies). */
    void add(RespCommand command) {
        held.add(command);
    }

    /** True while a write waits for room and is retried: the connection is not idle. */
    boolean retryScheduled() {
        return roomRetryScheduled;
    }

    /**
     * A write finding replication's bounds full is held, with everything after it on this connection,
     * and reading pauses; it is retried every millisecond, never blocking the event loop, and refused
     * with BUSY once the write timeout has passed. Its arguments' bytes stand for its values' (the bound
     * in time holds large values before small ones).
     */
    boolean mustWaitForRoom(RespCommand command) {
        Session session = connection.session();
        if (!session.authenticated()
                || !(roles.current() instanceof NodeRole.Primary p)
                || roles.leaseRefusal() != null // a primary without its lease refuses at once: no use waiting
                || p.writes().hasRoom(argumentBytes(command))) return false;
        CommandSpec spec = table.lookup(command.args()[0]);
        if (spec == null) return false;
        // in MULTI a write is only queued: the EXEC that runs writes waits for room, for all of them
        Transaction tx = session.transaction;
        if (tx != null) return TransactionCommands.isExec(spec) && tx.writes();
        return spec.has(CommandSpec.WRITE)
                && CommandSpec.permits(session.user.role(), spec.flags()); // else NOPERM at once
    }

    private static long argumentBytes(RespCommand command) {
        byte[][] args = command.args();
        long n = command.staged() == null ? 0 : command.staged().stage().length();
        for (int i = 1; i < args.length; i++) n += args[i].length;
        return n;
    }

    /** How long a write may wait for replication room (0 unless this node is a replicating primary). */
    private long writeTimeoutMillis() {
        return roles.current() instanceof NodeRole.Primary p ? p.writes().writeTimeoutMillis() : 0;
    }

    void holdForRoom(ChannelHandlerContext ctx, RespCommand command) {
        held.addFirst(command);
        roomWaitSinceNanos = System.nanoTime();
        holdDeadlineNanos = roomWaitSinceNanos + writeTimeoutMillis() * 1_000_000;
        ctx.channel().config().setAutoRead(false);
        scheduleRoomRetry(ctx);
    }

    /** The held write at the head stops waiting for room (it runs, or is refused): replication counts the wait. */
    private void roomWaited() {
        if (roomWaitSinceNanos == 0) return;
        long waited = System.nanoTime() - roomWaitSinceNanos;
        roomWaitSinceNanos = 0;
        if (roles.current() instanceof NodeRole.Primary p) p.writes().heldForRoom(waited);
    }

    private void scheduleRoomRetry(ChannelHandlerContext ctx) {
        if (roomRetryScheduled) return;
        roomRetryScheduled = true;
        ctx.executor()
                .schedule(
                        () -> {
                            roomRetryScheduled = false;
                            runHeld(ctx);
                        },
                        1,
                        TimeUnit.MILLISECONDS);
    }

    /**
     * Runs the held commands in order until one must wait again: for replication room (retried in a
     * millisecond), or for the client's replies to drain (resumed by the reply queue or by {@link
     * RespHandler#channelWritabilityChanged}). Reading resumes once none is left.
     */
    private void runHeld(ChannelHandlerContext ctx) {
        if (runningHeld) return; // called back from inside a flush: the outer call goes on
        if (!ctx.channel().isActive() || connection.closing()) {
            discard();
            return;
        }
        runningHeld = true;
        try {
            runHeldInOrder(ctx);
        } finally {
            runningHeld = false;
        }
    }

    private void runHeldInOrder(ChannelHandlerContext ctx) {
        SessionLimits limits = connection.limits();
        ReplyQueue replies = connection.replies();
        while (!held.isEmpty()) {
            if (connection.session().script != null) return; // resumed when the script ends
            if (limits.outputFull(ctx)) {
                replies.flushIfWritten(ctx);
                if (limits.outputFull(ctx)) return;
            }
            RespCommand next = held.peek();
            if (next.error() == null && next.args().length > 0 && mustWaitForRoom(next)) {
                if (roomWaitSinceNanos == 0) roomWaitSinceNanos = System.nanoTime(); // behind a refused one
                if (System.nanoTime() < holdDeadlineNanos) {
                    scheduleRoomRetry(ctx);
                    replies.flushIfWritten(ctx);
                    return;
                }
                held.poll().discard();
                roomWaited();
                CommandSpec refused = table.lookup(next.args()[0]);
                if (refused != null) refused.counters().rejected.increment();
                RedisMessage busy = Replies.error("BUSY replication to the backup is behind its bounds for "
                        + writeTimeoutMillis() + " ms; nothing was written");
                Session session = connection.session();
                if (refused != null && TransactionCommands.isExec(refused) && session.transaction != null) {
                    session.transaction = null; // an EXEC refused ends its transaction, as Redis
                    session.watched = null;
                    busy = TransactionCommands.abortedBy(busy);
                }
                replies.reply(ctx, busy, null);
                holdDeadlineNanos = System.nanoTime() + writeTimeoutMillis() * 1_000_000;
                continue;
            }
            roomWaited();
            connection.handle(ctx, held.poll());
            if (connection.closing()) return;
        }
        replies.flushIfWritten(ctx);
        ctx.channel().config().setAutoRead(!connection.session().closeAfterReply && !limits.outputFull(ctx));
    }

    /** Drops the held commands, closing the stages of their staged values. */
    void discard() {
        for (RespCommand c : held) c.discard();
        held.clear();
    }

    /** Forgets the held commands (the connection is being closed over its output limit). */
    void clear() {
        held.clear();
    }

    /**
     * Soon, on the event loop: runs the held commands if their wait may be over, and resumes reading
     * once none is left and the output allows. Deferred so as never to run commands re-entrantly (from
     * inside a flush or a reply); a no-op task is not even queued in the common case.
     */
    void resumeLater(ChannelHandlerContext ctx) {
        if (resumeScheduled || (held.isEmpty() && ctx.channel().config().isAutoRead())) return;
        resumeScheduled = true;
        ctx.executor().execute(() -> {
            resumeScheduled = false;
            if (!held.isEmpty()) {
                if (!roomRetryScheduled) runHeld(ctx);
            } else if (ctx.channel().isActive() && !connection.closing()) {
                ctx.channel()
                        .config()
                        .setAutoRead(!connection.session().closeAfterReply
                                && !connection.limits().outputFull(ctx));
            }
        });
    }
}
