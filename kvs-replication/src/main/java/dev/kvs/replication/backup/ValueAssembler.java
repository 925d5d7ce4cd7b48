package dev.kvs.replication.backup;

import dev.kvs.core.Checksums;
import dev.kvs.core.HeapValueStage;
import dev.kvs.core.KvsException;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.StageBind;
import dev.kvs.replication.wire.Frame.StageCancel;
import dev.kvs.replication.wire.Frame.StagedChunk;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import dev.kvs.replication.wire.Frame.ValueChunk;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.zip.CRC32C;

/**
 * Assembles the values of one value channel from their chunks and verifies their CRC32C.
 *
 * <p>A value's chunks arrive in offset order on one channel, possibly interleaved with other values'
 * chunks. A one-chunk value needs no copy. A longer one is written, chunk by chunk as it comes, into a
 * {@link ValueStage} opened at its first chunk: the backup's store stages a large value in its own
 * memory ({@link dev.kvs.core.KvStore#stage}), so the last chunk is followed by one short write, not a
 * copy of the whole value. A stage on the heap (a store without staging, one with no room now, or an
 * assembler without a store) is reserved from the {@link AssemblyBudget} until the last chunk. A chunk
 * that does not continue
 * its value (wrong offset, or a length, checksum, op or key different from the first chunk) abandons
 * the value: it is reported once as {@link Corrupt} so the primary resends it, and its remaining
 * chunks are ignored. A {@linkplain #isCancel cancel} drops a value being assembled without a report:
 * the primary abandoned it because its key was rewritten (the newer value follows).
 *
 * <p><b>Cut-through</b> (protocol version 5): a large SET's value may start arriving as {@link
 * StagedChunk}s, before the write has a TxId, named by a stage id. They are assembled the same way
 * (the same stages, the same budget) into a separate table of at most {@link #MAX_STAGED} values,
 * with nothing to report: a staged value that breaks (a chunk that does not continue it, a value over
 * {@code maxValueBytes}, a store refusal, one too many) is dropped quietly and its id remembered so
 * its later chunks are ignored. A {@link StageBind} gives a staged value its TxId, checksum and
 * expiry: whole, it is verified and handed on at once; else it joins the values being assembled
 * under that TxId, and the value's remaining {@link ValueChunk}s continue it with the usual checks.
 * A bind of a staged value not held is {@link Corrupt}, so the primary resends the value whole. A
 * {@link StageCancel} drops a staged value.
 *
 * <p>Not thread-safe: one instance per channel, used on its event loop.
 */
final class ValueAssembler implements AutoCloseable {
    /** What a chunk that ends or breaks a value yields. */
    sealed interface Result permits Whole, Corrupt {}

    /**
     * A whole value whose checksum matched, of a key that expires at {@code expireAtMillis} (0: never):
     * either in {@code bytes} (empty for a delete) or written into {@code staged}, which the receiver
     * of this result owns and must close.
     */
    record Whole(TxId txId, Op op, byte[] key, byte[] bytes, ValueStage staged, int checksum, long expireAtMillis)
            implements Result {
        Whole {
            if ((bytes == null) == (staged == null)) {
                throw new IllegalArgumentException("exactly one of bytes and staged must be given");
            }
        }

        Whole(TxId txId, Op op, byte[] key, byte[] bytes, int checksum, long expireAtMillis) {
            this(txId, op, key, bytes, null, checksum, expireAtMillis);
        }

        Whole(TxId txId, Op op, byte[] key, byte[] bytes, int checksum) {
            this(txId, op, key, bytes, checksum, 0);
        }

        /** The value's length in bytes. */
        int length() {
            return bytes != null ? bytes.length : staged.length();
        }
    }

    /**
     * A value that cannot be applied: to be nacked (resent), or, if {@code refusal} is not null, refused
     * (the store will not take it: resending it at once would not help).
     */
    record Corrupt(TxId txId, byte[] key, String reason, StoreRefusal refusal) implements Result {
        /** A broken value, to be sent again. */
        Corrupt(TxId txId, byte[] key, String reason) {
            this(txId, key, reason, null);
        }
    }

    private static final int MAX_ABANDONED = 4096;
    /** The most staged values (not yet bound or cancelled) one channel holds; more are dropped. */
    static final int MAX_STAGED = 64;

    private final AssemblyBudget.Lease lease;
    private final int maxValueBytes;
    private final IntFunction<ValueStage> stager;
    private final Map<TxId, Assembly> assemblies = new HashMap<>();
    /** Values abandoned mid-way whose later chunks are ignored. */
    private final Set<TxId> abandoned = new HashSet<>();
    /** Staged values (cut-through) by stage id, until their bind or cancel. */
    private final Map<Long, Assembly> staging = new HashMap<>();
    /** Stage ids of staged values dropped mid-way whose later chunks are ignored. */
    private final Set<Long> droppedStages = new HashSet<>();

    /** An assembler that stages every value on the heap (a handback, whose values are not stored as such). */
    ValueAssembler(AssemblyBudget.Lease lease, int maxValueBytes) {
        this(lease, maxValueBytes, HeapValueStage::new);
    }

    /**
     * An assembler that opens a value's stage with {@code stager} (a store's {@link
     * dev.kvs.core.KvStore#stage}), or on the heap if that fails for want of room.
     */
    ValueAssembler(AssemblyBudget.Lease lease, int maxValueBytes, IntFunction<ValueStage> stager) {
        this.lease = lease;
        this.maxValueBytes = maxValueBytes;
        this.stager = stager;
    }

    /**
     * Takes the next chunk of this channel.
     *
     * @return a {@link Whole} or {@link Corrupt} when the chunk ends a value or breaks one, else
     *     {@code null}
     */
    Result accept(ValueChunk c) {
        TxId txId = c.txId();
        if (isCancel(c)) {
            // the primary abandoned the value mid-way (its key was rewritten): drop what we have of it
            discard(txId);
            abandoned.remove(txId);
            return null;
        }
        if (c.offset() == 0) {
            abandoned.remove(txId);
            discard(txId); // a value starting again (a resend) replaces its unfinished copy
            String bad = checkStart(c);
            if (bad != null) {
                if (!c.isLast()) abandon(txId);
                return new Corrupt(txId, c.key(), bad, tooLarge(c) ? StoreRefusal.VALUE_TOO_LARGE : null);
            }
            if (c.isLast()) {
                return verify(
                        txId, c.op(), c.key(), c.data(), Checksums.crc32c(c.data()), c.checksum(), c.expireAtMillis());
            }
            // a structure's image is rebuilt into pages from an array (KvStore.putImage): assembled on the heap
            ValueStage stage = c.op().isStructure() ? new HeapValueStage(c.totalLength()) : open(c.totalLength());
            Assembly a = new Assembly(c.op(), c.key(), c.totalLength(), stage);
            a.checksum = c.checksum();
            a.expireAt = c.expireAtMillis();
            if (a.onHeap()) lease.reserve(a.length);
            assemblies.put(txId, a);
            return append(a, c);
        }
        Assembly a = assemblies.get(txId);
        if (a == null) {
            if (abandoned.contains(txId)) {
                if (c.isLast()) abandoned.remove(txId);
                return null;
            }
            if (!c.isLast()) abandon(txId);
            return new Corrupt(txId, c.key(), "chunk at offset " + c.offset() + " without the value's first chunk");
        }
        String bad = a.mismatch(c);
        if (bad != null) {
            discard(txId);
            if (!c.isLast()) abandon(txId);
            return new Corrupt(txId, a.key, bad);
        }
        return append(a, c);
    }

    /** Adds {@code c} to {@code a}; at the last chunk, verifies and hands the value on. */
    private Result append(Assembly a, ValueChunk c) {
        TxId txId = c.txId();
        String refused = null;
        StoreRefusal refusal = null;
        if (c.data().length > a.length - a.stage.written()) {
            refused = "chunk of " + c.data().length + " bytes at offset " + c.offset() + " passes the end of a "
                    + a.length + "-byte value";
        } else {
            try {
                a.append(c.data());
            } catch (KvsException e) {
                refused = e.getMessage();
                refusal = BackupRefusals.reasonOf(e);
            }
        }
        if (refused != null) {
            discard(txId);
            if (!c.isLast()) abandon(txId);
            return new Corrupt(txId, a.key, refused, refusal);
        }
        if (!c.isLast()) return null;
        assemblies.remove(txId);
        return complete(txId, a);
    }

    /** Verifies {@code a}, which holds all its bytes and no longer counts as being assembled. */
    private Result complete(TxId txId, Assembly a) {
        if (a.onHeap()) lease.release(a.length);
        int actual = (int) a.crc.getValue();
        if (actual != a.checksum) {
            a.stage.close();
            return mismatch(txId, a.key, actual, a.checksum);
        }
        return a.stage instanceof HeapValueStage heap
                ? new Whole(txId, a.op, a.key, heap.bytes(), a.checksum, a.expireAt)
                : new Whole(txId, a.op, a.key, null, a.stage, a.checksum, a.expireAt);
    }

    /**
     * Takes a chunk of a staged value (cut-through): its first chunk (offset 0) opens the value's
     * stage; a later one continues it. Drops the staged value, remembering its id so its later chunks
     * are ignored, if the chunk does not continue it (offset, length or key), the value is over {@code
     * maxValueBytes}, {@link #MAX_STAGED} staged values are held already, or the store refuses the
     * bytes. A chunk past offset 0 of a stage not held is ignored.
     *
     * @return {@code null}: a staged value has no TxId yet, nothing is acked or nacked before its
     *     {@link #bind}
     */
    Result acceptStaged(StagedChunk c) {
        long id = c.stageId();
        if (droppedStages.contains(id)) return null;
        Assembly a = staging.get(id);
        if (a == null) {
            if (c.offset() != 0 || c.totalLength() > maxValueBytes || staging.size() >= MAX_STAGED) {
                dropStage(id);
                return null;
            }
            a = new Assembly(Op.PUT, c.key(), c.totalLength(), open(c.totalLength()));
            if (a.onHeap()) lease.reserve(a.length);
            staging.put(id, a);
        } else if (c.offset() != a.stage.written() || c.totalLength() != a.length || !Arrays.equals(c.key(), a.key)) {
            dropStage(id);
            return null;
        }
        try {
            a.append(c.data());
        } catch (KvsException e) {
            dropStage(id);
        }
        return null;
    }

    /**
     * Gives the staged value {@code b.stageId()} its TxId, checksum and expiry. A value with all its
     * bytes is verified at once; one still missing some is assembled on under its TxId (replacing any
     * unfinished value of that TxId), and the TxId's next {@link ValueChunk} must continue it.
     *
     * @return a {@link Whole} or {@link Corrupt} (checksum mismatch) if the staged value was complete;
     *     {@link Corrupt} if it is not held (dropped, or never seen) or is of another key, so that the
     *     primary resends the value whole (the TxId's chunks sent meanwhile are ignored); else {@code
     *     null}
     */
    Result bind(StageBind b) {
        long id = b.stageId();
        TxId txId = b.txId();
        droppedStages.remove(id);
        Assembly a = staging.remove(id);
        String bad = null;
        if (a == null) {
            bad = "staged value " + id + " was not held";
        } else if (!Arrays.equals(a.key, b.key())) {
            free(a);
            bad = "staged value " + id + " is of another key";
        }
        if (bad != null) {
            // the value's remaining chunks may follow the bind: ignore them, the primary resends it whole
            discard(txId);
            abandon(txId);
            return new Corrupt(txId, b.key(), bad);
        }
        a.checksum = b.checksum();
        a.expireAt = b.expireAtMillis();
        abandoned.remove(txId);
        discard(txId);
        if (a.stage.written() == a.length) return complete(txId, a);
        assemblies.put(txId, a);
        return null;
    }

    /** Drops the staged value {@code c.stageId()}, if held, and forgets its id. */
    void cancel(StageCancel c) {
        Assembly a = staging.remove(c.stageId());
        if (a != null) free(a);
        droppedStages.remove(c.stageId());
    }

    /** Staged values held (not yet bound or cancelled). */
    int staged() {
        return staging.size();
    }

    /** Drops the staged value {@code id}, if held, and ignores its later chunks. */
    private void dropStage(long id) {
        Assembly a = staging.remove(id);
        if (a != null) free(a);
        if (droppedStages.size() >= MAX_ABANDONED) droppedStages.clear(); // a flood of broken values: forget
        droppedStages.add(id);
    }

    /** Gives back the memory of an assembly no longer held. */
    private void free(Assembly a) {
        if (a.onHeap()) lease.release(a.length);
        a.stage.close();
    }

    /**
     * A stage for a value of {@code length} bytes: the store's, or one on the heap if the store has no
     * room for it now (an overwrite may still fit when it is applied: it needs only its growth).
     */
    private ValueStage open(int length) {
        try {
            return stager.apply(length);
        } catch (KvsException e) {
            return new HeapValueStage(length);
        }
    }

    /**
     * True for a cancel: a chunk with no data at the end of a non-empty value ({@code offset ==
     * totalLength > 0}), which no sender of a value's bytes writes (its last chunk carries data). The
     * primary sends it on the value's stream when it abandons a value after some of its chunks.
     */
    static boolean isCancel(ValueChunk c) {
        return c.data().length == 0 && c.totalLength() > 0 && c.offset() == c.totalLength();
    }

    /** Values being assembled. */
    int inProgress() {
        return assemblies.size();
    }

    /** Drops every partly assembled value and gives its memory back. */
    @Override
    public void close() {
        for (Assembly a : assemblies.values()) a.stage.close();
        for (Assembly a : staging.values()) a.stage.close();
        assemblies.clear();
        abandoned.clear();
        staging.clear();
        droppedStages.clear();
        lease.close();
    }

    private boolean tooLarge(ValueChunk c) {
        return c.totalLength() > maxValueBytes;
    }

    private String checkStart(ValueChunk c) {
        if (tooLarge(c)) {
            return "value of " + c.totalLength() + " bytes > maxValueBytes " + maxValueBytes;
        }
        if (c.op() == Op.DELETE && c.totalLength() != 0) {
            return "delete carries a value of " + c.totalLength() + " bytes";
        }
        return null;
    }

    private static Result verify(
            TxId txId, Op op, byte[] key, byte[] bytes, int actual, int expected, long expireAtMillis) {
        if (actual != expected) return mismatch(txId, key, actual, expected);
        return new Whole(txId, op, key, bytes, expected, expireAtMillis);
    }

    private static Corrupt mismatch(TxId txId, byte[] key, int actual, int expected) {
        return new Corrupt(
                txId,
                key,
                "checksum mismatch: CRC32C " + Integer.toHexString(actual) + " != " + Integer.toHexString(expected));
    }

    private void discard(TxId txId) {
        Assembly a = assemblies.remove(txId);
        if (a != null) free(a);
    }

    private void abandon(TxId txId) {
        if (abandoned.size() >= MAX_ABANDONED) abandoned.clear(); // a flood of broken values: forget
        abandoned.add(txId);
    }

    /**
     * One value being assembled. Its checksum and expiry come with its first chunk, or, for a staged
     * value, with its bind; the CRC of its bytes is computed as they arrive.
     */
    private static final class Assembly {
        final Op op;
        final byte[] key;
        int checksum;
        long expireAt;
        final int length;
        final ValueStage stage;
        final CRC32C crc = new CRC32C();

        Assembly(Op op, byte[] key, int length, ValueStage stage) {
            this.op = op;
            this.key = key;
            this.length = length;
            this.stage = stage;
        }

        /** True if the value is staged on the heap: it counts against the assembly budget. */
        boolean onHeap() {
            return stage instanceof HeapValueStage;
        }

        String mismatch(ValueChunk c) {
            if (c.offset() != stage.written()) return "chunk at offset " + c.offset() + ", expected " + stage.written();
            if (c.totalLength() != length) {
                return "chunk of a " + c.totalLength() + "-byte value, first chunk said " + length;
            }
            if (c.checksum() != checksum) return "chunks disagree on the checksum";
            if (c.op() != op) return "chunks disagree on the op: " + c.op() + " != " + op;
            if (!Arrays.equals(c.key(), key)) return "chunks disagree on the key";
            return null;
        }

        /** @throws KvsException if the store cannot hold the bytes */
        void append(byte[] data) {
            stage.write(data, 0, data.length);
            crc.update(data, 0, data.length);
        }
    }
}
