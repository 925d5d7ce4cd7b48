package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Samples.MAX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FrameCodecTest {
    private final EmbeddedChannel channel = codecChannel();

    private static EmbeddedChannel codecChannel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        FrameCodec.install(channel.pipeline(), MAX);
        return channel;
    }

    static List<Frame> samples() {
        return Samples.all();
    }

    /** Encodes through the pipeline, feeds the bytes back in, returns what was decoded. */
    private Frame roundTrip(Frame frame) {
        assertThat(channel.writeOutbound(frame)).isTrue();
        ByteBuf encoded = channel.readOutbound();
        assertThat(encoded.readableBytes()).isEqualTo(FrameCodec.encodedSize(frame));
        channel.writeInbound(encoded);
        assertThat(encoded.refCnt()).isZero();
        return channel.readInbound();
    }

    @ParameterizedTest
    @MethodSource("samples")
    void everyFrameTypeRoundTrips(Frame frame) {
        assertThat(roundTrip(frame)).isEqualTo(frame);
        assertFalse(channel.finish());
    }

    @ParameterizedTest
    @MethodSource("samples")
    void encodedSizeIsTheBytesWritten(Frame frame) {
        assertThat(Samples.encode(frame)).hasSize(FrameCodec.encodedSize(frame));
        assertFalse(channel.finish());
    }

    @Test
    void samplesCoverEveryType() {
        assertThat(samples().stream().map(FrameEncoder::type).distinct())
                .containsExactlyInAnyOrder(
                        (byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5, (byte) 6, (byte) 7, (byte) 8, (byte) 9,
                        (byte) 10, (byte) 11, (byte) 12, (byte) 13, (byte) 14, (byte) 15, (byte) 16, (byte) 17,
                        (byte) 18, (byte) 19, (byte) 20, (byte) 21, (byte) 22, (byte) 23, (byte) 24, (byte) 25);
        assertFalse(channel.finish());
    }

    @Test
    void packetAndChunkSizesAreWhatTheyAddToABatch() {
        Frame.KeyBatch keys = (Frame.KeyBatch) samples().get(7);
        int keyBytes = FrameCodec.encodedSize(new Frame.KeyBatch(List.of()));
        for (Frame.KeyPacket p : keys.packets()) keyBytes += FrameCodec.encodedSize(p);
        assertThat(keyBytes).isEqualTo(FrameCodec.encodedSize(keys));

        Frame.ValueBatch values = (Frame.ValueBatch) samples().get(13);
        int valueBytes = FrameCodec.encodedSize(new Frame.ValueBatch(List.of()));
        for (Frame.ValueChunk c : values.chunks()) valueBytes += FrameCodec.encodedSize(c);
        assertThat(valueBytes).isEqualTo(FrameCodec.encodedSize(values));
        assertFalse(channel.finish());
    }

    @Test
    void installAddsNamedDecoderThenEncoder() {
        assertThat(channel.pipeline().names()).startsWith(FrameCodec.DECODER, FrameCodec.ENCODER);
        assertThat(channel.pipeline().get(FrameCodec.DECODER)).isInstanceOf(FrameDecoder.class);
        assertThat(channel.pipeline().get(FrameCodec.ENCODER)).isInstanceOf(FrameEncoder.class);
        assertThatThrownBy(() -> FrameCodec.install(new EmbeddedChannel().pipeline(), 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxFrameBytes < 6: 5");
        assertFalse(channel.finish());
    }

    @Test
    void megabyteChunkRoundTrips() {
        byte[] data = new byte[1 << 20];
        new Random(1).nextBytes(data);
        Frame frame = new Frame.ValueBatch(List.of(
                new Frame.ValueChunk(TxId.of(1, 1), Frame.Op.PUT, Samples.bytes("big"), 3 << 20, 9, 1 << 20, data)));
        assertThat(roundTrip(frame)).isEqualTo(frame);
        assertFalse(channel.finish());
    }

    @Test
    void frameSplitAcrossManyReadsWaitsForItsLastByte() {
        byte[] data = new byte[1 << 20];
        new Random(2).nextBytes(data);
        Frame frame = new Frame.ValueBatch(
                List.of(new Frame.ValueChunk(TxId.of(1, 1), Frame.Op.PUT, Samples.bytes("big"), 1 << 20, 9, 0, data)));
        byte[] bytes = Samples.encode(frame);
        int piece = 64 * 1024 - 3;
        for (int i = 0; i < bytes.length; i += piece) {
            assertThat(channel.inboundMessages()).isEmpty();
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, i, Math.min(piece, bytes.length - i)));
        }
        assertThat((Frame) channel.readInbound()).isEqualTo(frame);
        assertFalse(channel.finish());
    }

    @Test
    void frameFedOneByteAtATimeDecodesOnItsLastByte() {
        Frame frame = samples().get(13);
        byte[] bytes = Samples.encode(frame);
        List<ByteBuf> fed = new ArrayList<>();
        for (int i = 0; i < bytes.length; i++) {
            assertThat(channel.inboundMessages()).as("after %d bytes", i).isEmpty();
            ByteBuf b = Unpooled.wrappedBuffer(bytes, i, 1);
            fed.add(b);
            channel.writeInbound(b);
        }
        assertThat((Frame) channel.readInbound()).isEqualTo(frame);
        assertThat(fed).allSatisfy(b -> assertThat(b.refCnt()).isZero());
        assertFalse(channel.finish());
    }

    @Test
    void manyFramesInOneBufferAllDecodeInOrder() {
        ByteBuf all = Unpooled.buffer();
        for (Frame f : samples()) all.writeBytes(Samples.encode(f));
        channel.writeInbound(all);
        for (Frame f : samples()) assertThat((Frame) channel.readInbound()).isEqualTo(f);
        assertThat(all.refCnt()).isZero();
        assertFalse(channel.finish());
    }

    @Test
    void bytesOfTheNextFrameWaitBehindACompleteOne() {
        byte[] first = Samples.encode(samples().get(0));
        byte[] second = Samples.encode(samples().get(1));
        ByteBuf buf = Unpooled.buffer().writeBytes(first).writeBytes(second, 0, 5);
        channel.writeInbound(buf);
        assertThat((Frame) channel.readInbound()).isEqualTo(samples().get(0));
        assertThat(channel.inboundMessages()).isEmpty();
        channel.writeInbound(Unpooled.wrappedBuffer(second, 5, second.length - 5));
        assertThat((Frame) channel.readInbound()).isEqualTo(samples().get(1));
        assertFalse(channel.finish());
    }

    @Test
    void partialFrameLeftAtCloseIsDroppedQuietly() {
        byte[] bytes = Samples.encode(samples().get(0));
        ByteBuf partial = Unpooled.wrappedBuffer(bytes, 0, bytes.length - 1);
        channel.writeInbound(partial);
        assertFalse(channel.finish());
        assertThat(partial.refCnt()).isZero();
    }

    @RepeatedTest(20)
    void randomFramesRoundTrip() {
        long seed = Long.getLong("kvs.seed", ThreadLocalRandom.current().nextLong());
        System.out.println(
                "FrameCodecTest.randomFramesRoundTrip seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random r = new Random(seed);
        for (int i = 0; i < 200; i++) {
            Frame frame = Samples.random(r);
            assertThat(roundTrip(frame)).as("seed %d", seed).isEqualTo(frame);
        }
        assertFalse(channel.finish());
    }
}
