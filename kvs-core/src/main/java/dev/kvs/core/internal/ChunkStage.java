package dev.kvs.core.internal;

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
    private State state = State.OPEN;

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
        int slot = gate.enter();
        try {
            while (count > 0) {
                int chunk = chunkLength();
                int n;
                if (partialFill == 0 && count >= chunk) {
                    chunks.writeChunk(blobId, index++, data, offset, chunk);
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
    }

    /**
     * Writes each whole chunk in {@code src} (a network buffer, say) into the store directly, with one
     * copy, and gathers the bytes of a chunk that arrives in pieces as {@link #write(byte[], int, int)}
     * does.
     */
    @Override
    public void write(ByteBuffer src) {
        admit(src.remaining());
        int slot = gate.enter();
        try {
            while (src.hasRemaining()) {
                int chunk = chunkLength();
                int n;
                if (partialFill == 0 && src.remaining() >= chunk) {
                    chunks.writeChunk(blobId, index++, src, chunk);
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
        return Math.min(ValueChunks.CHUNK_BYTES, length - index * ValueChunks.CHUNK_BYTES);
    }

    private byte[] partial() {
        if (partial == null) partial = new byte[ValueChunks.CHUNK_BYTES];
        return partial;
    }

    /** {@code n} more bytes of a chunk of {@code chunk} bytes were gathered: writes it once whole. */
    private void gathered(int n, int chunk) {
        partialFill += n;
        if (partialFill == chunk) {
            chunks.writeChunk(blobId, index++, partial, 0, chunk);
            partialFill = 0;
        }
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

    /** Its record now refers to the blob: closing frees nothing. */
    void committed() {
        state = State.COMMITTED;
        partial = null;
    }

    @Override
    public void close() {
        if (state != State.OPEN) return;
        state = State.CLOSED;
        partial = null;
        owner.release(this);
    }

    @Override
    public String toString() {
        return "ChunkStage[blob " + blobId + ", " + written + "/" + length + ", "
                + state.name().toLowerCase() + "]";
    }
}
