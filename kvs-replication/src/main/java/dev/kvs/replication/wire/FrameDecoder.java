package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Reads {@code int length | byte version | byte type | payload} frames into {@link Frame}s. A frame
 * split across reads waits for its last byte; byte arrays are copied out, so decoded frames hold no
 * buffer.
 *
 * <p>Anything that breaks the format (see {@link FrameException}) fails the read with a {@link
 * FrameException} quoting the bad value; from then on the decoder discards every byte it receives,
 * as nothing after a corrupt frame can be trusted. One instance per channel; not {@code @Sharable}.
 *
 * <p>Once {@linkplain FrameCodec#startMacs MACs are started} every frame must be followed by its
 * {@link FrameMac} tag, checked before anything of the frame but its length is read: a frame that
 * fails closes the connection, and nothing of it is decoded (a WARN, rate-limited, and {@link
 * FrameMac#failures()} count it).
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    private enum State {
        DECODING,
        DISCARDING
    }

    private int maxFrameBytes;
    private State state = State.DECODING;
    /** Checks the tag after each frame; null: frames carry none. */
    private FrameMac mac;

    /**
     * @param maxFrameBytes the largest frame accepted, its 4-byte length prefix included: a frame is
     *     accepted iff {@code FrameCodec.encodedSize(frame) <= maxFrameBytes}
     * @throws IllegalArgumentException if {@code maxFrameBytes < 6}
     */
    public FrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = checkMax(maxFrameBytes);
    }

    /** Changes the largest frame accepted from now on (e.g. raised once a handshake is done). */
    void maxFrameBytes(int maxFrameBytes) {
        this.maxFrameBytes = checkMax(maxFrameBytes);
    }

    /** Every frame from the next one on is followed by its tag, checked by {@code mac}. */
    void startMac(FrameMac mac) {
        this.mac = mac;
    }

    static int checkMax(int maxFrameBytes) {
        if (maxFrameBytes < LENGTH_BYTES + HEADER_BYTES) {
            throw new IllegalArgumentException(
                    "maxFrameBytes < " + (LENGTH_BYTES + HEADER_BYTES) + ": " + maxFrameBytes);
        }
        return maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.DISCARDING) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            if (mac != null && !tagged(in)) {
                FrameMac.failed(ctx.channel().remoteAddress(), mac.next() - 1);
                state = State.DISCARDING;
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            Frame frame = decodeFrame(in);
            if (frame != null) out.add(frame);
        } catch (FrameException e) {
            state = State.DISCARDING;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    /**
     * False if the frame at the start of {@code in} has all arrived with its tag and the tag is wrong;
     * true if it is right (the frame's bytes are then decoded), or the frame or its tag have not all
     * arrived yet. Checks the frame's length first, so a frame over the limit is never buffered.
     */
    private boolean tagged(ByteBuf in) {
        int length = frameLength(in);
        if (length < 0 || in.readableBytes() < LENGTH_BYTES + length + FrameMac.TAG_BYTES) return true;
        int start = in.readerIndex();
        return mac.verify(in, start, LENGTH_BYTES + length, start + LENGTH_BYTES + length);
    }

    /** The length field of the frame at the start of {@code in}, checked; -1 while it has not arrived. */
    private int frameLength(ByteBuf in) {
        if (in.readableBytes() < LENGTH_BYTES) return -1;
        int length = in.getInt(in.readerIndex());
        if (length < HEADER_BYTES) throw new FrameException("frame length " + length + " < " + HEADER_BYTES);
        if (length > maxFrameBytes - LENGTH_BYTES) {
            throw new FrameException("frame length " + length + " + " + LENGTH_BYTES + " > max " + maxFrameBytes);
        }
        return length;
    }

    /** One frame, or null while it is incomplete; consumes the frame's bytes (and tag) when it returns one. */
    private Frame decodeFrame(ByteBuf in) {
        int length = frameLength(in);
        if (length < 0) return null;
        int start = in.readerIndex();
        int tagBytes = mac == null ? 0 : FrameMac.TAG_BYTES;
        // With a MAC, nothing but the length is read before the tag is checked: the whole frame first.
        if (in.readableBytes() < LENGTH_BYTES + length + tagBytes) {
            // Without, check the header as soon as it arrives rather than buffering a bad frame first.
            if (mac != null || in.readableBytes() < LENGTH_BYTES + HEADER_BYTES) return null;
        }
        byte version = in.getByte(start + LENGTH_BYTES);
        if (version != Frame.VERSION) {
            throw new FrameException("frame version " + version + " != " + Frame.VERSION
                    + ": the peer speaks another replication protocol (another kvs release); run the same"
                    + " release on both nodes");
        }
        byte type = in.getByte(start + LENGTH_BYTES + 1);
        if (type < HELLO || type > LAST_TYPE) throw new FrameException("unknown frame type " + type);
        if (in.readableBytes() < LENGTH_BYTES + length + tagBytes) return null;

        in.skipBytes(LENGTH_BYTES + HEADER_BYTES);
        ByteBuf payload = in.readSlice(length - HEADER_BYTES);
        Frame frame;
        try {
            frame = readPayload(type, payload);
        } catch (IllegalArgumentException e) { // a record's constructor refused the decoded values
            throw new FrameException("invalid frame type " + type + ": " + e.getMessage(), e);
        }
        if (payload.isReadable()) {
            throw new FrameException(
                    payload.readableBytes() + " trailing bytes in frame type " + type + " of length " + length);
        }
        in.skipBytes(tagBytes); // checked before the frame was read
        return frame;
    }

    private static Frame readPayload(byte type, ByteBuf in) {
        switch (type) {
            case HELLO:
                return new Frame.Hello(
                        readString(in, "cluster"),
                        readString(in, "node"),
                        readString(in, "role"),
                        readLong(in, "epoch"),
                        readChannelKind(in),
                        readInt(in, "stream"),
                        readString(in, "clientAddress"),
                        readString(in, "shard"));
            case WELCOME:
                return new Frame.Welcome(
                        readString(in, "cluster"),
                        readString(in, "node"),
                        readString(in, "role"),
                        readLong(in, "epoch"),
                        readTxId(in, "contiguous"),
                        readBoolean(in, "empty"));
            case REJECT:
                return new Frame.Reject(readRejectReason(in), readLong(in, "epoch"), readString(in, "message"));
            case KEY_BATCH:
                return new Frame.KeyBatch(readKeyPackets(in));
            case KEY_ACK:
                return new Frame.KeyAck(readTxId(in, "upTo"));
            case RESEND:
                return new Frame.Resend(readTxId(in, "after"));
            case RESYNC_BEGIN:
                return new Frame.ResyncBegin(readTxId(in, "upTo"));
            case RESYNC_END:
                return new Frame.ResyncEnd(readTxId(in, "upTo"));
            case VALUE_BATCH:
                return new Frame.ValueBatch(readLong(in, "sentNanos"), readValueChunks(in));
            case VALUE_ACK:
                return new Frame.ValueAck(readTxIds(in));
            case VALUE_NACK:
                return new Frame.ValueNack(readTxId(in, "TxId"), readBytes(in, "key"), readString(in, "reason"));
            case HEARTBEAT:
                return new Frame.Heartbeat(readLong(in, "nanos"), readBoolean(in, "reply"));
            case HANDOVER:
                return new Frame.Handover(readLong(in, "epoch"));
            case HANDBACK_WANTS:
                return new Frame.HandbackWants(readTxId(in, "keysUpTo"), readKeyPackets(in), readBoolean(in, "last"));
            case HANDBACK_END:
                return new Frame.HandbackEnd(readInt(in, "values"));
            case VALUE_RECEIPT:
                return new Frame.ValueReceipt(
                        readLong(in, "sentNanos"), readLong(in, "receivedNanos"), readInt(in, "bytes"));
            case AUTH_INIT:
                return new Frame.AuthInit(readBytes(in, "nonce"));
            case AUTH_CHALLENGE:
                return new Frame.AuthChallenge(readBytes(in, "nonce"), readBytes(in, "proof"));
            case AUTH_PROOF:
                return new Frame.AuthProof(readBytes(in, "proof"));
            case STAGED_CHUNK:
                return readStagedChunk(in);
            case STAGE_BIND:
                return readStageBind(in);
            case STAGE_CANCEL:
                return new Frame.StageCancel(readLong(in, "stage id"));
            case RESYNC_WANTS:
                return new Frame.ResyncWants(readKeyPackets(in));
            case EFFECT:
                return readEffect(in);
            case VALUE_REFUSED:
                return new Frame.ValueRefused(
                        readTxId(in, "TxId"), readBytes(in, "key"), readStoreRefusal(in), readString(in, "detail"));
            default:
                throw new FrameException("unknown frame type " + type);
        }
    }

    private static List<Frame.KeyPacket> readKeyPackets(ByteBuf in) {
        int n = readCount(in, MIN_KEY_PACKET_BYTES, "key packet");
        List<Frame.KeyPacket> packets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) packets.add(readKeyPacket(in));
        return Collections.unmodifiableList(packets);
    }

    private static List<Frame.ValueChunk> readValueChunks(ByteBuf in) {
        int n = readCount(in, MIN_VALUE_CHUNK_BYTES, "value chunk");
        List<Frame.ValueChunk> chunks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) chunks.add(readValueChunk(in));
        return Collections.unmodifiableList(chunks);
    }

    private static List<TxId> readTxIds(ByteBuf in) {
        int n = readCount(in, TXID_BYTES, "TxId");
        List<TxId> txIds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) txIds.add(readTxId(in, "TxId"));
        return Collections.unmodifiableList(txIds);
    }
}
