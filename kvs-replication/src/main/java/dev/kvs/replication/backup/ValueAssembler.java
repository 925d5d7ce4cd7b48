package dev.kvs.replication.backup;

import dev.kvs.core.Checksums;
import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.ValueChunk;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Assembles the values of one value channel from their chunks and verifies their CRC32C.
 *
 * <p>A value's chunks arrive in offset order on one channel, possibly interleaved with other values'
 * chunks. A one-chunk value needs no copy. A longer one gets a buffer of its full length at its first
 * chunk, reserved from the {@link AssemblyBudget} until its last chunk. A chunk that does not continue
 * its value (wrong offset, or a length, checksum, op or key different from the first chunk) abandons
 * the value: it is reported once as {@link Corrupt} so the primary resends it, and its remaining
 * chunks are ignored. A {@linkplain #isCancel cancel} drops a value being assembled without a report:
 * the primary abandoned it because its key was rewritten (the newer value follows). Not thread-safe: one instance per channel, used on its event loop.
 */
final class ValueAssembler implements AutoCloseable {
    /** What a chunk that ends or breaks a value yields. */
    sealed interface Result permits Whole, Corrupt {}

    /**
     * A whole value whose checksum matched, of a key that expires at {@code expireAtMillis} (0: never).
     * {@code bytes} is empty for a delete.
     */
    record Whole(TxId txId, Op op, byte[] key, byte[] bytes, int checksum, long expireAtMillis) implements Result {
        Whole(TxId txId, Op op, byte[] key, byte[] bytes, int checksum) {
            this(txId, op, key, bytes, checksum, 0);
        }
    }

    /** A value that cannot be applied: to be nacked. */
    record Corrupt(TxId txId, byte[] key, String reason) implements Result {}

    private static final int MAX_ABANDONED = 4096;

    private final AssemblyBudget.Lease lease;
    private final int maxValueBytes;
    private final Map<TxId, Assembly> assemblies = new HashMap<>();
    /** Values abandoned mid-way whose later chunks are ignored. */
    private final Set<TxId> abandoned = new HashSet<>();

    ValueAssembler(AssemblyBudget.Lease lease, int maxValueBytes) {
        this.lease = lease;
        this.maxValueBytes = maxValueBytes;
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
            Assembly a = new Assembly(c);
            lease.reserve(a.buffer.length);
            assemblies.put(txId, a);
            a.append(c.data());
            return null;
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
        a.append(c.data());
        if (!c.isLast()) return null;
        assemblies.remove(txId);
        lease.release(a.buffer.length);
        return verify(txId, a.op, a.key, a.buffer, (int) a.crc.getValue(), a.checksum, a.expireAt);
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
        if (actual != expected) {
            return new Corrupt(
                    txId,
                    key,
                    "checksum mismatch: CRC32C " + Integer.toHexString(actual) + " != "
                            + Integer.toHexString(expected));
        }
        return new Whole(txId, op, key, bytes, expected, expireAtMillis);
    }

    private void discard(TxId txId) {
        Assembly a = assemblies.remove(txId);
        if (a != null) lease.release(a.buffer.length);
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
        final byte[] buffer;
        final CRC32C crc = new CRC32C();
        int filled;

        Assembly(ValueChunk first) {
            this.op = first.op();
            this.key = first.key();
            this.checksum = first.checksum();
            this.expireAt = first.expireAtMillis();
            this.buffer = new byte[first.totalLength()];
        }

        String mismatch(ValueChunk c) {
            if (c.offset() != filled) return "chunk at offset " + c.offset() + ", expected " + filled;
            if (c.totalLength() != buffer.length) {
                return "chunk of a " + c.totalLength() + "-byte value, first chunk said " + buffer.length;
            }
            if (c.checksum() != checksum) return "chunks disagree on the checksum";
            if (c.op() != op) return "chunks disagree on the op: " + c.op() + " != " + op;
            if (!Arrays.equals(c.key(), key)) return "chunks disagree on the key";
            return null;
        }

        void append(byte[] data) {
            System.arraycopy(data, 0, buffer, filled, data.length);
            crc.update(data, 0, data.length);
            filled += data.length;
        }
    }
}
