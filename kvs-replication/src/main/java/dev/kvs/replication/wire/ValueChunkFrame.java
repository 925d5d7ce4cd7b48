package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A {@link Frame.ValueBatch} of one {@link Frame.Op#PUT} chunk (or a structure image's), encoded by its sender straight into a
 * pooled direct buffer whose data bytes the sender fills in place (the value shipper copies them from
 * the store), so a chunk of a large value is copied once on its way from the store to the socket: no
 * value-sized or chunk-sized array. Its bytes are exactly what {@link FrameEncoder} writes for {@code
 * new ValueBatch(sentNanos, List.of(new ValueChunk(txId, PUT, key, totalLength, checksum, offset,
 * data, expireAtMillis)))}; see {@link ChunkFrame} for how it is filled and sent.
 */
public final class ValueChunkFrame extends ChunkFrame {
    private ValueChunkFrame(ByteBuf buf, int dataLength) {
        super(buf, dataLength);
    }

    /** The bytes the frame takes on the wire, length prefix included. */
    public static int size(byte[] key, int dataLength) {
        return size(8 + 4 + MIN_VALUE_CHUNK_BYTES + (long) key.length + dataLength);
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
        return allocate(alloc, Frame.Op.PUT, txId, key, totalLength, checksum, offset, dataLength, expireAtMillis);
    }

    /**
     * As {@link #allocate(ByteBufAllocator, TxId, byte[], int, int, int, int, long)}, for a chunk of {@code op}:
     * {@link Frame.Op#PUT}, or {@link Frame.Op#HASH} or {@link Frame.Op#SET} for a structure's image.
     *
     * @throws IllegalArgumentException also if {@code op} carries no value or is a delete
     */
    public static ValueChunkFrame allocate(
            ByteBufAllocator alloc,
            Frame.Op op,
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
        if (op != Frame.Op.PUT && !op.isStructure()) throw new IllegalArgumentException("not a value's op: " + op);
        ByteBuf buf = start(alloc, size(key, dataLength), VALUE_BATCH);
        try {
            buf.writeInt(1); // one chunk
            writeTxId(buf, txId);
            writeEnum(buf, op);
            writeBytes(buf, key);
            buf.writeInt(totalLength);
            buf.writeInt(checksum);
            buf.writeInt(offset);
            buf.writeInt(dataLength);
            ValueChunkFrame frame = new ValueChunkFrame(buf, dataLength);
            buf.writeLong(expireAtMillis); // after the data region
            return frame;
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }
}
