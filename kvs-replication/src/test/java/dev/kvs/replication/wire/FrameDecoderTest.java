package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Samples.MAX;
import static dev.kvs.replication.wire.Samples.raw;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FrameDecoderTest {
    private static final Frame VALID = new Frame.Heartbeat(42, false);

    private final EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(MAX));

    static List<Frame> samples() {
        return Samples.all();
    }

    private static final String OTHER_RELEASE =
            ": the peer speaks another replication protocol (another kvs release); run the same release on both nodes";

    /** Feeds {@code bad}, expects the failure, then checks the decoder ignores a valid frame after it. */
    private void assertRejected(ByteBuf bad, String message) {
        assertThatThrownBy(() -> channel.writeInbound(bad))
                .isInstanceOf(FrameException.class)
                .hasMessage(message);
        assertThat(bad.refCnt()).isZero();
        assertThat(channel.inboundMessages()).isEmpty();
        assertIgnoresWhatFollows(channel);
    }

    private static void assertIgnoresWhatFollows(EmbeddedChannel channel) {
        ByteBuf next = Unpooled.wrappedBuffer(Samples.encode(VALID));
        assertThat(channel.writeInbound(next)).isFalse();
        assertThat(next.refCnt()).isZero();
        assertFalse(channel.finish());
    }

    private static ByteBuf lengthOnly(int length) {
        return Unpooled.buffer(4).writeInt(length);
    }

    @Test
    void rejectsLengthOverMaxBeforeTheBodyArrives() {
        assertRejected(lengthOnly(99_999_999), "frame length 99999999 + 4 > max 8388608");
    }

    @Test
    void acceptsAFrameOfExactlyMaxBytes() {
        EmbeddedChannel small = new EmbeddedChannel(new FrameDecoder(40));
        Frame fits = new Frame.ValueNack(TxId.ZERO, new byte[12], "");
        assertThat(small.writeInbound(Unpooled.wrappedBuffer(Samples.encode(fits))))
                .isTrue();
        assertThat((Frame) small.readInbound()).isEqualTo(fits);
        ByteBuf tooBig = Unpooled.wrappedBuffer(Samples.encode(new Frame.ValueNack(TxId.ZERO, new byte[13], "")));
        assertThatThrownBy(() -> small.writeInbound(tooBig))
                .isInstanceOf(FrameException.class)
                .hasMessage("frame length 37 + 4 > max 40");
        assertThat(tooBig.refCnt()).isZero();
        assertIgnoresWhatFollows(small);
        assertFalse(channel.finish());
    }

    @Test
    void rejectsLengthShorterThanTheHeader() {
        assertRejected(lengthOnly(1), "frame length 1 < 2");
    }

    @Test
    void rejectsZeroLength() {
        assertRejected(lengthOnly(0), "frame length 0 < 2");
    }

    @Test
    void rejectsNegativeLength() {
        assertRejected(lengthOnly(-7), "frame length -7 < 2");
    }

    @Test
    void rejectsOtherVersionAsSoonAsTheHeaderArrives() {
        ByteBuf header = Unpooled.buffer().writeInt(1000).writeByte(1).writeByte(Wire.HEARTBEAT);
        assertRejected(header, "frame version 1 != " + Frame.VERSION + OTHER_RELEASE);
    }

    @Test
    void rejectsVersionZero() {
        assertRejected(
                raw(0, Wire.HEARTBEAT, b -> b.writeLong(1).writeByte(0)),
                "frame version 0 != " + Frame.VERSION + OTHER_RELEASE);
    }

    @Test
    void rejectsTypeZero() {
        assertRejected(raw(0, b -> {}), "unknown frame type 0");
    }

    @Test
    void rejectsTypeAfterTheLast() {
        assertThat(Wire.LAST_TYPE).isEqualTo(Wire.EFFECT);
        assertRejected(raw(26, b -> b.writeLong(1).writeByte(0)), "unknown frame type 26");
    }

    @Test
    void rejectsStagedChunkOutsideItsValue() {
        ByteBuf bad = raw(Wire.STAGED_CHUNK, b -> {
            b.writeLong(0).writeLong(7).writeInt(1).writeByte('k');
            b.writeInt(12).writeInt(10).writeInt(5).writeZero(5);
        });
        assertThatThrownBy(() -> channel.writeInbound(bad))
                .isInstanceOf(FrameException.class)
                .hasMessage("invalid frame type 20: staged chunk [10, +5) outside value of 12 bytes")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(bad.refCnt()).isZero();
        assertIgnoresWhatFollows(channel);
    }

    @Test
    void rejectsStagedChunkAtNegativeOffset() {
        assertRejected(
                raw(Wire.STAGED_CHUNK, b -> {
                    b.writeLong(0).writeLong(7).writeInt(0);
                    b.writeInt(12).writeInt(-1).writeInt(0);
                }),
                "invalid frame type 20: staged chunk [-1, +0) outside value of 12 bytes");
    }

    @Test
    void rejectsStageBindWithNegativeExpiry() {
        assertRejected(
                raw(Wire.STAGE_BIND, b -> {
                    b.writeLong(7).writeLong(1).writeLong(2).writeInt(0);
                    b.writeInt(0).writeLong(-1);
                }),
                "expiry < 0: -1");
    }

    @Test
    void rejectsTypeWithHighBitSet() {
        assertRejected(raw(0xFF, b -> {}), "unknown frame type -1");
    }

    @ParameterizedTest
    @MethodSource("samples")
    void rejectsPayloadCutAtEveryPosition(Frame frame) {
        byte[] bytes = Samples.encode(frame);
        byte type = bytes[5];
        byte[] payload = Arrays.copyOfRange(bytes, 6, bytes.length);
        for (int cut = 0; cut < payload.length; cut++) {
            int n = cut;
            EmbeddedChannel fresh = new EmbeddedChannel(new FrameDecoder(MAX));
            ByteBuf truncated = raw(type, b -> b.writeBytes(payload, 0, n));
            assertThatThrownBy(() -> fresh.writeInbound(truncated))
                    .as("%s cut to %d of %d payload bytes", frame, n, payload.length)
                    .isInstanceOf(FrameException.class)
                    .hasMessageContaining("left in frame");
            assertThat(truncated.refCnt()).isZero();
            assertIgnoresWhatFollows(fresh);
        }
        assertFalse(channel.finish());
    }

    @ParameterizedTest
    @MethodSource("samples")
    void rejectsTrailingBytesInsideTheFrame(Frame frame) {
        byte[] bytes = Samples.encode(frame);
        ByteBuf padded =
                raw(bytes[5], b -> b.writeBytes(bytes, 6, bytes.length - 6).writeBytes(new byte[3]));
        assertRejected(padded, "3 trailing bytes in frame type " + bytes[5] + " of length " + (bytes.length - 4 + 3));
    }

    @Test
    void rejectsNegativeByteArrayLength() {
        assertRejected(
                raw(
                        Wire.VALUE_NACK,
                        b -> b.writeLong(0).writeLong(0).writeInt(-1).writeShort(0)),
                "key length < 0: -1");
    }

    @Test
    void rejectsNegativeChunkDataLength() {
        assertRejected(
                raw(Wire.VALUE_BATCH, b -> {
                    b.writeLong(0)
                            .writeInt(1)
                            .writeLong(0)
                            .writeLong(0)
                            .writeByte(0)
                            .writeInt(0);
                    b.writeInt(5)
                            .writeInt(0)
                            .writeInt(0)
                            .writeInt(Integer.MIN_VALUE)
                            .writeZero(5 + 8);
                }),
                "chunk data length < 0: -2147483648");
    }

    @Test
    void rejectsByteArrayLongerThanTheFrame() {
        assertRejected(
                raw(
                        Wire.VALUE_NACK,
                        b -> b.writeLong(0).writeLong(0).writeInt(100).writeZero(10)),
                "key needs 100 bytes, 10 left in frame");
    }

    @Test
    void rejectsStringLongerThanTheFrame() {
        assertRejected(
                raw(
                        Wire.REJECT,
                        b -> b.writeByte(0).writeLong(0).writeShort(0xFFFF).writeShort(0)),
                "message needs 65535 bytes, 2 left in frame");
    }

    @Test
    void rejectsCountTheFrameCannotHold() {
        assertRejected(
                raw(
                        Wire.VALUE_ACK,
                        b -> b.writeInt(Integer.MAX_VALUE).writeLong(0).writeLong(0)),
                "TxId count 2147483647 needs at least 34359738352 bytes, 16 left in frame");
    }

    @Test
    void rejectsKeyPacketCountOneMoreThanThePackets() {
        Frame.KeyPacket p = new Frame.KeyPacket(TxId.of(1, 1), Frame.Op.PUT, new byte[0], 0, 0);
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(2);
                    Wire.writeKeyPacket(b, p);
                }),
                "key packet count 2 needs at least 74 bytes, 37 left in frame");
    }

    @Test
    void rejectsNegativeCount() {
        assertRejected(raw(Wire.VALUE_BATCH, b -> b.writeLong(0).writeInt(-1)), "value chunk count < 0: -1");
    }

    @Test
    void rejectsChannelKindOrdinalOutOfRange() {
        assertRejected(
                raw(
                        Wire.HELLO,
                        b -> b.writeShort(0)
                                .writeShort(0)
                                .writeShort(0)
                                .writeLong(1)
                                .writeByte(3)
                                .writeInt(0)),
                "channel kind ordinal 3 >= 3");
    }

    @Test
    void rejectsRejectReasonOrdinalOutOfRange() {
        assertRejected(
                raw(Wire.REJECT, b -> b.writeByte(7).writeLong(0).writeShort(0)), "reject reason ordinal 7 >= 7");
    }

    @Test
    void rejectsStoreRefusalOrdinalOutOfRange() {
        assertRejected(
                raw(
                        Wire.VALUE_REFUSED,
                        b -> b.writeLong(0)
                                .writeLong(0)
                                .writeInt(0)
                                .writeByte(3)
                                .writeShort(0)),
                "store refusal ordinal 3 >= 3");
    }

    @Test
    void rejectsValueRefusedWithNegativeTxId() {
        assertRejected(
                raw(
                        Wire.VALUE_REFUSED,
                        b -> b.writeLong(0)
                                .writeLong(-1)
                                .writeInt(0)
                                .writeByte(0)
                                .writeShort(0)),
                "TxId has a negative part: 0:-1");
    }

    @Test
    void rejectsOpOrdinalOutOfRange() {
        assertRejected(
                raw(
                        Wire.KEY_BATCH,
                        b -> b.writeInt(1)
                                .writeLong(0)
                                .writeLong(0)
                                .writeByte(0x7F)
                                .writeInt(0)
                                .writeInt(0)
                                .writeInt(0)
                                .writeLong(0)),
                "op ordinal 127 >= " + Frame.Op.values().length);
    }

    /** A PUT packet of TxId 0:5 whose op byte says a unit marker follows: {@code first}, {@code size}. */
    private static ByteBuf markedPut(long firstSeq, int size) {
        return raw(Wire.KEY_BATCH, b -> {
            b.writeInt(1).writeLong(0).writeLong(5).writeByte(Frame.Op.PUT.ordinal() | 0x80);
            b.writeInt(1).writeByte('k').writeInt(0).writeInt(0).writeLong(0);
            b.writeLong(0).writeLong(firstSeq).writeInt(size);
        });
    }

    @Test
    void readsAUnitMarkerAfterThePacket() {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(MAX));
        channel.writeInbound(markedPut(4, 3));
        Frame.KeyBatch batch = channel.readInbound();
        assertThat(batch.packets().get(0).unit()).isEqualTo(new Frame.Unit(TxId.of(0, 4), 3));
    }

    @Test
    void rejectsAUnitOfOnePacket() {
        assertRejected(markedPut(4, 1), "unit size 1 not in [2, 1048576]");
    }

    @Test
    void rejectsAUnitLargerThanItsBound() {
        assertRejected(markedPut(4, Frame.Unit.MAX_SIZE + 1), "unit size 1048577 not in [2, 1048576]");
    }

    @Test
    void rejectsAUnitStartingAfterItsPacket() {
        assertRejected(markedPut(6, 2), "unit starting at 0:6 cannot hold key packet 0:5");
    }

    @Test
    void rejectsAMarkedPacketWithoutItsUnit() {
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(1).writeLong(0).writeLong(5).writeByte(Frame.Op.PUT.ordinal() | 0x80);
                    b.writeInt(1).writeByte('k').writeInt(0).writeInt(0).writeLong(0);
                }),
                "unit's first TxId needs 16 bytes, 0 left in frame");
    }

    @Test
    void rejectsBooleanOtherThanZeroOrOne() {
        assertRejected(raw(Wire.HEARTBEAT, b -> b.writeLong(0).writeByte(2)), "reply is not a boolean 0/1: 2");
    }

    @Test
    void rejectsNegativeTxId() {
        assertRejected(raw(Wire.KEY_ACK, b -> b.writeLong(-1).writeLong(0)), "upTo has a negative part: -1:0");
    }

    @Test
    void rejectsChunkOutsideItsValue() {
        ByteBuf bad = raw(Wire.VALUE_BATCH, b -> {
            b.writeLong(0)
                    .writeInt(1)
                    .writeLong(0)
                    .writeLong(1)
                    .writeByte(Frame.Op.PUT.ordinal())
                    .writeInt(0);
            b.writeInt(12).writeInt(0).writeInt(10).writeInt(5).writeZero(5).writeLong(0);
        });
        assertThatThrownBy(() -> channel.writeInbound(bad))
                .isInstanceOf(FrameException.class)
                .hasMessage("invalid frame type 9: chunk [10, +5) outside value of 12 bytes")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertIgnoresWhatFollows(channel);
    }

    @Test
    void rejectsAStructureImageChunkOutsideItsImage() {
        ByteBuf bad = raw(Wire.VALUE_BATCH, b -> {
            b.writeLong(0)
                    .writeInt(1)
                    .writeLong(0)
                    .writeLong(1)
                    .writeByte(Frame.Op.HASH.ordinal())
                    .writeInt(0);
            b.writeInt(12).writeInt(0).writeInt(10).writeInt(5).writeZero(5).writeLong(0);
        });
        assertThatThrownBy(() -> channel.writeInbound(bad))
                .isInstanceOf(FrameException.class)
                .hasMessage("invalid frame type 9: chunk [10, +5) outside value of 12 bytes")
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertIgnoresWhatFollows(channel);
    }

    @Test
    void rejectsAStructureImageChunkLongerThanTheFrame() {
        ByteBuf bad = raw(Wire.VALUE_BATCH, b -> {
            b.writeLong(0)
                    .writeInt(1)
                    .writeLong(0)
                    .writeLong(1)
                    .writeByte(Frame.Op.SET.ordinal())
                    .writeInt(0);
            b.writeInt(1 << 30)
                    .writeInt(0)
                    .writeInt(0)
                    .writeInt(1 << 30)
                    .writeZero(5)
                    .writeLong(0);
        });
        assertThatThrownBy(() -> channel.writeInbound(bad))
                .isInstanceOf(FrameException.class)
                .hasMessageContaining("chunk data needs 1073741824 bytes");
        assertIgnoresWhatFollows(channel);
    }

    /** An effect's fixed fields up to its set count: send time, TxId 0:2 on base 0:1, op, key "k", no expiry. */
    private static void effectHead(ByteBuf b, Frame.Op op) {
        b.writeLong(0).writeLong(0).writeLong(2).writeLong(0).writeLong(1).writeByte(op.ordinal());
        b.writeInt(1).writeByte('k').writeLong(0);
    }

    /** As {@link #assertRejected}, on a decoder of its own, so one test can show several effects rejected. */
    private static void assertEffectRejected(ByteBuf bad, String message) {
        EmbeddedChannel own = new EmbeddedChannel(new FrameDecoder(MAX));
        assertThatThrownBy(() -> own.writeInbound(bad))
                .isInstanceOf(FrameException.class)
                .hasMessage(message);
        assertThat(bad.refCnt()).isZero();
        assertThat(own.inboundMessages()).isEmpty();
        assertIgnoresWhatFollows(own);
    }

    @Test
    void rejectsAnEffectCountingMoreMembersThanItsBytesHold() {
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    effectHead(b, Frame.Op.HASH);
                    b.writeInt(Integer.MAX_VALUE).writeInt(0);
                }),
                "effect member count 2147483647 needs at least 17179869176 bytes, 4 left in frame");
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    effectHead(b, Frame.Op.SET);
                    b.writeInt(0).writeInt(3).writeInt(0);
                }),
                "removed member count 3 needs at least 12 bytes, 4 left in frame");
    }

    @Test
    void rejectsAnEffectMemberLongerThanTheFrame() {
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    effectHead(b, Frame.Op.HASH);
                    b.writeInt(1).writeInt(1).writeByte('f').writeInt(1 << 30).writeInt(0);
                }),
                "member value needs 1073741824 bytes, 4 left in frame");
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    effectHead(b, Frame.Op.HASH);
                    b.writeInt(0).writeInt(1).writeInt(-1);
                }),
                "removed member name length < 0: -1");
    }

    @Test
    void rejectsAnEffectNotAfterItsBaseOrNotOnAStructure() {
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    b.writeLong(0).writeLong(0).writeLong(2).writeLong(0).writeLong(2);
                    b.writeByte(Frame.Op.HASH.ordinal())
                            .writeInt(0)
                            .writeLong(0)
                            .writeInt(0)
                            .writeInt(0);
                }),
                "invalid frame type 25: effect's base 0:2 not before its TxId 0:2");
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    effectHead(b, Frame.Op.PUT);
                    b.writeInt(0).writeInt(0);
                }),
                "invalid frame type 25: an effect cannot be PUT");
        assertEffectRejected(
                raw(Wire.EFFECT, b -> {
                    effectHead(b, Frame.Op.SET);
                    b.writeInt(1)
                            .writeInt(1)
                            .writeByte('m')
                            .writeInt(1)
                            .writeByte('v')
                            .writeInt(0);
                }),
                "invalid frame type 25: a set's member has no value");
    }

    @Test
    void rejectsChunkAtNegativeOffset() {
        assertRejected(
                raw(Wire.VALUE_BATCH, b -> {
                    b.writeLong(0)
                            .writeInt(1)
                            .writeLong(0)
                            .writeLong(1)
                            .writeByte(Frame.Op.PUT.ordinal())
                            .writeInt(0);
                    b.writeInt(12).writeInt(0).writeInt(-1).writeInt(0).writeLong(0);
                }),
                "invalid frame type 9: chunk [-1, +0) outside value of 12 bytes");
    }

    @Test
    void rejectsNegativeExpiry() {
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(1).writeLong(0).writeLong(1).writeByte(Frame.Op.PUT.ordinal());
                    b.writeInt(0).writeInt(3).writeInt(0).writeLong(-1);
                }),
                "expiry < 0: -1");
    }

    @Test
    void rejectsSkipChunk() {
        assertRejected(
                raw(Wire.VALUE_BATCH, b -> {
                    b.writeLong(0)
                            .writeInt(1)
                            .writeLong(0)
                            .writeLong(1)
                            .writeByte(Frame.Op.SKIP.ordinal())
                            .writeInt(0);
                    b.writeInt(0).writeInt(0).writeInt(0).writeInt(0).writeLong(0);
                }),
                "invalid frame type 9: a value chunk cannot be SKIP");
    }

    @Test
    void rejectsSkipPacketWithAKey() {
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(1).writeLong(0).writeLong(1).writeByte(Frame.Op.SKIP.ordinal());
                    b.writeInt(1).writeByte('k').writeInt(0).writeInt(0).writeLong(0);
                }),
                "invalid frame type 4: SKIP packet carries a key");
    }

    @Test
    void rejectsFlushPacketWithAKey() {
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(1).writeLong(0).writeLong(1).writeByte(Frame.Op.FLUSH.ordinal());
                    b.writeInt(1).writeByte('k').writeInt(0).writeInt(0).writeLong(0);
                }),
                "invalid frame type 4: FLUSH packet carries a key");
    }

    @Test
    void rejectsRenamePacketWithoutItsSource() {
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(1).writeLong(0).writeLong(1).writeByte(Frame.Op.RENAME.ordinal());
                    b.writeInt(1).writeByte('k').writeInt(0).writeInt(0).writeLong(0);
                }),
                "rename source length needs 4 bytes, 0 left in frame");
    }

    @Test
    void rejectsRenameAndFlushChunks() {
        for (Frame.Op op : new Frame.Op[] {Frame.Op.RENAME, Frame.Op.FLUSH}) {
            EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX));
            ByteBuf bad = raw(Wire.VALUE_BATCH, b -> {
                b.writeLong(0)
                        .writeInt(1)
                        .writeLong(0)
                        .writeLong(1)
                        .writeByte(op.ordinal())
                        .writeInt(0);
                b.writeInt(0).writeInt(0).writeInt(0).writeInt(0).writeLong(0);
            });
            assertThatThrownBy(() -> ch.writeInbound(bad))
                    .isInstanceOf(FrameException.class)
                    .hasMessage("invalid frame type 9: a value chunk cannot be " + op);
            assertIgnoresWhatFollows(ch);
        }
    }

    @Test
    void keyPacketRefusesASourceUnlessItRenames() {
        TxId t = TxId.of(1, 1);
        assertThatThrownBy(() -> new Frame.KeyPacket(t, Frame.Op.PUT, new byte[] {1}, 0, 0, 0, new byte[] {2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("PUT packet carries a source key");
        assertThatThrownBy(() -> new Frame.KeyPacket(t, Frame.Op.FLUSH, new byte[0], 3, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("FLUSH packet has a value");
    }

    @Test
    void rejectsNegativeValueLength() {
        assertRejected(
                raw(Wire.KEY_BATCH, b -> {
                    b.writeInt(1).writeLong(0).writeLong(1).writeByte(Frame.Op.PUT.ordinal());
                    b.writeInt(0).writeInt(-3).writeInt(0).writeLong(0);
                }),
                "invalid frame type 4: valueLength < 0: -3");
    }

    @Test
    void ignoresEverythingAfterACorruptFrameInTheSameRead() {
        ByteBuf buf = Unpooled.buffer();
        buf.writeBytes(Samples.encode(VALID));
        buf.writeInt(1); // corrupt length
        buf.writeBytes(Samples.encode(VALID));
        assertThatThrownBy(() -> channel.writeInbound(buf))
                .isInstanceOf(FrameException.class)
                .hasMessage("frame length 1 < 2");
        assertThat((Frame) channel.readInbound()).isEqualTo(VALID);
        assertThat(channel.inboundMessages()).isEmpty();
        assertThat(buf.refCnt()).isZero();
        assertIgnoresWhatFollows(channel);
    }

    @Test
    void constructorRejectsMaxSmallerThanAnEmptyFrame() {
        assertThatThrownBy(() -> new FrameDecoder(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxFrameBytes < 6: 0");
        assertFalse(channel.finish());
    }
}
