package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A {@link Frame.StagedChunk}, encoded by its sender straight into a pooled direct buffer whose data
 * bytes the sender fills in place (cut-through copies them from the client's connection as they
 * arrive), so a staged chunk is copied once on its way to the socket: no chunk-sized array. Its bytes
 * are exactly what {@link FrameEncoder} writes for {@code new StagedChunk(sentNanos, stageId, key,
 * totalLength, offset, data)}; see {@link ChunkFrame} for how it is filled and sent. The staged
 * counterpart of {@link ValueChunkFrame}.
 */
public final class StagedChunkFrame extends ChunkFrame {
    private StagedChunkFrame(ByteBuf buf, int dataLength) {
        super(buf, dataLength);
    }

    /** The bytes the frame takes on the wire, length prefix included. */
    public static int size(byte[] key, int dataLength) {
        return size(MIN_STAGED_CHUNK_BYTES + (long) key.length + dataLength);
    }

    /**
     * Allocates the frame's direct buffer from {@code alloc} and writes every field but the data (left
     * for the caller to fill through {@link #data()}) and the send time (written by {@link #finish}).
     *
     * @throws IllegalArgumentException if the chunk {@code [offset, +dataLength)} is outside a value of
     *     {@code totalLength} bytes
     */
    public static StagedChunkFrame allocate(
            ByteBufAllocator alloc, long stageId, byte[] key, int totalLength, int offset, int dataLength) {
        if (offset < 0 || dataLength < 0 || totalLength < 0 || (long) offset + dataLength > totalLength) {
            throw new IllegalArgumentException(
                    "staged chunk [" + offset + ", +" + dataLength + ") outside value of " + totalLength + " bytes");
        }
        ByteBuf buf = start(alloc, size(key, dataLength), STAGED_CHUNK);
        try {
            buf.writeLong(stageId);
            writeBytes(buf, key);
            buf.writeInt(totalLength);
            buf.writeInt(offset);
            buf.writeInt(dataLength);
            return new StagedChunkFrame(buf, dataLength);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }
}
