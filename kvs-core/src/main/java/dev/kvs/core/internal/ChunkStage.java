package dev.kvs.core.internal;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.StageListener;
import dev.kvs.core.StorageException;
import dev.kvs.core.ValueRead;
import dev.kvs.core.ValueStage;
import java.nio.ByteBuffer;
import java.util.Objects;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;
import sun.misc.Unsafe;

/**
 * A large value staged in {@link ValueChunks} under a fresh blob id, chunk by chunk as its bytes come:
 * a whole chunk of the caller's array or buffer is written from it directly, and a chunk that arrives
 * in pieces is reserved in the store with its first piece ({@link ValueChunks#reserveChunk}) and each
 * piece copied into it in place, so every byte is copied once. No record refers to the blob
 * until {@link ChronicleKvStore#putStaged} commits it, so no reader sees it; closing an uncommitted
 * stage frees its chunks and its room. After a crash, the chunks of a stage never committed are
 * orphans, which opening a persisted store removes.
 *
 * <p>Other threads may read the chunks written so far ({@link #readRange}): each is written once and
 * never changed, and {@link #readable} is published (volatile) after it is stored, so a reader that
 * reads {@link #readable()} first finds those chunks whole. The blob id is fresh, so a read finds this
 * stage's bytes or misses a chunk (freed), never another value's.
 */
final class ChunkStage implements ValueStage {
    private enum State {
        OPEN,
        COMMITTED,
        CLOSED
    }

    final ChronicleKvStore owner;
    final long blobId;
    /** The store's {@link ChronicleKvStore#clear} count when the stage was opened. */
    final long generation;

    private final ValueChunks chunks;
    private final OpenGate gate;
    private final int length;
    private int written;
    /** The next chunk to write. */
    private int index;
    /** Where chunk {@link #index} is stored, once reserved (its first piece came), else 0. */
    private long reserved;
    /** The bytes of chunk {@link #index} copied into it so far, when it comes in pieces. */
    private int fill;
    /** Volatile: {@link #readRange} on another thread checks that the stage was not closed. */
    private volatile State state = State.OPEN;
    /** Bytes {@code [0, readable)} are in stored chunks: whole chunks written, or the whole value. */
    private volatile int readable;

    private StageListener listener;

    ChunkStage(ChronicleKvStore owner, OpenGate gate, ValueChunks chunks, long blobId, int length, long generation) {
        this.owner = owner;
        this.gate = gate;
        this.chunks = chunks;
        this.blobId = blobId;
        this.length = length;
        this.generation = generation;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int written() {
        return written;
    }

    @Override
    public void write(byte[] data, int offset, int count) {
        Objects.checkFromIndexSize(offset, count, data.length);
        admit(count);
        int before = readable;
        int slot = gate.enter();
        try {
            while (count > 0) {
                int chunk = chunkLength();
                int n;
                if (fill == 0 && count >= chunk) {
                    chunks.writeChunk(blobId, index, data, offset, chunk);
                    stored();
                    n = chunk;
                } else {
                    n = Math.min(chunk - fill, count);
                    fill(data, Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) offset, n, chunk);
                }
                offset += n;
                count -= n;
                written += n;
            }
        } finally {
            gate.exit(slot);
        }
        tell(before);
    }

    /**
     * Writes each whole chunk in {@code src} (a network buffer, say) into the store directly, with one
     * copy, and copies a chunk that arrives in pieces into its reservation as {@link #write(byte[], int,
     * int)} does.
     */
    @Override
    public void write(ByteBuffer src) {
        admit(src.remaining());
        int before = readable;
        int slot = gate.enter();
        try {
            while (src.hasRemaining()) {
                int chunk = chunkLength();
                int n;
                if (fill == 0 && src.remaining() >= chunk) {
                    chunks.writeChunk(blobId, index, src, chunk);
                    stored();
                    n = chunk;
                } else {
                    n = Math.min(chunk - fill, src.remaining());
                    fill(src, n, chunk);
                }
                written += n;
            }
        } finally {
            gate.exit(slot);
        }
        tell(before);
    }

    /**
     * Chunk {@link #index} was stored: publishes it to readers, after its bytes (the volatile write
     * orders them).
     */
    private void stored() {
        index++;
        readable = (int) Math.min((long) index * chunks.chunkBytes(), length);
    }

    /** Tells the listener if this write made more bytes readable than the {@code before} it began with. */
    private void tell(int before) {
        int now = readable;
        if (listener != null && now != before) listener.readable(now);
    }

    /** Checks that {@code count} more bytes may be written. */
    private void admit(int count) {
        if (state != State.OPEN)
            throw new IllegalStateException("stage is " + state.name().toLowerCase());
        if (count > length - written) {
            throw new IllegalArgumentException(written + " + " + count + " bytes written to a stage of " + length);
        }
    }

    /** The length of chunk {@link #index}: a whole chunk, or less for the value's last. */
    private int chunkLength() {
        int chunkBytes = chunks.chunkBytes();
        return Math.min(chunkBytes, length - index * chunkBytes);
    }

    /** Copies the next {@code n} bytes of {@code src} into chunk {@link #index}, advancing it. */
    private void fill(ByteBuffer src, int n, int chunk) {
        int at = src.position();
        if (src.isDirect()) {
            fill(null, Jvm.address(src) + at, n, chunk);
        } else if (src.hasArray()) {
            fill(src.array(), Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) src.arrayOffset() + at, n, chunk);
        } else {
            byte[] copy = new byte[n]; // a read-only heap buffer
            src.duplicate().get(copy);
            fill(copy, Unsafe.ARRAY_BYTE_BASE_OFFSET, n, chunk);
        }
        src.position(at + n);
    }

    /**
     * Copies {@code n} bytes at {@code base + from} (an array and its offset, or null and an address)
     * into chunk {@link #index}, of {@code chunk} bytes: reserves the chunk with its first piece, and
     * publishes it to readers once full. After a {@link ChronicleKvStore#clear} it copies nothing: the
     * reservation's memory may be another entry's, and the stage can no longer be committed or read.
     */
    private void fill(Object base, long from, int n, int chunk) {
        long stamp = owner.chunkFill.readLock();
        try {
            if (owner.generation() == generation) {
                if (reserved == 0) reserved = chunks.reserveChunk(blobId, index, chunk);
                UnsafeMemory.UNSAFE.copyMemory(base, from, null, reserved + fill, n);
            }
        } finally {
            owner.chunkFill.unlockRead(stamp);
        }
        fill += n;
        if (fill == chunk) {
            stored();
            fill = 0;
            reserved = 0;
        }
    }

    @Override
    public int readable() {
        return readable;
    }

    /**
     * Reads the stored chunks through the store's gate, as {@link ChronicleKvStore#readRange} does, so
     * a closed store is never read. False once the stage was closed uncommitted, or the store cleared
     * since it was opened (chunks written after the clear would otherwise still be found), or a chunk
     * is gone (freed with the stage or with the record it became).
     */
    @Override
    public boolean readRange(int offset, int length, ByteBuffer buffer) {
        ValueRead.checkRange(offset, length, buffer);
        int readable = this.readable;
        if ((long) offset + length > readable) {
            throw new IllegalArgumentException(
                    "range [" + offset + ", +" + length + ") passes the " + readable + " readable bytes of " + this);
        }
        if (!live()) return false;
        if (length == 0) return true;
        int slot;
        try {
            slot = gate.enter();
        } catch (StorageException closed) {
            return false;
        }
        try {
            return chunks.readRangeInto(blobId, this.length, offset, length, buffer) && live();
        } finally {
            gate.exit(slot);
        }
    }

    /** False once the stage's bytes are gone with it or with a {@link ChronicleKvStore#clear}. */
    private boolean live() {
        return state != State.CLOSED && owner.generation() == generation;
    }

    /**
     * Sets the listener, before the first write.
     *
     * @throws IllegalStateException if one is set, bytes were written, or the stage is not open
     */
    @Override
    public void listen(StageListener listener) {
        Objects.requireNonNull(listener, "listener == null");
        if (state != State.OPEN)
            throw new IllegalStateException("stage is " + state.name().toLowerCase());
        if (this.listener != null) throw new IllegalStateException("a listener is set already: " + this.listener);
        if (written > 0)
            throw new IllegalStateException("listen before the first write: " + written + " bytes written");
        this.listener = listener;
    }

    @Override
    public byte[] toArray() {
        if (!ready()) throw new IllegalStateException("not a whole open stage: " + this);
        return owner.readStaged(this);
    }

    /** True while the stage may be committed: open and written whole. */
    boolean ready() {
        return state == State.OPEN && written == length;
    }

    /**
     * Its record, with {@code header}, now refers to the blob: closing frees nothing. Called under the
     * key's lock, right after the record was written.
     */
    void committed(RecordHeader header) {
        state = State.COMMITTED;
        if (listener != null) listener.committed(header);
    }

    /** Frees an open stage's chunks and room, then tells the listener it was abandoned. */
    @Override
    public void close() {
        if (state != State.OPEN) return;
        state = State.CLOSED;
        try {
            owner.release(this);
        } finally {
            if (listener != null) listener.abandoned();
        }
    }

    @Override
    public String toString() {
        return "ChunkStage[blob " + blobId + ", " + written + "/" + length + ", "
                + state.name().toLowerCase() + "]";
    }
}
