package dev.kvs.server.internal.resp;

import dev.kvs.core.KvsException;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.Role;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.write.LastWrite;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Lock;

/**
 * The read gate in front of the data commands: on a promoted node (or a backup serving a {@code
 * READONLY} read), a command's keys pass {@link ReadGate} first, so a fenced key (unfinished or lost
 * after a promotion) refuses the command or makes a read wait for its value. A read that waited asks
 * {@link CommandRefusals#servingRefusal} again before it runs: meanwhile its slot may have moved to
 * another shard, the primary's lease may have lapsed, or a backup's resync begun. A read inside an
 * EXEC or a script, which run alone in the barrier, does not wait: it is refused as with the {@code
 * reject} policy. They wait for their keys before they start instead ({@link #whenReadable(ReadGate,
 * List)}: a script's declared keys, an EXEC's reads' keys). Every command group
 * that touches keys wraps its commands here when registering them.
 */
final class KeyGate {
    private final CommandContext node;
    private final CommandRefusals refusals;
    private final CommandTable table;
    private final ExecBarrier barrier;

    /**
     * @param refusals asked again when a read resumes
     * @param table where a resumed read finds its command's spec (the commands are registered after
     *     this gate is made)
     * @param barrier a resumed read enters it, as any command does
     */
    KeyGate(CommandContext node, CommandRefusals refusals, CommandTable table, ExecBarrier barrier) {
        this.node = node;
        this.refusals = refusals;
        this.table = table;
        this.barrier = barrier;
    }

    /** A gate whose resumed reads run where their wait ends, with no barrier (tests of one command). */
    KeyGate(CommandContext node, CommandRefusals refusals, CommandTable table) {
        this(node, refusals, table, null);
    }

    /**
     * Wraps a command so that its keys (every {@code step}-th argument from 1) pass the read gate
     * first. Costs two volatile reads when nothing is fenced.
     */
    Command gated(boolean write, int step, Command command) {
        return (s, a) -> {
            if (node.events().on(EventClasses.EXPIRED)) expireLazily(a, step);
            ReadGate gate = node.readGate();
            if (!gate.active()) return command.execute(s, a);
            List<CompletableFuture<Void>> waits = null;
            for (int i = 1; i < a.length; i += step) {
                expireFenced(gate, a[i], write ? s.lastWrite : LastWrite.NONE);
                String refusal = gate.refusal(a[i], write);
                if (refusal != null) return Replies.error(refusal);
                if (!write && gate.mustWait(a[i])) {
                    if (s.alone) {
                        // an EXEC or a script holds the barrier alone: a script's read could never end
                        // its wait (it resumes inside the barrier, and a backup applies an EXEC's unit
                        // inside it too), and an EXEC's would run after the EXEC, not in it
                        String unfinished = gate.unfinishedRefusal(a[i]);
                        if (unfinished != null) return Replies.error(unfinished);
                        continue;
                    }
                    if (waits == null) waits = new ArrayList<>();
                    waits.add(gate.whenReadable(a[i]));
                }
            }
            if (waits == null) return command.execute(s, a);
            // resumed on the connection's event loop, inside the barrier: the wait ends on the thread
            // that made the key readable, which may be a backup applying an EXEC's unit alone; run
            // there, the read would see the unit's first writes and not its last
            Executor loop = s.loop != null ? s.loop : Runnable::run;
            return new LaterReply(CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]))
                    .handleAsync(
                            (v, e) -> {
                                if (e == null) return resumed(s, a, command);
                                Throwable c = e instanceof CompletionException ? e.getCause() : e;
                                return Replies.error(c.getMessage());
                            },
                            loop));
        };
    }

    /**
     * When the fenced ones of {@code keys} may be read (or the gate's block timeout has passed for one),
     * or null if none must be waited for: what an EXEC or a script waits for before it takes the barrier.
     */
    static CompletableFuture<Void> whenReadable(ReadGate gate, List<byte[]> keys) {
        if (!gate.active()) return null;
        List<CompletableFuture<Void>> waits = null;
        for (byte[] k : keys) {
            if (!gate.mustWait(k)) continue;
            if (waits == null) waits = new ArrayList<>();
            waits.add(gate.whenReadable(k));
        }
        return waits == null ? null : CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]));
    }

    /** A read that waited: may this node still serve it (a moved slot, a lapsed lease, a backup's resync)? */
    private RedisMessage resumed(Session s, byte[][] a, Command command) {
        Lock shared = barrier == null ? null : barrier.enter();
        try {
            CommandSpec spec = table.lookup(a[0]);
            RedisMessage refusal = spec == null ? null : refusals.servingRefusal(s, spec, a);
            return refusal != null ? refusal : command.execute(s, a);
        } finally {
            if (shared != null) shared.unlock();
        }
    }

    /**
     * Redis's lazy expiry, while {@code expired} events are published: on a primary, each key of the
     * command whose expiry has passed is deleted before the command runs (a replicated write, as active
     * expiry's), and its {@code expired} event comes before the command's own, as in Redis. Reads never
     * needed it (they see such a key as absent); without it the event would come only with active
     * expiry, and never for a key written again before that. A fenced key is left to its value.
     */
    private void expireLazily(byte[][] a, int step) {
        if (node.role() != Role.PRIMARY) return;
        long now = node.reads().nowMillis();
        ReadGate gate = node.gate();
        for (int i = 1; i < a.length; i += step) {
            RecordHeader h = node.store().header(a[i]);
            if (h == null || !h.expiredAt(now)) continue;
            if (gate.active() && gate.refusal(a[i], true) != null) continue;
            try {
                if (node.writes().expire(node.mode(), a[i], now).result()) {
                    node.events().emit(EventClasses.EXPIRED, "expired", a[i]);
                }
            } catch (KvsException e) {
                return; // not writable now (e.g. BUSY): active expiry removes it later
            }
        }
    }

    /**
     * A fenced key (unfinished or lost after a promotion) whose expiry, carried by its key packet, has
     * passed is absent, not fenced: it leaves the fence, and whatever older record of it this node
     * holds is deleted (a replicated write), so a read cannot serve the value it replaced. A write
     * command's {@code WAIT} counts that delete as one of its writes ({@code last}).
     */
    private void expireFenced(ReadGate gate, byte[] key, LastWrite last) {
        TxId fencedBy = gate.expiredFence(key, node.reads().nowMillis());
        if (fencedBy == null) return;
        try {
            node.writes()
                    .update(
                            node.mode(),
                            last,
                            key,
                            (h, order) -> h != null && h.txId().isBefore(fencedBy) ? order.remove(key) : Write.keep());
        } catch (KvsException e) {
            return; // not writable now (e.g. BUSY): it stays fenced and is tried again on the next access
        }
        gate.unfence(key, fencedBy);
    }
}
