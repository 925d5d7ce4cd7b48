package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * A {@link Frame.StagedChunk}, encoded by its sender straight into a pooled direct buffer whose data
 * bytes the sender fills in place (cut-through copies them from the client's connection as they
 * arrive), so a staged chunk is copied once on its way to the socket: no chunk-sized array. Its bytes
 * are exactly what {@link FrameEncoder} writes for {@code new StagedChunk(sentNanos, stageId, key,
 * totalLength, offset, data)}; the finished buffer is written to the channel as it is (the encoder
 * passes buffers on). The staged counterpart of {@link ValueChunkFrame}.
 *
 * <p>The caller owns the buffer until {@link #finish}, and must {@link #release} it if it does not
 * send it. Not thread-safe.
 */
public final class StagedChunkFrame {
    /** Where {@code sentNanos} is: after the length prefix, the version and the type. */
    private static final int SENT_NANOS_INDEX = LENGTH_BYTES + HEADER_BYTES;

    private final ByteBuf buf;
    private final int dataIndex;
    private final int dataLength;

    private StagedChunkFrame(ByteBuf buf, int dataIndex, int dataLength) {
        this.buf = buf;
        this.dataIndex = dataIndex;
        this.dataLength = dataLength;
    }

    /** The bytes the frame takes on the wire, length prefix included. */
    public static int size(byte[] key, int dataLength) {
        long size = LENGTH_BYTES + HEADER_BYTES + MIN_STAGED_CHUNK_BYTES + (long) key.length + dataLength;
        if (size > Integer.MAX_VALUE) throw new IllegalArgumentException("frame of " + size + " bytes");
        return (int) size;
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
        int size = size(key, dataLength);
        ByteBuf buf = alloc.directBuffer(size, size);
        try {
            buf.writeInt(size - LENGTH_BYTES);
            buf.writeByte(Frame.VERSION);
            buf.writeByte(STAGED_CHUNK);
            buf.writeLong(0); // sentNanos, set by finish
            buf.writeLong(stageId);
            writeBytes(buf, key);
            buf.writeInt(totalLength);
            buf.writeInt(offset);
            buf.writeInt(dataLength);
            int dataIndex = buf.writerIndex();
            buf.writerIndex(dataIndex + dataLength);
            return new StagedChunkFrame(buf, dataIndex, dataLength);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /**
     * The data region: a buffer of {@code dataLength} bytes remaining (position 0) over the frame's own
     * memory, for the caller to fill completely before {@link #finish}.
     */
    public ByteBuffer data() {
        return buf.nioBuffer(dataIndex, dataLength);
    }

    /** Writes the send time and hands the buffer over: the caller writes it to the channel. */
    public ByteBuf finish(long sentNanos) {
        buf.setLong(SENT_NANOS_INDEX, sentNanos);
        return buf;
    }

    /** Frees the buffer of a frame that will not be sent. */
    public void release() {
        buf.release();
    }
}
