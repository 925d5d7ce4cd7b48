package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.*;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Writes each {@link Frame} as {@code int length | byte version | byte type | payload} into a buffer
 * of exactly {@link FrameCodec#encodedSize(Frame)} bytes. A frame the format cannot carry (a string
 * over 65535 UTF-8 bytes, a frame over {@code maxFrameBytes}) fails the write with an {@link
 * io.netty.handler.codec.EncoderException} caused by an {@link IllegalArgumentException}; nothing
 * is written. Stateless and {@link Sharable}.
 */
@Sharable
public final class FrameEncoder extends MessageToByteEncoder<Frame> {
    private final int maxFrameBytes;

    /** An encoder for frames of any size up to {@code Integer.MAX_VALUE} bytes. */
    public FrameEncoder() {
        this(Integer.MAX_VALUE);
    }

    /**
     * An encoder refusing frames whose encoded size, length prefix included, exceeds {@code
     * maxFrameBytes}: the peer's {@link FrameDecoder} of the same limit would reject them.
     *
     * @throws IllegalArgumentException if {@code maxFrameBytes < 6}
     */
    public FrameEncoder(int maxFrameBytes) {
        super(Frame.class);
        this.maxFrameBytes = FrameDecoder.checkMax(maxFrameBytes);
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Frame frame, boolean preferDirect) {
        int size = encodedSize(frame);
        if (size > maxFrameBytes) {
            throw new IllegalArgumentException("frame of " + size + " bytes > max " + maxFrameBytes + ": " + frame);
        }
        return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0); // patched below, so the length is what was written, not what was predicted
        out.writeByte(Frame.VERSION);
        out.writeByte(type(frame));
        writePayload(out, frame);
        out.setInt(start, out.writerIndex() - start - LENGTH_BYTES);
    }

    /** See {@link FrameCodec#encodedSize(Frame)}. */
    static int encodedSize(Frame frame) {
        long size = LENGTH_BYTES + HEADER_BYTES + payloadSize(frame);
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("frame of " + size + " bytes > " + Integer.MAX_VALUE + ": " + frame);
        }
        return (int) size;
    }

    static byte type(Frame frame) {
        if (frame instanceof Frame.Hello) return HELLO;
        if (frame instanceof Frame.Welcome) return WELCOME;
        if (frame instanceof Frame.Reject) return REJECT;
        if (frame instanceof Frame.KeyBatch) return KEY_BATCH;
        if (frame instanceof Frame.KeyAck) return KEY_ACK;
        if (frame instanceof Frame.Resend) return RESEND;
        if (frame instanceof Frame.ResyncBegin) return RESYNC_BEGIN;
        if (frame instanceof Frame.ResyncEnd) return RESYNC_END;
        if (frame instanceof Frame.ValueBatch) return VALUE_BATCH;
        if (frame instanceof Frame.ValueAck) return VALUE_ACK;
        if (frame instanceof Frame.ValueNack) return VALUE_NACK;
        if (frame instanceof Frame.Heartbeat) return HEARTBEAT;
        if (frame instanceof Frame.Handover) return HANDOVER;
        if (frame instanceof Frame.HandbackWants) return HANDBACK_WANTS;
        if (frame instanceof Frame.HandbackEnd) return HANDBACK_END;
        if (frame instanceof Frame.ValueReceipt) return VALUE_RECEIPT;
        if (frame instanceof Frame.AuthInit) return AUTH_INIT;
        if (frame instanceof Frame.AuthChallenge) return AUTH_CHALLENGE;
        if (frame instanceof Frame.AuthProof) return AUTH_PROOF;
        if (frame instanceof Frame.StagedChunk) return STAGED_CHUNK;
        if (frame instanceof Frame.StageBind) return STAGE_BIND;
        if (frame instanceof Frame.StageCancel) return STAGE_CANCEL;
        if (frame instanceof Frame.ValueRefused) return VALUE_REFUSED;
        if (frame instanceof Frame.ResyncWants) return RESYNC_WANTS;
        if (frame instanceof Frame.Effect) return EFFECT;
        throw new IllegalArgumentException("unknown frame: " + frame);
    }

    private static long payloadSize(Frame frame) {
        if (frame instanceof Frame.Hello h) {
            return stringSize(h.cluster())
                    + stringSize(h.node())
                    + stringSize(h.role())
                    + 8
                    + 1
                    + 4
                    + stringSize(h.clientAddress())
                    + stringSize(h.shard());
        }
        if (frame instanceof Frame.Welcome w) {
            return stringSize(w.cluster()) + stringSize(w.node()) + stringSize(w.role()) + 8 + TXID_BYTES + 1;
        }
        if (frame instanceof Frame.Reject r) {
            return 1 + 8 + stringSize(r.message());
        }
        if (frame instanceof Frame.KeyBatch b) {
            long size = 4;
            for (Frame.KeyPacket p : b.packets()) size += keyPacketSize(p);
            return size;
        }
        if (frame instanceof Frame.ResyncWants w) {
            long size = 4;
            for (Frame.KeyPacket p : w.wanted()) size += keyPacketSize(p);
            return size;
        }
        if (frame instanceof Frame.ValueBatch b) {
            long size = 8 + 4;
            for (Frame.ValueChunk c : b.chunks()) size += valueChunkSize(c);
            return size;
        }
        if (frame instanceof Frame.ValueAck a) {
            return 4 + (long) TXID_BYTES * a.txIds().size();
        }
        if (frame instanceof Frame.ValueNack n) {
            return TXID_BYTES + bytesSize(n.key()) + stringSize(n.reason());
        }
        if (frame instanceof Frame.Heartbeat) {
            return 8 + 1;
        }
        if (frame instanceof Frame.Handover) {
            return 8;
        }
        if (frame instanceof Frame.HandbackWants w) {
            long size = TXID_BYTES + 4 + 1;
            for (Frame.KeyPacket p : w.wanted()) size += keyPacketSize(p);
            return size;
        }
        if (frame instanceof Frame.HandbackEnd) {
            return 4;
        }
        if (frame instanceof Frame.ValueReceipt) {
            return 8 + 8 + 4;
        }
        if (frame instanceof Frame.AuthInit a) {
            return bytesSize(a.nonce());
        }
        if (frame instanceof Frame.AuthChallenge c) {
            return bytesSize(c.nonce()) + bytesSize(c.proof());
        }
        if (frame instanceof Frame.AuthProof a) {
            return bytesSize(a.proof());
        }
        if (frame instanceof Frame.StagedChunk c) {
            return stagedChunkSize(c);
        }
        if (frame instanceof Frame.StageBind b) {
            return stageBindSize(b);
        }
        if (frame instanceof Frame.StageCancel) {
            return 8;
        }
        if (frame instanceof Frame.ValueRefused r) {
            return TXID_BYTES + bytesSize(r.key()) + 1 + stringSize(r.detail());
        }
        if (frame instanceof Frame.Effect e) {
            return effectSize(e);
        }
        return TXID_BYTES; // KeyAck, Resend, ResyncBegin, ResyncEnd
    }

    private static void writePayload(ByteBuf out, Frame frame) {
        if (frame instanceof Frame.Hello h) {
            writeString(out, h.cluster());
            writeString(out, h.node());
            writeString(out, h.role());
            out.writeLong(h.epoch());
            writeEnum(out, h.kind());
            out.writeInt(h.stream());
            writeString(out, h.clientAddress());
            writeString(out, h.shard());
        } else if (frame instanceof Frame.Welcome w) {
            writeString(out, w.cluster());
            writeString(out, w.node());
            writeString(out, w.role());
            out.writeLong(w.epoch());
            writeTxId(out, w.contiguous());
            writeBoolean(out, w.empty());
        } else if (frame instanceof Frame.Reject r) {
            writeEnum(out, r.reason());
            out.writeLong(r.epoch());
            writeString(out, r.message());
        } else if (frame instanceof Frame.KeyBatch b) {
            out.writeInt(b.packets().size());
            for (Frame.KeyPacket p : b.packets()) writeKeyPacket(out, p);
        } else if (frame instanceof Frame.ResyncWants w) {
            out.writeInt(w.wanted().size());
            for (Frame.KeyPacket p : w.wanted()) writeKeyPacket(out, p);
        } else if (frame instanceof Frame.KeyAck a) {
            writeTxId(out, a.upTo());
        } else if (frame instanceof Frame.Resend r) {
            writeTxId(out, r.after());
        } else if (frame instanceof Frame.ResyncBegin r) {
            writeTxId(out, r.upTo());
        } else if (frame instanceof Frame.ResyncEnd r) {
            writeTxId(out, r.upTo());
        } else if (frame instanceof Frame.ValueBatch b) {
            out.writeLong(b.sentNanos());
            out.writeInt(b.chunks().size());
            for (Frame.ValueChunk c : b.chunks()) writeValueChunk(out, c);
        } else if (frame instanceof Frame.ValueAck a) {
            out.writeInt(a.txIds().size());
            for (TxId txId : a.txIds()) writeTxId(out, txId);
        } else if (frame instanceof Frame.ValueNack n) {
            writeTxId(out, n.txId());
            writeBytes(out, n.key());
            writeString(out, n.reason());
        } else if (frame instanceof Frame.Heartbeat h) {
            out.writeLong(h.nanos());
            writeBoolean(out, h.reply());
        } else if (frame instanceof Frame.Handover h) {
            out.writeLong(h.epoch());
        } else if (frame instanceof Frame.HandbackWants w) {
            writeTxId(out, w.keysUpTo());
            out.writeInt(w.wanted().size());
            for (Frame.KeyPacket p : w.wanted()) writeKeyPacket(out, p);
            writeBoolean(out, w.last());
        } else if (frame instanceof Frame.HandbackEnd e) {
            out.writeInt(e.values());
        } else if (frame instanceof Frame.ValueReceipt r) {
            out.writeLong(r.sentNanos());
            out.writeLong(r.receivedNanos());
            out.writeInt(r.bytes());
        } else if (frame instanceof Frame.AuthInit a) {
            writeBytes(out, a.nonce());
        } else if (frame instanceof Frame.AuthChallenge c) {
            writeBytes(out, c.nonce());
            writeBytes(out, c.proof());
        } else if (frame instanceof Frame.AuthProof a) {
            writeBytes(out, a.proof());
        } else if (frame instanceof Frame.StagedChunk c) {
            writeStagedChunk(out, c);
        } else if (frame instanceof Frame.StageBind b) {
            writeStageBind(out, b);
        } else if (frame instanceof Frame.StageCancel c) {
            out.writeLong(c.stageId());
        } else if (frame instanceof Frame.ValueRefused r) {
            writeTxId(out, r.txId());
            writeBytes(out, r.key());
            writeEnum(out, r.reason());
            writeString(out, r.detail());
        } else if (frame instanceof Frame.Effect e) {
            writeEffect(out, e);
        }
    }
}
