package dev.kvs.server.internal.resp;

import dev.kvs.core.KvsException;
import dev.kvs.server.internal.NodeMetrics;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;

/**
 * Runs the command a request names, or says why not: looks it up in the {@link CommandTable}, asks
 * {@link CommandRefusals}, runs it (a store failure a client can act on becomes its error reply), hands
 * a write's order to the session for {@code WAIT}, and counts it ({@code INFO commandstats}, the
 * per-command metrics). Inside {@code MULTI} it queues what it admitted instead, and runs {@code
 * EXEC} through {@link TransactionCommands}; a data command passes the {@link ExecBarrier} shared, so
 * that no command runs while an EXEC does. A script ({@code EVAL}...) is started on the scripts' thread
 * by {@link ScriptCommands}; while one has run past {@code busy-reply-threshold}, commands but a few are
 * answered {@code BUSY}. Owns which command it ran last. One per connection, confined to its event loop.
 */
final class CommandDispatch {
    private final CommandTable table;
    private final CommandRefusals refusals;
    private final TransactionCommands transactions;
    private final ScriptCommands scripts;
    /** Data commands pass it shared; an EXEC runs alone in it. */
    private final ExecBarrier barrier;

    private final ClientStats stats;
    private final NodeMetrics metrics;

    /**
     * The counters of the command {@link #dispatch} last ran, or {@code null} if it ran none (it was
     * rejected): which command an error reply failed.
     */
    private CommandCounters executed;

    /**
     * The {@link System#nanoTime} reading that ended the last command {@link #execute} ran, or 0: where
     * the clock of a command that {@linkplain #dispatch(Session, byte[][], boolean) follows} it starts.
     */
    private long lastEnd;

    /**
     * The counters of the command counted last, whose {@link #pendingCalls} and {@link #pendingNanos}
     * are not added to them (nor the calls to the node's processed commands) yet, or null: a pipeline of
     * one command adds to the shared counters once per read batch, not three times per command.
     */
    private CommandCounters pending;

    private long pendingCalls;
    private long pendingNanos;

    CommandDispatch(
            CommandTable table,
            CommandRefusals refusals,
            TransactionCommands transactions,
            ScriptCommands scripts,
            ExecBarrier barrier,
            ClientStats stats,
            NodeMetrics metrics) {
        this.table = table;
        this.transactions = transactions;
        this.scripts = scripts;
        this.barrier = barrier;
        this.refusals = refusals;
        this.stats = stats;
        this.metrics = metrics;
    }

    /** The counters of the command {@link #dispatch} last ran, or {@code null} if it was refused. */
    CommandCounters executed() {
        return executed;
    }

    /**
     * Runs the command {@code args} names for {@code session}, or says why not; sets {@link #executed}.
     * Inside {@code MULTI} an admitted command is queued instead ({@link TransactionCommands}), and a
     * refused one makes the transaction's {@code EXEC} fail.
     */
    RedisMessage dispatch(Session session, byte[][] args) {
        return dispatch(session, args, false);
    }

    /**
     * As {@link #dispatch(Session, byte[][])}; {@code follows} says that this command comes right after
     * the one run before it, in the same read batch of the connection, with only that one's reply
     * queued in between: its time is then counted from the clock reading that ended the last command
     * (one clock reading per command instead of two, in a pipeline).
     */
    RedisMessage dispatch(Session session, byte[][] args, boolean follows) {
        long from = follows ? lastEnd : 0;
        lastEnd = 0;
        executed = null;
        CommandSpec spec = table.lookup(args[0]);
        Transaction tx = session.transaction;
        if (spec == null) {
            if (tx != null) tx.refuse();
            return unknown(args);
        }
        RedisMessage refusal = refusals.refusal(session, spec, args);
        if (refusal != null) {
            if (tx != null) tx.refuse();
            spec.counters().rejected.increment();
            if (spec.command() != transactions.exec) return refusal;
            session.transaction = null; // EXEC refused ends the transaction, as Redis
            session.watched = null;
            return TransactionCommands.abortedBy(refusal);
        }
        if (session.inSubscribeMode() && !PubSubCommands.allowedInSubscribeMode(spec)) {
            spec.counters().rejected.increment();
            return PubSubCommands.notInSubscribeMode(spec);
        }
        if (scripts.busy() && !ScriptCommands.allowedWhileBusy(spec, args)) {
            spec.counters().rejected.increment();
            RedisMessage busy = scripts.busyReply();
            if (tx == null) return busy;
            tx.refuse();
            if (spec.command() != transactions.exec) return busy;
            session.transaction = null; // EXEC refused ends the transaction, as Redis
            session.watched = null;
            return TransactionCommands.abortedBy(busy);
        }
        if (tx != null && !TransactionCommands.runsAtOnce(spec)) return TransactionCommands.queue(session, spec, args);
        if (spec.command() == transactions.exec) {
            publishCounts();
            long start = System.nanoTime();
            RedisMessage result = transactions.exec(session, this::execute);
            count(spec, System.nanoTime() - start); // last: EXEC's reply is EXEC's, not its last command's
            lastEnd = 0;
            return result;
        }
        if (ScriptCommands.runsScript(spec)) {
            publishCounts(); // the script may read them (INFO) on its own thread
            RedisMessage result = scripts.start(session, spec, args);
            count(spec, 0); // its time is the scripts' thread's
            return result;
        }
        if (!spec.has(CommandSpec.DATA)) return execute(session, spec, args, from);
        Lock shared = barrier.enter(scripts::busy);
        if (shared == null) {
            spec.counters().rejected.increment();
            return scripts.busyReply(); // a script ran past busy-reply-threshold while this one waited
        }
        try {
            return execute(session, spec, args, from);
        } finally {
            shared.unlock();
        }
    }

    /** Runs an admitted command and counts it; also each command an {@code EXEC} runs. */
    private RedisMessage execute(Session session, CommandSpec spec, byte[][] args) {
        return execute(session, spec, args, 0);
    }

    /**
     * Runs an admitted command and counts its time from {@code from} (a {@link System#nanoTime} reading
     * at most the command's start, from the end of the command before it), or from now if 0.
     */
    private RedisMessage execute(Session session, CommandSpec spec, byte[][] args, long from) {
        // a command other than a data command may read the counters (INFO): it sees every one before it
        if (pending != null && (pending != spec.counters() || !spec.has(CommandSpec.DATA))) publishCounts();
        long start = from != 0 ? from : System.nanoTime();
        RedisMessage result;
        try {
            result = spec.command().execute(session, args);
        } catch (KvsException e) {
            result = Replies.storeError(e);
        }
        long end = System.nanoTime();
        count(spec, end - start);
        lastEnd = end;
        if (result == Replies.WRONGPASS) stats.aclDeniedAuth.increment();
        return result;
    }

    private void count(CommandSpec spec, long nanos) {
        CommandCounters c = spec.counters();
        if (c != pending) {
            publishCounts();
            pending = c;
        }
        pendingCalls++;
        pendingNanos += nanos;
        executed = c;
        if (!c.exposed) {
            metrics.exposeCommand(spec.name(), c, x -> x.calls.sum(), x -> x.nanos.sum());
            c.exposed = true;
        }
    }

    /**
     * Adds the calls and time counted since the last call to the shared counters ({@code INFO
     * commandstats}, the metrics, {@code total_commands_processed}). The connection calls it at the end
     * of every read batch, before its replies are flushed, and after a command it ran outside one; a
     * command reading the counters on this connection publishes first.
     */
    void publishCounts() {
        CommandCounters c = pending;
        if (c == null) return;
        pending = null;
        c.calls.add(pendingCalls);
        c.nanos.add(pendingNanos);
        stats.commandsProcessed.add(pendingCalls);
        pendingCalls = 0;
        pendingNanos = 0;
    }

    private static RedisMessage unknown(byte[][] args) {
        StringBuilder b = new StringBuilder("ERR unknown command '")
                .append(printable(args[0]))
                .append("', with args beginning with: ");
        for (int i = 1; i < args.length && i < 4; i++)
            b.append('\'').append(printable(args[i])).append("' ");
        return Replies.error(b.toString()); // with Redis's trailing space
    }

    private static String printable(byte[] bytes) {
        String s = new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.UTF_8);
        return s.replaceAll("[\\p{Cntrl}]", "?");
    }
}
