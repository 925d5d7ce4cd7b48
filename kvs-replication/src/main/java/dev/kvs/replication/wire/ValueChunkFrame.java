package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * A {@link Frame.ValueBatch} of one {@link Frame.Op#PUT} chunk, encoded by its sender straight into a
 * pooled direct buffer whose data bytes the sender fills in place (the value shipper copies them from
 * the store), so a chunk of a large value is copied once on its way from the store to the socket: no
 * value-sized or chunk-sized array. Its bytes are exactly what {@link FrameEncoder} writes for {@code
 * new ValueBatch(sentNanos, List.of(new ValueChunk(txId, PUT, key, totalLength, checksum, offset,
 * data, expireAtMillis)))}; the finished buffer is written to the channel as it is (the encoder passes
 * buffers on).
 *
 * <p>The caller owns the buffer until {@link #finish}, and must {@link #release} it if it does not
 * send it. Not thread-safe.
 */
public final class ValueChunkFrame {
    /** Where {@code sentNanos} is: after the length prefix, the version and the type. */
    private static final int SENT_NANOS_INDEX = LENGTH_BYTES + HEADER_BYTES;

    private final ByteBuf buf;
    private final int dataIndex;
    private final int dataLength;

    private ValueChunkFrame(ByteBuf buf, int dataIndex, int dataLength) {
        this.buf = buf;
        this.dataIndex = dataIndex;
        this.dataLength = dataLength;
    }

    /** The bytes the frame takes on the wire, length prefix included. */
    public static int size(byte[] key, int dataLength) {
        long size = LENGTH_BYTES + HEADER_BYTES + 8 + 4 + MIN_VALUE_CHUNK_BYTES + (long) key.length + dataLength;
        if (size > Integer.MAX_VALUE) throw new IllegalArgumentException("frame of " + size + " bytes");
        return (int) size;
    }

    /**
     * Allocates the frame's direct buffer from {@code alloc} and writes every field but the data (left
     * for the caller to fill through {@link #data()}) and the send time (written by {@link #finish}).
     *
     * @throws IllegalArgumentException if the chunk {@code [offset, +dataLength)} is outside a value of
     *     {@code totalLength} bytes, or {@code expireAtMillis < 0}
     */
    public static ValueChunkFrame allocate(
            ByteBufAllocator alloc,
            TxId txId,
            byte[] key,
            int totalLength,
            int checksum,
            int offset,
            int dataLength,
            long expireAtMillis) {
        if (offset < 0 || dataLength < 0 || totalLength < 0 || (long) offset + dataLength > totalLength) {
            throw new IllegalArgumentException(
                    "chunk [" + offset + ", +" + dataLength + ") outside value of " + totalLength + " bytes");
        }
        if (expireAtMillis < 0) throw new IllegalArgumentException("expireAtMillis < 0: " + expireAtMillis);
        int size = size(key, dataLength);
        ByteBuf buf = alloc.directBuffer(size, size);
        try {
            buf.writeInt(size - LENGTH_BYTES);
            buf.writeByte(Frame.VERSION);
            buf.writeByte(VALUE_BATCH);
            buf.writeLong(0); // sentNanos, set by finish
            buf.writeInt(1); // one chunk
            writeTxId(buf, txId);
            writeEnum(buf, Frame.Op.PUT);
            writeBytes(buf, key);
            buf.writeInt(totalLength);
            buf.writeInt(checksum);
            buf.writeInt(offset);
            buf.writeInt(dataLength);
            int dataIndex = buf.writerIndex();
            buf.writerIndex(dataIndex + dataLength);
            buf.writeLong(expireAtMillis);
            return new ValueChunkFrame(buf, dataIndex, dataLength);
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
