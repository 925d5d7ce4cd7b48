package dev.kvs.replication.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameEncoderTest {
    private final EmbeddedChannel channel = new EmbeddedChannel(new FrameEncoder(Samples.MAX));

    private static String hex(Frame frame) {
        return HexFormat.of().formatHex(Samples.encode(frame));
    }

    @Test
    void writesLengthVersionTypeThenBigEndianFields() {
        assertThat(hex(new Frame.Heartbeat(0x0102030405060708L, true)))
                .isEqualTo("0000000b" + "0c" + "0c" + "0102030405060708" + "01");
        assertThat(hex(new Frame.KeyAck(TxId.of(1, 2))))
                .isEqualTo("00000012" + "0c" + "05" + "0000000000000001" + "0000000000000002");
        assertThat(hex(new Frame.Reject(Frame.RejectReason.VERSION, 7, "é")))
                .isEqualTo("0000000f" + "0c" + "03" + "03" + "0000000000000007" + "0002" + "c3a9");
        assertThat(hex(new Frame.ValueAck(List.of(TxId.of(0, 255)))))
                .isEqualTo("00000016" + "0c" + "0a" + "00000001" + "0000000000000000" + "00000000000000ff");
        assertThat(hex(new Frame.KeyBatch(
                        List.of(new Frame.KeyPacket(TxId.of(0, 1), Frame.Op.DELETE, new byte[] {9}, 3, -1)))))
                .isEqualTo("0000002c" + "0c" + "04" + "00000001" + "0000000000000000" + "0000000000000001" + "01"
                        + "0000000109" + "00000003" + "ffffffff" + "0000000000000000");
        assertThat(hex(new Frame.KeyBatch(
                        List.of(new Frame.KeyPacket(TxId.of(0, 1), Frame.Op.PUT, new byte[] {9}, 3, -1, 0x1234)))))
                .isEqualTo("0000002c" + "0c" + "04" + "00000001" + "0000000000000000" + "0000000000000001" + "00"
                        + "0000000109" + "00000003" + "ffffffff" + "0000000000001234");
        // version 4: Hello carries the dialler's client address; version 8: then its shard (empty: none)
        assertThat(hex(new Frame.Hello("c", "n", "p", 2, Frame.ChannelKind.KEY, 0, "h:1")))
                .isEqualTo("0000001f" + "0c" + "01" + "000163" + "00016e" + "000170" + "0000000000000002" + "00"
                        + "00000000" + "0003683a31" + "0000");
        assertThat(hex(new Frame.Hello("c", "n", "p", 2, Frame.ChannelKind.KEY, 0, "h:1", "s1")))
                .isEqualTo("00000021" + "0c" + "01" + "000163" + "00016e" + "000170" + "0000000000000002" + "00"
                        + "00000000" + "0003683a31" + "00027331");
        // a RENAME packet carries its source key after the expiry; FLUSH has no key
        assertThat(hex(new Frame.KeyBatch(List.of(
                        Frame.KeyPacket.rename(TxId.of(0, 2), new byte[] {7}, new byte[] {9}, 3, -1),
                        Frame.KeyPacket.flush(TxId.of(0, 3))))))
                .isEqualTo("00000056" + "0c" + "04" + "00000002" + "0000000000000000" + "0000000000000002" + "04"
                        + "0000000109" + "00000003" + "ffffffff" + "0000000000000000" + "0000000107"
                        + "0000000000000000" + "0000000000000003" + "03" + "00000000" + "00000000" + "00000000"
                        + "0000000000000000");
        // version 11: a packet of a unit sets the op byte's high bit; the unit (first TxId, size) follows
        assertThat(hex(new Frame.KeyBatch(
                        List.of(new Frame.KeyPacket(TxId.of(0, 2), Frame.Op.PUT, new byte[] {9}, 3, -1)
                                .inUnit(new Frame.Unit(TxId.of(0, 1), 2))))))
                .isEqualTo("00000040" + "0c" + "04" + "00000001" + "0000000000000000" + "0000000000000002" + "80"
                        + "0000000109" + "00000003" + "ffffffff" + "0000000000000000" + "0000000000000000"
                        + "0000000000000001" + "00000002");
        // version 5: cut-through frames
        assertThat(hex(new Frame.StagedChunk(0x0102, 3, new byte[] {9}, 10, 4, new byte[] {7, 8})))
                .isEqualTo("00000025" + "0c" + "14" + "0000000000000102" + "0000000000000003" + "0000000109"
                        + "0000000a" + "00000004" + "000000020708");
        assertThat(hex(new Frame.StageBind(3, TxId.of(1, 2), new byte[] {9}, -1, 0x1234)))
                .isEqualTo("0000002b" + "0c" + "15" + "0000000000000003" + "0000000000000001" + "0000000000000002"
                        + "0000000109" + "ffffffff" + "0000000000001234");
        assertThat(hex(new Frame.StageCancel(3))).isEqualTo("0000000a" + "0c" + "16" + "0000000000000003");
        // version 6: a value the backup's store refused, and why
        assertThat(hex(new Frame.ValueRefused(TxId.of(1, 2), new byte[] {9}, Frame.StoreRefusal.VALUE_TOO_LARGE, "é")))
                .isEqualTo("0000001c" + "0c" + "17" + "0000000000000001" + "0000000000000002" + "0000000109" + "01"
                        + "0002" + "c3a9");
        // version 6: what a backup lacks of a resync's listing
        assertThat(hex(new Frame.ResyncWants(
                        List.of(new Frame.KeyPacket(TxId.of(0, 1), Frame.Op.PUT, new byte[] {9}, 3, -1, 0x1234)))))
                .isEqualTo("0000002c" + "0c" + "18" + "00000001" + "0000000000000000" + "0000000000000001" + "00"
                        + "0000000109" + "00000003" + "ffffffff" + "0000000000001234");
        // version 10: an effect, its base after its TxId, then the members set and the members removed
        assertThat(hex(new Frame.Effect(
                        1,
                        TxId.of(0, 2),
                        TxId.of(0, 1),
                        Frame.Op.HASH,
                        new byte[] {9},
                        0,
                        List.of(new Frame.EffectMember(new byte[] {7}, new byte[] {8})),
                        List.of(new byte[] {5}))))
                .isEqualTo("0000004f" + "0c" + "19" + "0000000000000001" + "0000000000000000" + "0000000000000002"
                        + "0000000000000000" + "0000000000000001" + "06" + "0000000109" + "0000000000000000"
                        + "00000001" + "0000000107" + "0000000108" + "00000001" + "0000000105");
        assertFalse(channel.finish());
    }

    @Test
    void aStagedChunkFrameFilledInPlaceIsByteForByteTheEncodersStagedChunkAndDecodesBack() {
        byte[] key = {1, 2, 3};
        byte[] value = new byte[300];
        new java.util.Random(8).nextBytes(value);
        Frame.StagedChunk chunk = new Frame.StagedChunk(0x1122334455667788L, 42, key, 1000, 100, value);
        StagedChunkFrame frame =
                StagedChunkFrame.allocate(io.netty.buffer.PooledByteBufAllocator.DEFAULT, 42, key, 1000, 100, 300);
        java.nio.ByteBuffer data = frame.data();
        assertThat(data.remaining()).isEqualTo(300);
        assertThat(data.isDirect()).isTrue();
        data.put(value);
        ByteBuf buf = frame.finish(0x1122334455667788L);
        try {
            assertThat(buf.readableBytes())
                    .isEqualTo(FrameCodec.encodedSize(chunk))
                    .isEqualTo(StagedChunkFrame.size(key, 300));
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(buf)).isEqualTo(Samples.encode(chunk));
            EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(Samples.MAX));
            decoder.writeInbound(buf.retain());
            assertThat((Frame) decoder.readInbound()).isEqualTo(chunk);
            assertFalse(decoder.finish());
        } finally {
            buf.release();
        }
        assertThatThrownBy(() ->
                        StagedChunkFrame.allocate(io.netty.buffer.PooledByteBufAllocator.DEFAULT, 1, key, 10, 5, 6))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("staged chunk [5, +6) outside value of 10 bytes");
        StagedChunkFrame unsent =
                StagedChunkFrame.allocate(io.netty.buffer.PooledByteBufAllocator.DEFAULT, 1, key, 10, 0, 10);
        ByteBuf held = unsent.finish(0);
        assertThat(held.refCnt()).isEqualTo(1);
        unsent.release();
        assertThat(held.refCnt()).isZero();
        assertFalse(channel.finish());
    }

    @Test
    void stagedChunkRefusesBytesOutsideItsValue() {
        assertThatThrownBy(() -> new Frame.StagedChunk(0, 1, new byte[0], 4, 3, new byte[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("staged chunk [3, +2) outside value of 4 bytes");
        assertThatThrownBy(() -> new Frame.StagedChunk(0, 1, new byte[0], -1, 0, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Frame.StageBind(1, TxId.of(1, 1), new byte[0], 0, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expireAtMillis < 0: -1");
        assertThat(new Frame.StagedChunk(0, 1, new byte[] {1}, 4, 3, new byte[] {2}))
                .isEqualTo(new Frame.StagedChunk(0, 1, new byte[] {1}, 4, 3, new byte[] {2}))
                .hasSameHashCodeAs(new Frame.StagedChunk(0, 1, new byte[] {1}, 4, 3, new byte[] {2}))
                .isNotEqualTo(new Frame.StagedChunk(0, 1, new byte[] {1}, 4, 3, new byte[] {3}));
        assertThat(new Frame.StageBind(1, TxId.of(1, 1), new byte[] {1}, 0, 0))
                .isEqualTo(new Frame.StageBind(1, TxId.of(1, 1), new byte[] {1}, 0, 0))
                .isNotEqualTo(new Frame.StageBind(1, TxId.of(1, 1), new byte[] {2}, 0, 0));
        assertFalse(channel.finish());
    }

    @Test
    void aValueChunkFrameFilledInPlaceIsByteForByteTheEncodersValueBatchAndDecodesBack() {
        byte[] key = {1, 2, 3};
        byte[] value = new byte[300];
        new java.util.Random(7).nextBytes(value);
        Frame.ValueChunk chunk =
                new Frame.ValueChunk(TxId.of(4, 9), Frame.Op.PUT, key, 1000, 0xCAFE, 100, value, 1_700_000_000_000L);
        ValueChunkFrame frame = ValueChunkFrame.allocate(
                io.netty.buffer.PooledByteBufAllocator.DEFAULT,
                TxId.of(4, 9),
                key,
                1000,
                0xCAFE,
                100,
                300,
                1_700_000_000_000L);
        java.nio.ByteBuffer data = frame.data();
        assertThat(data.remaining()).isEqualTo(300);
        assertThat(data.isDirect()).isTrue();
        data.put(value);
        ByteBuf buf = frame.finish(0x1122334455667788L);
        try {
            Frame.ValueBatch batch = new Frame.ValueBatch(0x1122334455667788L, List.of(chunk));
            assertThat(buf.readableBytes())
                    .isEqualTo(FrameCodec.encodedSize(batch))
                    .isEqualTo(ValueChunkFrame.size(key, 300));
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(buf)).isEqualTo(Samples.encode(batch));
            EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder(Samples.MAX));
            decoder.writeInbound(buf.retain());
            assertThat((Frame) decoder.readInbound()).isEqualTo(batch);
            assertFalse(decoder.finish());
        } finally {
            buf.release();
        }
        assertThatThrownBy(() -> ValueChunkFrame.allocate(
                        io.netty.buffer.PooledByteBufAllocator.DEFAULT, TxId.of(1, 1), key, 10, 0, 5, 6, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertFalse(channel.finish());
    }

    @Test
    void stringOfMaxLengthIsWritten() {
        Frame frame = new Frame.Reject(Frame.RejectReason.BUSY, 1, "x".repeat(65535));
        assertThat(Samples.encode(frame)).hasSize(4 + 2 + 1 + 8 + 2 + 65535);
        assertFalse(channel.finish());
    }

    @Test
    void stringOverMaxUtf8BytesIsRejectedAndNothingWritten() {
        Frame frame = new Frame.Hello("é".repeat(32768), "n", "r", 1, Frame.ChannelKind.KEY, 0);
        assertThatThrownBy(() -> FrameCodec.encodedSize(frame))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("string of 65536 UTF-8 bytes > 65535");
        assertThatThrownBy(() -> channel.writeOutbound(frame))
                .isInstanceOf(EncoderException.class)
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .hasRootCauseMessage("string of 65536 UTF-8 bytes > 65535");
        assertThat(channel.outboundMessages()).isEmpty();
        assertFalse(channel.finish());
    }

    @Test
    void frameOverMaxIsRejectedAndNothingWritten() {
        EmbeddedChannel small = new EmbeddedChannel(new FrameEncoder(40));
        Frame fits = new Frame.ValueNack(TxId.ZERO, new byte[12], "");
        Frame tooBig = new Frame.ValueNack(TxId.ZERO, new byte[13], "");
        assertThat(FrameCodec.encodedSize(fits)).isEqualTo(40);
        assertThat(small.writeOutbound(fits)).isTrue();
        small.<ByteBuf>readOutbound().release();
        assertThatThrownBy(() -> small.writeOutbound(tooBig))
                .isInstanceOf(EncoderException.class)
                .hasRootCauseMessage("frame of 41 bytes > max 40: " + tooBig);
        assertThat(small.outboundMessages()).isEmpty();
        assertFalse(small.finish());
        assertFalse(channel.finish());
    }

    @Test
    void constructorRejectsMaxSmallerThanAnEmptyFrame() {
        assertThatThrownBy(() -> new FrameEncoder(5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxFrameBytes < 6: 5");
        assertFalse(channel.finish());
    }

    @Test
    void oneEncoderServesManyChannels() {
        FrameEncoder shared = new FrameEncoder();
        EmbeddedChannel a = new EmbeddedChannel(shared);
        EmbeddedChannel b = new EmbeddedChannel(shared);
        Frame frame = new Frame.Heartbeat(1, false);
        for (EmbeddedChannel c : List.of(a, b)) {
            assertThat(c.writeOutbound(frame)).isTrue();
            ByteBuf buf = c.readOutbound();
            assertThat(buf.readableBytes()).isEqualTo(FrameCodec.encodedSize(frame));
            buf.release();
        }
        assertThat(a.finishAndReleaseAll()).isFalse();
        assertThat(b.finishAndReleaseAll()).isFalse();
        assertFalse(channel.finish());
    }
}
