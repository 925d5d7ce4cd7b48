package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.role.LostKeys;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes that change more than one key in one TxId, each replicated as one key packet: RENAME and
 * RENAMENX (the source deleted and the destination written, atomically on both nodes), FLUSHDB and
 * FLUSHALL (one database: both flush the whole store).
 *
 * <p>A flush takes effect at once, inside a barrier holding every key's lock for as long as it takes
 * to order its TxId and raise the store's flush mark ({@link Writes#flush}); the records it hides are
 * then removed key by key on the {@code kvs-flush-sweep} thread, so no event loop waits for the whole
 * store to be cleared. {@code SYNC} (the default, as in Redis) answers once that sweep is done,
 * {@code ASYNC} as soon as the flush is replicated in the connection's mode.
 */
final class ReplicatedOpsCommands {
    private static final Logger log = LoggerFactory.getLogger(ReplicatedOpsCommands.class);
    static final String NO_SUCH_KEY = "ERR no such key";

    /** Removes flushed records, one flush after the other, off the event loops. */
    private static final ExecutorService SWEEPER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "kvs-flush-sweep");
        t.setDaemon(true);
        return t;
    });

    private final NodeContext node;
    private final DataCommands data;
    private final KvStore store;
    private final Writes writes;

    ReplicatedOpsCommands(NodeContext node, DataCommands data) {
        this.node = node;
        this.data = data;
        this.store = node.store();
        this.writes = node.writes();
    }

    void register(CommandTable t) {
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // both keys pass the read gate: a fenced source or destination refuses the rename
        t.add("RENAME", 3, write, 1, 2, 1, data.gated(true, 1, (s, a) -> rename(s, a, false)));
        t.add("RENAMENX", 3, write, 1, 2, 1, data.gated(true, 1, (s, a) -> rename(s, a, true)));
        // dangerous, as in Redis's ACL categories: admin users only
        int flush = write | CommandSpec.ADMIN;
        t.add("FLUSHDB", -1, flush, 0, 0, 0, this::flush);
        t.add("FLUSHALL", -1, flush, 0, 0, 0, this::flush);
    }

    private RedisMessage rename(Session s, byte[][] a, boolean nx) {
        byte[] src = a[1];
        byte[] dst = a[2];
        while (true) {
            StoredValue v = node.reads().get(src); // null if expired, as the write below sees it
            if (v == null || v.state() != RecordState.COMPLETE) return Replies.error(NO_SUCH_KEY);
            if (Arrays.equals(src, dst)) return nx ? Replies.ZERO : Replies.OK; // Redis: nothing to do
            RecordHeader seen = v.header();
            boolean[] changed = new boolean[1];
            boolean[] exists = new boolean[1];
            Writes.Done<List<Write>> w = writes.updateAll(data.mode(s), List.of(src, dst), (h, order) -> {
                if (!Objects.equals(h.get(0), seen)) { // written since we read its value: read again
                    changed[0] = true;
                    return List.of(Write.keep(), Write.keep());
                }
                if (nx && DataCommands.live(h.get(1))) {
                    exists[0] = true;
                    return List.of(Write.keep(), Write.keep());
                }
                return order.rename(src, dst, v.value(), v.header().expireAtMillis());
            });
            if (changed[0]) continue;
            if (exists[0]) return Replies.ZERO;
            return DataCommands.answer(w.replicated(), nx ? Replies.ONE : Replies.OK);
        }
    }

    private RedisMessage flush(Session s, byte[][] a) {
        boolean sync = true;
        if (a.length > 2) return Replies.SYNTAX;
        if (a.length == 2) {
            switch (Args.upper(a[1])) {
                case "SYNC" -> sync = true;
                case "ASYNC" -> sync = false;
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        Writes.Done<TxId> d = writes.flush(data.mode(s));
        TxId f = d.result();
        liftFences(f);
        CompletableFuture<Long> sweep = CompletableFuture.supplyAsync(() -> store.removeBefore(f), SWEEPER)
                .whenComplete((n, e) -> {
                    if (e != null) log.error("flush at {}: sweeping the store failed", f, e);
                    else log.info("flush at {}: {} records removed", f, n);
                });
        if (!sync) return DataCommands.answer(d.replicated(), Replies.OK);
        return new LaterReply(d.replicated().thenCombine(sweep, (v, n) -> Replies.OK));
    }

    /**
     * On a promoted primary, the keys fenced before the flush (values that never arrived, losses) are
     * gone with it: they no longer refuse reads and writes.
     */
    private void liftFences(TxId f) {
        ReadGate gate = node.gate();
        if (!gate.active()) return;
        UnfinishedKeys u = gate.unfinished();
        if (u != null) u.resolveBefore(f);
        LostKeys lost = gate.lost();
        for (LostKeys.Entry e : lost.snapshot()) {
            if (e.txId().compareTo(f) < 0) lost.remove(e.key());
        }
    }
}
