package dev.kvs.replication.backup;

import dev.kvs.core.Checksums;
import dev.kvs.core.HeapValueStage;
import dev.kvs.core.KvsException;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.replication.wire.Frame.Op;
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
 * the primary abandoned it because its key was rewritten (the newer value follows). Not thread-safe: one instance per channel, used on its event loop.
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

    /** A value that cannot be applied: to be nacked. */
    record Corrupt(TxId txId, byte[] key, String reason) implements Result {}

    private static final int MAX_ABANDONED = 4096;

    private final AssemblyBudget.Lease lease;
    private final int maxValueBytes;
    private final IntFunction<ValueStage> stager;
    private final Map<TxId, Assembly> assemblies = new HashMap<>();
    /** Values abandoned mid-way whose later chunks are ignored. */
    private final Set<TxId> abandoned = new HashSet<>();

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
                return new Corrupt(txId, c.key(), bad);
            }
            if (c.isLast()) {
                return verify(
                        txId, c.op(), c.key(), c.data(), Checksums.crc32c(c.data()), c.checksum(), c.expireAtMillis());
            }
            Assembly a = new Assembly(c, open(c.totalLength()));
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
        if (c.data().length > a.length - a.stage.written()) {
            refused = "chunk of " + c.data().length + " bytes at offset " + c.offset() + " passes the end of a "
                    + a.length + "-byte value";
        } else {
            try {
                a.append(c.data());
            } catch (KvsException e) {
                refused = "store refused the value: " + e.getMessage();
            }
        }
        if (refused != null) {
            discard(txId);
            if (!c.isLast()) abandon(txId);
            return new Corrupt(txId, a.key, refused);
        }
        if (!c.isLast()) return null;
        assemblies.remove(txId);
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
        assemblies.clear();
        abandoned.clear();
        lease.close();
    }

    private String checkStart(ValueChunk c) {
        if (c.totalLength() > maxValueBytes) {
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
        if (a == null) return;
        if (a.onHeap()) lease.release(a.length);
        a.stage.close();
    }

    private void abandon(TxId txId) {
        if (abandoned.size() >= MAX_ABANDONED) abandoned.clear(); // a flood of broken values: forget
        abandoned.add(txId);
    }

    /** One value being assembled. */
    private static final class Assembly {
        final Op op;
        final byte[] key;
        final int checksum;
        final long expireAt;
        final int length;
        final ValueStage stage;
        final CRC32C crc = new CRC32C();

        Assembly(ValueChunk first, ValueStage stage) {
            this.op = first.op();
            this.key = first.key();
            this.checksum = first.checksum();
            this.expireAt = first.expireAtMillis();
            this.length = first.totalLength();
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
