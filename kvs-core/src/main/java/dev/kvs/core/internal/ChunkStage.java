package dev.kvs.core.internal;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.StageListener;
import dev.kvs.core.StorageException;
import dev.kvs.core.ValueRead;
import dev.kvs.core.ValueStage;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A large value staged in {@link ValueChunks} under a fresh blob id, chunk by chunk as its bytes come:
 * a whole chunk of the caller's array or buffer is written from it directly, and the bytes of a chunk
 * that arrives in pieces are gathered in a heap buffer of one chunk first. No record refers to the blob
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
    /** The bytes of chunk {@link #index} received so far, when it came in pieces. */
    private byte[] partial;

    private int partialFill;
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
                if (partialFill == 0 && count >= chunk) {
                    chunks.writeChunk(blobId, index, data, offset, chunk);
                    stored();
                    n = chunk;
                } else {
                    n = Math.min(chunk - partialFill, count);
                    System.arraycopy(data, offset, partial(), partialFill, n);
                    gathered(n, chunk);
                }
                offset += n;
                count -= n;
                written += n;
            }
        } finally {
            gate.exit(slot);
        }
        if (written == length) partial = null;
        tell(before);
    }

    /**
     * Writes each whole chunk in {@code src} (a network buffer, say) into the store directly, with one
     * copy, and gathers the bytes of a chunk that arrives in pieces as {@link #write(byte[], int, int)}
     * does.
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
                if (partialFill == 0 && src.remaining() >= chunk) {
                    chunks.writeChunk(blobId, index, src, chunk);
                    stored();
                    n = chunk;
                } else {
                    n = Math.min(chunk - partialFill, src.remaining());
                    src.get(partial(), partialFill, n);
                    gathered(n, chunk);
                }
                written += n;
            }
        } finally {
            gate.exit(slot);
        }
        if (written == length) partial = null;
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

    /** The gathering buffer, as long as the current chunk: no later chunk of the value is longer. */
    private byte[] partial() {
        if (partial == null) partial = new byte[chunkLength()];
        return partial;
    }

    /** {@code n} more bytes of a chunk of {@code chunk} bytes were gathered: writes it once whole. */
    private void gathered(int n, int chunk) {
        partialFill += n;
        if (partialFill == chunk) {
            chunks.writeChunk(blobId, index, partial, 0, chunk);
            stored();
            partialFill = 0;
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
        partial = null;
        if (listener != null) listener.committed(header);
    }

    /** Frees an open stage's chunks and room, then tells the listener it was abandoned. */
    @Override
    public void close() {
        if (state != State.OPEN) return;
        state = State.CLOSED;
        partial = null;
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
