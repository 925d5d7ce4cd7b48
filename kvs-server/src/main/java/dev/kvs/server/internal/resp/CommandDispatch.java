package dev.kvs.server.internal.resp;

import dev.kvs.core.KvsException;
import dev.kvs.server.internal.NodeMetrics;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;

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

    /** The clock commands are timed with ({@link System#nanoTime}, or a test's). */
    private final LongSupplier clock;

    /**
     * The clock reading at which the open stretch began, or 0 if none is open: a run of one command in one
     * read, timed as a whole ({@link #endStretch}).
     */
    private long stretchStart;

    /**
     * The counters of the command counted last, whose {@link #pendingCalls} and {@link #pendingNanos}
     * are not added to them (nor the calls to the node's processed commands) yet, or null: a pipeline of
     * one command adds to the shared counters once per read batch, not three times per command.
     */
    private CommandCounters pending;

    private long pendingCalls;
    private long pendingNanos;

    /** @param clock what commands are timed with, in nanoseconds */
    CommandDispatch(
            CommandTable table,
            CommandRefusals refusals,
            TransactionCommands transactions,
            ScriptCommands scripts,
            ExecBarrier barrier,
            ClientStats stats,
            NodeMetrics metrics,
            LongSupplier clock) {
        this.clock = clock;
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
            long start = clock.getAsLong();
            RedisMessage result = transactions.exec(session, this::executeTimed);
            count(spec, clock.getAsLong() - start); // last: EXEC's reply is EXEC's, not its last command's
            return result;
        }
        if (ScriptCommands.runsScript(spec)) {
            publishCounts(); // the script may read them (INFO) on its own thread
            RedisMessage result = scripts.start(session, spec, args);
            count(spec, 0); // its time is the scripts' thread's
            return result;
        }
        if (!spec.has(CommandSpec.DATA)) return execute(session, spec, args);
        Lock shared = barrier.enter(scripts::busy);
        if (shared == null) {
            spec.counters().rejected.increment();
            return scripts.busyReply(); // a script ran past busy-reply-threshold while this one waited
        }
        try {
            return execute(session, spec, args);
        } finally {
            shared.unlock();
        }
    }

    /**
     * Runs an admitted command and counts it, its time in the open stretch: the commands of one kind that
     * follow each other in one read are timed together, two clock readings for the run (at its first
     * command, and at {@link #endStretch}: the end of the read, or the next command of another kind)
     * instead of one or two per command. A clock reading cost about a tenth of a short command's time on
     * the machine measured (issue 36). The run's time includes each command's reply being queued.
     */
    private RedisMessage execute(Session session, CommandSpec spec, byte[][] args) {
        openStretch(spec);
        RedisMessage result = run(session, spec, args);
        count(spec, 0);
        return result;
    }

    /**
     * Runs {@code n} commands of one read as one, through {@code spec}'s {@link RunCommand}: each of
     * {@code run[0..n)} names the data command {@code spec} on one key, in the form its run takes. Answers
     * their replies, counted as {@code n} calls of {@code spec} in the open stretch; or {@code null} if
     * nothing ran, and each must be dispatched alone: in a transaction or subscribe mode, while a script
     * is busy, when the connection may not run the command, when this node may not serve it now, or when
     * the run declined. A refusal that counts and logs (a user's role) is met only alone, once a command.
     */
    RedisMessage[] dispatchRun(Session session, CommandSpec spec, byte[][][] run, int n) {
        executed = null;
        if (session.transaction != null
                || session.inSubscribeMode()
                || !session.authenticated()
                || !CommandSpec.permits(session.user.role(), spec.flagsFor(run[0]))
                || scripts.busy()
                || refusals.refusal(session, spec, run[0]) != null) return null;
        Lock shared = barrier.enter(scripts::busy);
        if (shared == null) return null;
        try {
            openStretch(spec);
            RedisMessage[] replies = spec.run().execute(session, run, n);
            if (replies != null) count(spec, 0, n);
            return replies;
        } finally {
            shared.unlock();
        }
    }

    /** Opens a stretch for a data command of {@code spec}, unless one of its kind is open ({@link #execute}). */
    private void openStretch(CommandSpec spec) {
        if (pending != null) {
            if (pending != spec.counters()) {
                publishCounts(); // the run of another command ends here
            } else if (!spec.has(CommandSpec.DATA)) {
                // a command other than a data command may read the counters (INFO): it sees every one
                // before it, and a run of it (PING) goes on without another clock reading
                publishPending();
            }
        }
        if (stretchStart == 0) stretchStart = clock.getAsLong();
    }

    /** Runs an admitted command of an {@code EXEC} and counts it with its own time. */
    private RedisMessage executeTimed(Session session, CommandSpec spec, byte[][] args) {
        if (pending != null && pending != spec.counters()) publishCounts();
        long start = clock.getAsLong();
        RedisMessage result = run(session, spec, args);
        count(spec, clock.getAsLong() - start);
        return result;
    }

    private RedisMessage run(Session session, CommandSpec spec, byte[][] args) {
        RedisMessage result;
        try {
            result = spec.command().execute(session, args);
        } catch (KvsException e) {
            result = Replies.storeError(e);
        }
        if (result == Replies.WRONGPASS) stats.aclDeniedAuth.increment();
        return result;
    }

    /**
     * Ends the open stretch, if any: its time goes to the command counted last. The connection calls it at
     * the end of each read it handled, so the time a connection waits for its next read is nobody's.
     */
    void endStretch() {
        if (stretchStart == 0) return;
        pendingNanos += clock.getAsLong() - stretchStart;
        stretchStart = 0;
    }

    private void count(CommandSpec spec, long nanos) {
        count(spec, nanos, 1);
    }

    private void count(CommandSpec spec, long nanos, int calls) {
        CommandCounters c = spec.counters();
        if (c != pending) {
            publishPending(); // the open stretch, if any, is this command's
            pending = c;
        }
        pendingCalls += calls;
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
        endStretch();
        publishPending();
    }

    private void publishPending() {
        CommandCounters c = pending;
        if (c == null) { // nothing counted (a command that threw): its time is nobody's
            pendingNanos = 0;
            return;
        }
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
