package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * A frame carrying one chunk of a value, encoded by its sender straight into a pooled direct buffer whose
 * data bytes the sender fills in place (read from the store), so a chunk is copied once on its way from
 * the store to the socket: {@link ValueChunkFrame} (a committed value's chunk) and {@link
 * StagedChunkFrame} (a chunk sent before the commit). The finished buffer is written to the channel as it
 * is (the encoder passes buffers on).
 *
 * <p>The caller owns the buffer until {@link #finish}, and must {@link #release} it if it does not send
 * it. Not thread-safe.
 */
public abstract sealed class ChunkFrame permits ValueChunkFrame, StagedChunkFrame {
    /** Where {@code sentNanos} is, in both kinds: after the length prefix, the version and the type. */
    private static final int SENT_NANOS_INDEX = LENGTH_BYTES + HEADER_BYTES;

    private final ByteBuf buf;
    private final int dataIndex;
    private final int dataLength;

    /** Takes over {@code buf}, whose data region starts at its writer index; skips it. */
    ChunkFrame(ByteBuf buf, int dataLength) {
        this.buf = buf;
        this.dataIndex = buf.writerIndex();
        this.dataLength = dataLength;
        buf.writerIndex(dataIndex + dataLength);
    }

    /**
     * A direct buffer of exactly {@code size} bytes holding the frame's length prefix, version, {@code type}
     * and a {@code sentNanos} to be set by {@link #finish}; the caller writes the rest, and releases it if
     * that fails.
     */
    static ByteBuf start(ByteBufAllocator alloc, int size, byte type) {
        ByteBuf buf = alloc.directBuffer(size, size);
        buf.writeInt(size - LENGTH_BYTES);
        buf.writeByte(Frame.VERSION);
        buf.writeByte(type);
        buf.writeLong(0); // sentNanos, set by finish
        return buf;
    }

    /** The frame's size on the wire from its size without the length prefix and header, checked. */
    static int size(long payloadBytes) {
        long size = LENGTH_BYTES + HEADER_BYTES + payloadBytes;
        if (size > Integer.MAX_VALUE) throw new IllegalArgumentException("frame of " + size + " bytes");
        return (int) size;
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
