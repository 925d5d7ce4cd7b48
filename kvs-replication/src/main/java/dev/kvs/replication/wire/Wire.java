package dev.kvs.replication.wire;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire format's constants and field codecs, shared by {@link FrameEncoder} and {@link
 * FrameDecoder}. Readers check every length against the bytes left in the frame and throw {@link
 * FrameException}; writers throw {@link IllegalArgumentException} for a value the format cannot
 * carry.
 */
final class Wire {
    /** The {@code int length} prefix. */
    static final int LENGTH_BYTES = 4;
    /** {@code byte version | byte type}: the least a frame's length can be. */
    static final int HEADER_BYTES = 2;

    static final int MAX_STRING_BYTES = 0xFFFF;
    static final int TXID_BYTES = 16;
    /** TxId, op, key length, value length, checksum, expiry. */
    static final int MIN_KEY_PACKET_BYTES = TXID_BYTES + 1 + 4 + 4 + 4 + 8;
    /** The high bit of a key packet's op byte: a {@link Frame.Unit} marker follows the packet (version 11). */
    static final int IN_UNIT = 0x80;
    /** A unit marker: its first TxId and its size. */
    static final int UNIT_BYTES = TXID_BYTES + 4;
    /** TxId, op, key length, total length, checksum, offset, data length, expiry. */
    static final int MIN_VALUE_CHUNK_BYTES = TXID_BYTES + 1 + 4 + 4 + 4 + 4 + 4 + 8;
    /** Send time, stage id, key length, total length, offset, data length. */
    static final int MIN_STAGED_CHUNK_BYTES = 8 + 8 + 4 + 4 + 4 + 4;
    /** Stage id, TxId, key length, checksum, expiry. */
    static final int MIN_STAGE_BIND_BYTES = 8 + TXID_BYTES + 4 + 4 + 8;
    /** Send time, TxId, base TxId, op, key length, expiry, set count, removed count. */
    static final int MIN_EFFECT_BYTES = 8 + TXID_BYTES + TXID_BYTES + 1 + 4 + 8 + 4 + 4;
    /** An effect's set member: name length, value length. */
    static final int MIN_EFFECT_MEMBER_BYTES = 4 + 4;

    static final byte HELLO = 1;
    static final byte WELCOME = 2;
    static final byte REJECT = 3;
    static final byte KEY_BATCH = 4;
    static final byte KEY_ACK = 5;
    static final byte RESEND = 6;
    static final byte RESYNC_BEGIN = 7;
    static final byte RESYNC_END = 8;
    static final byte VALUE_BATCH = 9;
    static final byte VALUE_ACK = 10;
    static final byte VALUE_NACK = 11;
    static final byte HEARTBEAT = 12;
    static final byte HANDOVER = 13;
    static final byte HANDBACK_WANTS = 14;
    static final byte HANDBACK_END = 15;
    static final byte VALUE_RECEIPT = 16;
    static final byte AUTH_INIT = 17;
    static final byte AUTH_CHALLENGE = 18;
    static final byte AUTH_PROOF = 19;
    static final byte STAGED_CHUNK = 20;
    static final byte STAGE_BIND = 21;
    static final byte STAGE_CANCEL = 22;
    static final byte VALUE_REFUSED = 23;
    static final byte RESYNC_WANTS = 24;
    static final byte EFFECT = 25;
    /** The highest frame type. */
    static final byte LAST_TYPE = EFFECT;

    private static final Frame.ChannelKind[] CHANNEL_KINDS = Frame.ChannelKind.values();
    private static final Frame.Op[] OPS = Frame.Op.values();
    private static final Frame.RejectReason[] REJECT_REASONS = Frame.RejectReason.values();
    private static final Frame.StoreRefusal[] STORE_REFUSALS = Frame.StoreRefusal.values();

    private Wire() {}

    // ---- sizes (also validate what the writers would reject)

    static int stringSize(String s) {
        return 2 + utf8Length(s);
    }

    static int bytesSize(byte[] b) {
        return 4 + b.length;
    }

    /** A RENAME packet carries its source key after the expiry: {@code int length | bytes}. */
    static long keyPacketSize(Frame.KeyPacket p) {
        long size = MIN_KEY_PACKET_BYTES + (long) p.key().length;
        if (p.unit() != null) size += UNIT_BYTES;
        return p.op() == Frame.Op.RENAME ? size + bytesSize(p.source()) : size;
    }

    static long valueChunkSize(Frame.ValueChunk c) {
        return MIN_VALUE_CHUNK_BYTES + (long) c.key().length + c.data().length;
    }

    static long stagedChunkSize(Frame.StagedChunk c) {
        return MIN_STAGED_CHUNK_BYTES + (long) c.key().length + c.data().length;
    }

    static long stageBindSize(Frame.StageBind b) {
        return MIN_STAGE_BIND_BYTES + (long) b.key().length;
    }

    static long effectSize(Frame.Effect e) {
        long size = MIN_EFFECT_BYTES + (long) e.key().length;
        for (Frame.EffectMember m : e.set())
            size += MIN_EFFECT_MEMBER_BYTES + (long) m.name().length + m.value().length;
        for (byte[] name : e.removed()) size += bytesSize(name);
        return size;
    }

    private static int utf8Length(String s) {
        int n = ByteBufUtil.utf8Bytes(s);
        if (n > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("string of " + n + " UTF-8 bytes > " + MAX_STRING_BYTES);
        }
        return n;
    }

    // ---- writers

    static void writeString(ByteBuf out, String s) {
        int n = utf8Length(s);
        out.writeShort(n);
        ByteBufUtil.reserveAndWriteUtf8(out, s, n);
    }

    static void writeBytes(ByteBuf out, byte[] b) {
        out.writeInt(b.length);
        out.writeBytes(b);
    }

    static void writeTxId(ByteBuf out, TxId txId) {
        out.writeLong(txId.epoch());
        out.writeLong(txId.seq());
    }

    static void writeEnum(ByteBuf out, Enum<?> e) {
        out.writeByte(e.ordinal());
    }

    static void writeBoolean(ByteBuf out, boolean b) {
        out.writeByte(b ? 1 : 0);
    }

    static void writeKeyPacket(ByteBuf out, Frame.KeyPacket p) {
        writeTxId(out, p.txId());
        out.writeByte(p.op().ordinal() | (p.unit() == null ? 0 : IN_UNIT));
        writeBytes(out, p.key());
        out.writeInt(p.valueLength());
        out.writeInt(p.checksum());
        out.writeLong(p.expireAtMillis());
        if (p.op() == Frame.Op.RENAME) writeBytes(out, p.source());
        if (p.unit() != null) {
            writeTxId(out, p.unit().first());
            out.writeInt(p.unit().size());
        }
    }

    static void writeValueChunk(ByteBuf out, Frame.ValueChunk c) {
        writeTxId(out, c.txId());
        writeEnum(out, c.op());
        writeBytes(out, c.key());
        out.writeInt(c.totalLength());
        out.writeInt(c.checksum());
        out.writeInt(c.offset());
        writeBytes(out, c.data());
        out.writeLong(c.expireAtMillis());
    }

    static void writeStagedChunk(ByteBuf out, Frame.StagedChunk c) {
        out.writeLong(c.sentNanos());
        out.writeLong(c.stageId());
        writeBytes(out, c.key());
        out.writeInt(c.totalLength());
        out.writeInt(c.offset());
        writeBytes(out, c.data());
    }

    static void writeStageBind(ByteBuf out, Frame.StageBind b) {
        out.writeLong(b.stageId());
        writeTxId(out, b.txId());
        writeBytes(out, b.key());
        out.writeInt(b.checksum());
        out.writeLong(b.expireAtMillis());
    }

    static void writeEffect(ByteBuf out, Frame.Effect e) {
        out.writeLong(e.sentNanos());
        writeTxId(out, e.txId());
        writeTxId(out, e.base());
        writeEnum(out, e.op());
        writeBytes(out, e.key());
        out.writeLong(e.expireAtMillis());
        out.writeInt(e.set().size());
        for (Frame.EffectMember m : e.set()) {
            writeBytes(out, m.name());
            writeBytes(out, m.value());
        }
        out.writeInt(e.removed().size());
        for (byte[] name : e.removed()) writeBytes(out, name);
    }

    // ---- readers: every one checks the bytes left first

    static void need(ByteBuf in, long bytes, String what) {
        if (in.readableBytes() < bytes) {
            throw new FrameException(what + " needs " + bytes + " bytes, " + in.readableBytes() + " left in frame");
        }
    }

    static int readInt(ByteBuf in, String what) {
        need(in, 4, what);
        return in.readInt();
    }

    static long readLong(ByteBuf in, String what) {
        need(in, 8, what);
        return in.readLong();
    }

    static String readString(ByteBuf in, String what) {
        need(in, 2, what + " length");
        int n = in.readUnsignedShort();
        need(in, n, what);
        String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
        in.skipBytes(n);
        return s;
    }

    static byte[] readBytes(ByteBuf in, String what) {
        int n = readInt(in, what + " length");
        if (n < 0) throw new FrameException(what + " length < 0: " + n);
        need(in, n, what);
        byte[] b = new byte[n];
        in.readBytes(b);
        return b;
    }

    static TxId readTxId(ByteBuf in, String what) {
        need(in, TXID_BYTES, what);
        long epoch = in.readLong();
        long seq = in.readLong();
        if (epoch < 0 || seq < 0) throw new FrameException(what + " has a negative part: " + epoch + ":" + seq);
        return new TxId(epoch, seq);
    }

    static boolean readBoolean(ByteBuf in, String what) {
        need(in, 1, what);
        byte b = in.readByte();
        if (b != 0 && b != 1) throw new FrameException(what + " is not a boolean 0/1: " + b);
        return b == 1;
    }

    static Frame.ChannelKind readChannelKind(ByteBuf in) {
        return readEnum(in, CHANNEL_KINDS, "channel kind");
    }

    static Frame.Op readOp(ByteBuf in) {
        return readEnum(in, OPS, "op");
    }

    static Frame.RejectReason readRejectReason(ByteBuf in) {
        return readEnum(in, REJECT_REASONS, "reject reason");
    }

    static Frame.StoreRefusal readStoreRefusal(ByteBuf in) {
        return readEnum(in, STORE_REFUSALS, "store refusal");
    }

    private static <E extends Enum<E>> E readEnum(ByteBuf in, E[] values, String what) {
        need(in, 1, what);
        int ordinal = in.readUnsignedByte();
        if (ordinal >= values.length) {
            throw new FrameException(what + " ordinal " + ordinal + " >= " + values.length);
        }
        return values[ordinal];
    }

    /** A list's count, checked against what the bytes left could hold before anything is allocated. */
    static int readCount(ByteBuf in, int minElementBytes, String what) {
        int n = readInt(in, what + " count");
        if (n < 0) throw new FrameException(what + " count < 0: " + n);
        if ((long) n * minElementBytes > in.readableBytes()) {
            throw new FrameException(what + " count " + n + " needs at least " + (long) n * minElementBytes + " bytes, "
                    + in.readableBytes() + " left in frame");
        }
        return n;
    }

    static Frame.KeyPacket readKeyPacket(ByteBuf in) {
        TxId txId = readTxId(in, "key packet TxId");
        need(in, 1, "op");
        int opByte = in.readUnsignedByte();
        boolean inUnit = (opByte & IN_UNIT) != 0;
        int ordinal = opByte & ~IN_UNIT;
        if (ordinal >= OPS.length) throw new FrameException("op ordinal " + ordinal + " >= " + OPS.length);
        Frame.Op op = OPS[ordinal];
        byte[] key = readBytes(in, "key");
        int valueLength = readInt(in, "value length");
        int checksum = readInt(in, "checksum");
        long expireAt = readExpiry(in);
        Frame.KeyPacket p = op == Frame.Op.RENAME
                ? Frame.KeyPacket.rename(txId, readBytes(in, "rename source"), key, valueLength, checksum, expireAt)
                : new Frame.KeyPacket(txId, op, key, valueLength, checksum, expireAt);
        if (!inUnit) return p;
        TxId first = readTxId(in, "unit's first TxId");
        int size = readInt(in, "unit size");
        if (size < 2 || size > Frame.Unit.MAX_SIZE) {
            throw new FrameException("unit size " + size + " not in [2, " + Frame.Unit.MAX_SIZE + "]");
        }
        if (first.epoch() != txId.epoch() || first.compareTo(txId) > 0) {
            throw new FrameException("unit starting at " + first + " cannot hold key packet " + txId);
        }
        return p.inUnit(new Frame.Unit(first, size));
    }

    static Frame.ValueChunk readValueChunk(ByteBuf in) {
        TxId txId = readTxId(in, "value chunk TxId");
        Frame.Op op = readOp(in);
        byte[] key = readBytes(in, "key");
        int totalLength = readInt(in, "total length");
        int checksum = readInt(in, "checksum");
        int offset = readInt(in, "offset");
        byte[] data = readBytes(in, "chunk data");
        long expireAt = readExpiry(in);
        return new Frame.ValueChunk(txId, op, key, totalLength, checksum, offset, data, expireAt);
    }

    static Frame.StagedChunk readStagedChunk(ByteBuf in) {
        long sentNanos = readLong(in, "sentNanos");
        long stageId = readLong(in, "stage id");
        byte[] key = readBytes(in, "key");
        int totalLength = readInt(in, "total length");
        int offset = readInt(in, "offset");
        byte[] data = readBytes(in, "chunk data");
        return new Frame.StagedChunk(sentNanos, stageId, key, totalLength, offset, data);
    }

    static Frame.StageBind readStageBind(ByteBuf in) {
        long stageId = readLong(in, "stage id");
        TxId txId = readTxId(in, "stage bind TxId");
        byte[] key = readBytes(in, "key");
        int checksum = readInt(in, "checksum");
        long expireAt = readExpiry(in);
        return new Frame.StageBind(stageId, txId, key, checksum, expireAt);
    }

    /** Every count and length is checked against the bytes left before anything of its size is allocated. */
    static Frame.Effect readEffect(ByteBuf in) {
        long sentNanos = readLong(in, "sentNanos");
        TxId txId = readTxId(in, "effect TxId");
        TxId base = readTxId(in, "effect base TxId");
        Frame.Op op = readOp(in);
        byte[] key = readBytes(in, "key");
        long expireAt = readExpiry(in);
        int setCount = readCount(in, MIN_EFFECT_MEMBER_BYTES, "effect member");
        List<Frame.EffectMember> set = new ArrayList<>(setCount);
        for (int i = 0; i < setCount; i++) {
            set.add(new Frame.EffectMember(readBytes(in, "member name"), readBytes(in, "member value")));
        }
        int removedCount = readCount(in, 4, "removed member");
        List<byte[]> removed = new ArrayList<>(removedCount);
        for (int i = 0; i < removedCount; i++) removed.add(readBytes(in, "removed member name"));
        return new Frame.Effect(sentNanos, txId, base, op, key, expireAt, set, removed);
    }

    private static long readExpiry(ByteBuf in) {
        long at = readLong(in, "expiry");
        if (at < 0) throw new FrameException("expiry < 0: " + at);
        return at;
    }
}
