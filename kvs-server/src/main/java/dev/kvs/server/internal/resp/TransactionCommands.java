package dev.kvs.server.internal.resp;

import dev.kvs.cluster.HashSlots;
import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.write.WriteUnit;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Lock;

/**
 * Redis's transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, with Redis 7.0's replies. Between MULTI
 * and EXEC, {@link CommandDispatch} queues each admitted command ({@link #queue}) into the session's
 * {@link Transaction}; a command refused while queuing makes EXEC answer {@code EXECABORT}. EXEC runs
 * the queued commands alone ({@link ExecBarrier}: atomic for every other client), after checking that
 * no {@link WatchedKeys watched key} was written (else a null array) and that this node may still
 * serve every queued command (else {@code EXECABORT} with the reason, as Redis when its state changed
 * since queuing); its writes are committed to replication together ({@link WriteUnit}). Its reply is
 * the array of the commands' replies, sent once every one is known (a write's may wait for
 * replication). Owns no state of its own; shared by the port's connections.
 */
final class TransactionCommands {
    static final SimpleStringRedisMessage QUEUED = new SimpleStringRedisMessage("QUEUED");
    static final ErrorRedisMessage EXECABORT =
            Replies.error("EXECABORT Transaction discarded because of previous errors.");
    static final ErrorRedisMessage NOT_IN_MULTI = Replies.error("ERR Command not allowed inside a transaction");

    /** Commands that run at once inside MULTI instead of being queued, as in Redis. */
    private static final Set<String> AT_ONCE = Set.of("EXEC", "DISCARD", "MULTI", "WATCH", "QUIT", "RESET");
    /** Commands refused inside MULTI (Redis's {@code no-multi} flag; kvs has no SAVE, SYNC, PSYNC). */
    private static final Set<String> NO_MULTI = Set.of("SHUTDOWN");

    /** Runs one command as {@link CommandDispatch} does, counted in its statistics. */
    interface Runner {
        RedisMessage run(Session session, CommandSpec spec, byte[][] args);
    }

    private final CommandContext node;
    private final KvStore store;
    private final Writes writes;
    private final CommandRefusals refusals;
    private final ExecBarrier barrier;
    private final ClusterView cluster;

    /** EXEC's command in the table: {@link CommandDispatch} runs it with {@link #exec}. */
    final Command exec = (s, a) -> {
        throw new IllegalStateException("EXEC is run by CommandDispatch");
    };

    TransactionCommands(CommandContext node, CommandRefusals refusals, ExecBarrier barrier) {
        this.node = node;
        this.store = node.store();
        this.writes = node.writes();
        this.refusals = refusals;
        this.barrier = barrier;
        this.cluster = node.cluster();
    }

    void register(CommandTable t) {
        t.add("MULTI", 1, 0, 0, 0, 0, this::multi);
        t.add("EXEC", 1, 0, 0, 0, 0, exec);
        t.add("DISCARD", 1, 0, 0, 0, 0, this::discard);
        t.add("WATCH", -2, 0, 1, -1, 1, this::watch);
        t.add("UNWATCH", 1, 0, 0, 0, 0, (s, a) -> {
            s.watched = null;
            return Replies.OK;
        });
    }

    /** True if {@code spec} is EXEC's. */
    static boolean isExec(CommandSpec spec) {
        return spec.name().equals("EXEC");
    }

    /** True if {@code spec} runs at once in a transaction rather than being queued. */
    static boolean runsAtOnce(CommandSpec spec) {
        return AT_ONCE.contains(spec.name());
    }

    /**
     * Queues a command admitted for {@code s}'s transaction, or refuses it ({@code SHUTDOWN}); a SET's
     * value staged as it arrived is copied, since the stage is closed when this returns.
     */
    /** A command past the queue's bound: the transaction is refused, as after any queuing error. */
    static final RedisMessage TOO_LONG = Replies.error("ERR MULTI queue full: a transaction holds at most "
            + Transaction.MAX_COMMANDS + " commands and " + (Transaction.MAX_BYTES >> 20)
            + " MiB of arguments; EXEC will discard it");

    static RedisMessage queue(Session s, CommandSpec spec, byte[][] args) {
        if (NO_MULTI.contains(spec.name())) {
            s.transaction.refuse();
            return NOT_IN_MULTI;
        }
        byte[][] kept = args;
        if (s.staged != null) {
            kept = args.clone();
            for (int i = 0; i < kept.length; i++) {
                if (kept[i] == RespCommand.STAGED_ARG)
                    kept[i] = s.staged.stage().toArray();
            }
        }
        if (!s.transaction.queue(spec, kept)) return TOO_LONG;
        return QUEUED;
    }

    private RedisMessage multi(Session s, byte[][] a) {
        if (s.transaction != null) return Replies.error("ERR MULTI calls can not be nested");
        s.transaction = new Transaction();
        return Replies.OK;
    }

    private RedisMessage discard(Session s, byte[][] a) {
        if (s.transaction == null) return Replies.error("ERR DISCARD without MULTI");
        s.transaction = null;
        s.watched = null;
        return Replies.OK;
    }

    private RedisMessage watch(Session s, byte[][] a) {
        if (s.transaction != null) return Replies.error("ERR WATCH inside MULTI is not allowed");
        if (s.watched == null) s.watched = new WatchedKeys();
        long now = writes.clock().millis();
        for (int i = 1; i < a.length; i++) s.watched.watch(store, a[i], now);
        return Replies.OK;
    }

    /** EXEC: ends {@code s}'s transaction, running its commands with {@code runner} (see the class comment). */
    RedisMessage exec(Session s, Runner runner) {
        Transaction tx = s.transaction;
        if (tx == null) return Replies.error("ERR EXEC without MULTI");
        WatchedKeys watched = s.watched;
        s.transaction = null;
        s.watched = null;
        if (tx.refused()) return EXECABORT;
        List<Transaction.Queued> queued = tx.queued();
        if (cluster.enabled() && spansSlots(queued)) return SlotCheck.CROSSSLOT;
        if (queued.size() <= 1 && watched == null && !scripted(queued)) {
            // one command is atomic alone: it passes the barrier shared, as it would outside MULTI (a
            // script is not: it runs alone, as outside MULTI)
            Lock shared = barrier.enter();
            try {
                return reply(run(s, queued, null, runner));
            } finally {
                shared.unlock();
            }
        }
        ReadGate gate = node.readGate();
        CompletableFuture<Void> ready = gate.active() ? KeyGate.whenReadable(gate, readKeys(queued)) : null;
        if (ready == null) return reply(alone(s, queued, watched, runner));
        // a read's key is fenced: its value is waited for here, outside the barrier (inside, the read is
        // refused: KeyGate), and the connection's later commands are held meanwhile, as for a script
        Executor loop = s.loop != null ? s.loop : Runnable::run;
        // (its commands' counts are published with its reply, as a later reply's are: ReplyQueue)
        CompletableFuture<RedisMessage> ran =
                ready.handle((v, e) -> null).thenApplyAsync(v -> reply(alone(s, queued, watched, runner)), loop);
        s.script = ran;
        return new LaterReply(
                ran.thenCompose(r -> r instanceof LaterReply l ? l.reply() : CompletableFuture.completedFuture(r)));
    }

    /** Runs the queued commands alone in the barrier; a read of a fenced key is refused meanwhile. */
    private RedisMessage[] alone(Session s, List<Transaction.Queued> queued, WatchedKeys watched, Runner runner) {
        return barrier.alone(() -> {
            s.alone = true;
            try {
                return run(s, queued, watched, runner);
            } finally {
                s.alone = false;
            }
        });
    }

    /**
     * The keys the queued reads name (a script's declared keys too), which a read gate may make wait:
     * EXEC waits for them before it runs.
     */
    private static List<byte[]> readKeys(List<Transaction.Queued> queued) {
        List<byte[]> keys = new ArrayList<>();
        for (Transaction.Queued q : queued) {
            CommandSpec spec = q.spec();
            byte[][] a = q.args();
            if (ScriptCommands.runsScript(spec)) {
                keys.addAll(ScriptCommands.declaredKeys(a));
                continue;
            }
            if (spec.has(CommandSpec.WRITE)) continue; // a write of a fenced key is refused, never waits
            int first = spec.firstKeyIn(a);
            if (first <= 0) continue;
            int last = spec.lastKeyIn(a);
            for (int i = first; i <= last && i < a.length; i += Math.max(1, spec.keyStep())) keys.add(a[i]);
        }
        return keys;
    }

    /** Runs the queued commands; null if a watched key was touched. Called with the barrier held but for one. */
    private RedisMessage[] run(Session s, List<Transaction.Queued> queued, WatchedKeys watched, Runner runner) {
        if (watched != null && watched.touched(store, writes.clock().millis())) return null;
        boolean writing = false;
        for (Transaction.Queued q : queued) {
            RedisMessage refusal = refusals.servingRefusal(s, q.spec(), q.args());
            if (refusal != null) return new RedisMessage[] {new AbortedExec(abortedBy(refusal))};
            writing |= q.spec().has(CommandSpec.WRITE);
        }
        WriteUnit unit;
        try {
            unit = writing && queued.size() > 1 ? writes.beginUnit() : null;
        } catch (KvsException e) {
            return new RedisMessage[] {new AbortedExec(abortedBy(Replies.storeError(e)))};
        }
        RedisMessage[] replies = new RedisMessage[queued.size()];
        try {
            for (int i = 0; i < replies.length; i++) {
                Transaction.Queued q = queued.get(i);
                replies[i] = runner.run(s, q.spec(), q.args());
            }
        } finally {
            if (unit != null) unit.end();
        }
        return replies;
    }

    /**
     * EXEC's answer when EXEC itself is refused, or this node may no longer serve a queued command: a
     * cluster's redirection as it is, else {@code EXECABORT} with the reason, without its {@code ERR}
     * word (as Redis's {@code execCommandAbort}).
     */
    static ErrorRedisMessage abortedBy(RedisMessage refusal) {
        String text = ((ErrorRedisMessage) refusal).content();
        if (text.startsWith("MOVED ") || text.startsWith("CROSSSLOT ") || text.startsWith("CLUSTERDOWN ")) {
            return (ErrorRedisMessage) refusal;
        }
        if (text.startsWith("ERR ")) text = text.substring(4);
        return Replies.error("EXECABORT Transaction discarded because of: " + text);
    }

    /** EXEC's whole answer when it ran nothing because this node may not serve the transaction now. */
    private record AbortedExec(RedisMessage reply) implements RedisMessage {}

    /** EXEC's reply: the commands' replies as one array, once each is known. */
    private static RedisMessage reply(RedisMessage[] replies) {
        if (replies == null) return ArrayRedisMessage.NULL_INSTANCE; // a watched key was touched
        if (replies.length == 1 && replies[0] instanceof AbortedExec a) return a.reply();
        List<CompletableFuture<RedisMessage>> later = null;
        for (RedisMessage r : replies) {
            if (r instanceof LaterReply l) {
                if (later == null) later = new ArrayList<>();
                later.add(l.reply().toCompletableFuture());
            }
        }
        if (later == null) return Replies.array(Arrays.asList(replies));
        return new LaterReply(CompletableFuture.allOf(later.toArray(new CompletableFuture<?>[0]))
                .handle((v, e) -> {
                    List<RedisMessage> out = new ArrayList<>(replies.length);
                    for (RedisMessage r : replies) out.add(r instanceof LaterReply l ? known(l) : r);
                    return Replies.array(out);
                }));
    }

    /** A completed later reply, its failure answered as {@link ReplyQueue} answers it. */
    private static RedisMessage known(LaterReply l) {
        try {
            return l.reply().toCompletableFuture().join();
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return cause instanceof KvsException k ? Replies.storeError(k) : Replies.error("ERR " + cause.getMessage());
        }
    }

    /** True if a queued command runs a script ({@link ScriptCommands}). */
    private static boolean scripted(List<Transaction.Queued> queued) {
        for (Transaction.Queued q : queued) if (ScriptCommands.runsScript(q.spec())) return true;
        return false;
    }

    /** True if the queued commands' keys hash to more than one slot (each command's own are one slot). */
    private static boolean spansSlots(List<Transaction.Queued> queued) {
        int slot = -1;
        for (Transaction.Queued q : queued) {
            int first = q.spec().firstKeyIn(q.args());
            if (first <= 0 || first >= q.args().length) continue;
            int s = HashSlots.slot(q.args()[first]);
            if (slot >= 0 && s != slot) return true;
            slot = s;
        }
        return false;
    }
}
