package dev.kvs.server.internal.resp;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueRead;
import dev.kvs.core.Write;
import dev.kvs.replication.BackupCannotStoreException;
import dev.kvs.replication.ReplicationBusyException;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationTimeoutException;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.write.LastWrite;
import dev.kvs.server.internal.write.NotWritableException;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * GET, DEL, EXISTS, MGET, MSET, STRLEN, DBSIZE: the commands that touch the store (SET, with its
 * expiry options, is in {@link ExpiryCommands}). Reads go through {@link LiveReads}: a key whose
 * expiry has passed is absent.
 */
final class DataCommands {
    private final NodeContext node;
    private final KvStore store;
    private final LiveReads reads;
    private final Writes writes;

    DataCommands(NodeContext node) {
        this.node = node;
        this.store = node.store();
        this.reads = node.reads();
        this.writes = node.writes();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        t.add("GET", 2, read, 1, 1, 1, gated(false, 1, this::get));
        t.add("DEL", -2, write, 1, -1, 1, gated(true, 1, this::del));
        t.add("UNLINK", -2, write, 1, -1, 1, gated(true, 1, this::del));
        t.add("EXISTS", -2, read, 1, -1, 1, gated(false, 1, this::exists));
        t.add("MGET", -2, read, 1, -1, 1, gated(false, 1, this::mget));
        t.add("MSET", -3, write, 1, -1, 2, gated(true, 2, this::mset));
        t.add("STRLEN", 2, read, 1, 1, 1, gated(false, 1, this::strlen));
        // metadata, on any role: the records the store holds (on a backup, keys whose values arrived)
        t.add("DBSIZE", 1, 0, 0, 0, 0, (s, a) -> Replies.integer(store.size()));
        // diagnostic, on any role: what this node holds for a key (a backup's replicated copy, say)
        t.add("KVS.PEEK", 2, 0, 1, 1, 1, this::peek);
    }

    /**
     * Wraps a command so that, on a promoted node (or a backup serving a {@code READONLY} read), its
     * keys (every {@code step}-th argument from 1) pass the read gate first: fenced keys refuse the
     * command or make a read wait for their values. Costs two volatile reads when nothing is fenced.
     */
    Command gated(boolean write, int step, Command command) {
        return (s, a) -> {
            ReadGate gate = node.readGate();
            if (!gate.active()) return command.execute(s, a);
            List<CompletableFuture<Void>> waits = null;
            for (int i = 1; i < a.length; i += step) {
                expireFenced(gate, a[i], write ? s.lastWrite : LastWrite.NONE);
                String refusal = gate.refusal(a[i], write);
                if (refusal != null) return Replies.error(refusal);
                if (!write && gate.mustWait(a[i])) {
                    if (waits == null) waits = new ArrayList<>();
                    waits.add(gate.whenReadable(a[i]));
                }
            }
            if (waits == null) return command.execute(s, a);
            return new LaterReply(CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]))
                    .handle((v, e) -> {
                        if (e == null) {
                            // a backup's read waited: may it still run (a resync may have begun)?
                            NodeRole now = node.roles().current();
                            String refusal =
                                    now instanceof NodeRole.Primary ? null : BackupReadCommands.refusal(now, s, write);
                            return refusal != null ? Replies.error(refusal) : command.execute(s, a);
                        }
                        Throwable c = e instanceof CompletionException ? e.getCause() : e;
                        return Replies.error(c.getMessage());
                    }));
        };
    }

    /**
     * A fenced key (unfinished or lost after a promotion) whose expiry, carried by its key packet, has
     * passed is absent, not fenced: it leaves the fence, and whatever older record of it this node
     * holds is deleted (a replicated write), so a read cannot serve the value it replaced. A write
     * command's {@code WAIT} counts that delete as one of its writes ({@code last}).
     */
    private void expireFenced(ReadGate gate, byte[] key, LastWrite last) {
        TxId fencedBy = gate.expiredFence(key, reads.nowMillis());
        if (fencedBy == null) return;
        try {
            writes.update(
                    node.mode(),
                    last,
                    key,
                    (h, order) -> h != null && h.txId().isBefore(fencedBy) ? order.remove(key) : Write.keep());
        } catch (KvsException e) {
            return; // not writable now (e.g. BUSY): it stays fenced and is tried again on the next access
        }
        gate.unfence(key, fencedBy);
    }

    /**
     * A long value is copied by the store straight into a pooled direct buffer that becomes the reply
     * ({@link DirectValues}); a short one comes back as an array.
     */
    private RedisMessage get(Session s, byte[][] a) {
        DirectValues sink = DirectValues.one(s.alloc);
        try {
            ValueRead r = store.readValue(a[1], sink);
            if (!readable(r)) {
                sink.skip(r);
                return Replies.NIL;
            }
            return sink.bulk(r);
        } catch (RuntimeException e) {
            sink.releaseAll();
            throw e;
        }
    }

    /** Whether GET and MGET reply with the value of {@code r} (or nil: also if it expired): the one place of that check. */
    boolean readable(ValueRead r) {
        return r != null && r.state() == RecordState.COMPLETE && !reads.expired(r.header());
    }

    private RedisMessage del(Session s, byte[][] a) {
        if (a.length == 2) {
            Writes.Done<Write> w = writes.update(
                    mode(s), s.lastWrite, a[1], (h, order) -> live(h) ? order.remove(a[1]) : Write.keep());
            return answer(w.replicated(), w.result() == Write.remove() ? Replies.ONE : Replies.ZERO);
        }
        List<byte[]> keys = Arrays.asList(a).subList(1, a.length);
        long[] removed = new long[1];
        Writes.Done<List<Write>> w = writes.updateAll(mode(s), s.lastWrite, keys, (headers, order) -> {
            List<Write> out = new ArrayList<>(headers.size());
            // a key named twice is removed once
            Set<ByteBuffer> seen = new HashSet<>();
            for (int i = 0; i < headers.size(); i++) {
                boolean first = seen.add(ByteBuffer.wrap(keys.get(i)));
                if (first && live(headers.get(i))) {
                    removed[0]++;
                    out.add(order.remove(keys.get(i)));
                } else {
                    out.add(Write.keep());
                }
            }
            return out;
        });
        return answer(w.replicated(), Replies.integer(removed[0]));
    }

    private RedisMessage exists(Session s, byte[][] a) {
        long n = 0;
        for (int i = 1; i < a.length; i++) {
            if (reads.exists(a[i])) n++;
        }
        return Replies.integer(n);
    }

    private RedisMessage mget(Session s, byte[][] a) {
        DirectValues sink = DirectValues.many(s.alloc);
        List<RedisMessage> out = new ArrayList<>(a.length - 1);
        try {
            List<ValueRead> values = store.readAll(Arrays.asList(a).subList(1, a.length), sink);
            for (ValueRead r : values) {
                if (readable(r)) {
                    out.add(sink.bulk(r));
                } else {
                    sink.skip(r);
                    out.add(Replies.NIL);
                }
            }
            return Replies.array(out);
        } catch (RuntimeException e) {
            sink.releaseAll();
            out.forEach(ReferenceCountUtil::release);
            throw e;
        }
    }

    private RedisMessage mset(Session s, byte[][] a) {
        if ((a.length - 1) % 2 != 0) return Replies.wrongArity("MSET");
        int n = (a.length - 1) / 2;
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) keys.add(a[1 + 2 * i]);
        Writes.Done<List<Write>> w = writes.updateAll(mode(s), s.lastWrite, keys, (headers, order) -> {
            List<Write> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(order.put(keys.get(i), a[2 + 2 * i]));
            return out;
        });
        return answer(w.replicated(), Replies.OK);
    }

    private RedisMessage peek(Session s, byte[][] a) {
        StoredValue v = store.get(a[1]);
        if (v == null) return Replies.NIL;
        return Replies.array(List.of(
                Replies.bulk(v.state().name().toLowerCase(Locale.ROOT)),
                Replies.bulk(v.txId().toString()),
                Replies.integer(v.header().valueLength()),
                Replies.integer(Integer.toUnsignedLong(v.header().checksum())),
                v.state() == RecordState.COMPLETE ? Replies.bulk(v.value()) : Replies.NIL,
                Replies.integer(v.expireAtMillis())));
    }

    private RedisMessage strlen(Session s, byte[][] a) {
        RecordHeader h = reads.header(a[1]);
        return Replies.integer(h == null || h.state() != RecordState.COMPLETE ? 0 : h.valueLength());
    }

    ReplicationMode mode(Session s) {
        return s.mode != null ? s.mode : node.mode();
    }

    /** {@code reply} now if the write may be answered already, else when replication allows. */
    static RedisMessage answer(CompletableFuture<Void> replicated, RedisMessage reply) {
        if (replicated.isDone() && !replicated.isCompletedExceptionally()) return reply;
        return new LaterReply(replicated.thenApply(v -> reply));
    }

    static boolean live(RecordHeader h) {
        return h != null && h.state() != RecordState.TOMBSTONE;
    }

    /** The reply for a store failure a client can act on; anything else is a bug and propagates. */
    static RedisMessage storeError(KvsException e) {
        if (e instanceof ReplicationBusyException) return Replies.error("BUSY " + e.getMessage());
        if (e instanceof ReplicationTimeoutException) return Replies.error("NOREPLICA " + e.getMessage());
        // written on the primary, not confirmed: the backup's store refuses values (full, too large)
        if (e instanceof BackupCannotStoreException) return Replies.error("NOREPLICA " + e.getMessage());
        if (e instanceof NotWritableException) return Replies.error(e.getMessage()); // NOTPRIMARY / FENCED
        if (e instanceof StoreFullException) return Replies.error("OOM " + e.getMessage());
        if (e instanceof EntryTooLargeException) return Replies.error("ERR " + e.getMessage());
        return Replies.error("ERR storage error: " + e.getMessage());
    }
}
