package dev.kvs.replication.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing of the replication frame decoder (Jazzer). In {@code mvn verify} each
 * method runs once per committed input under {@code src/test/resources/.../FrameDecoderJazzerTestInputs/METHOD/}
 * (regression); with {@code JAZZER_FUZZ=1} it fuzzes (see {@code docs/development.md}). Findings are
 * written there as new inputs, to be committed with their fix.
 *
 * <p>Properties: fed in arbitrary pieces, the decoder yields frames or one {@link FrameException} and
 * nothing else (no other exception, nothing after the failure); every frame it yields fits the
 * configured maximum and encodes back to bytes that decode to the same frame; every input buffer is
 * released.
 */
class FrameDecoderJazzerTest {

    @FuzzTest(maxDuration = "2m")
    void decoderYieldsFramesWithinItsLimitOrOneFrameException(FuzzedDataProvider data) {
        int max = data.consumeInt(FrameDecoder.checkMax(6), 1 << 16);
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(max));
        List<ByteBuf> fed = new ArrayList<>();
        boolean failed = false;
        while (data.remainingBytes() > 0) {
            byte[] piece = data.consumeBytes(data.consumeInt(1, 256));
            if (piece.length == 0) break;
            ByteBuf buf = Unpooled.wrappedBuffer(piece);
            fed.add(buf);
            boolean failsNow = false;
            try {
                channel.writeInbound(buf);
            } catch (FrameException e) {
                assertThat(failed).as("a second failure: %s", e).isFalse();
                failsNow = true;
            }
            // frames decoded from this piece before its corrupt bytes come out with the failure
            for (Object msg; (msg = channel.readInbound()) != null; ) {
                assertThat(failed).as("a frame from a piece after the failure").isFalse();
                assertThat(msg).isInstanceOf(Frame.class);
                Frame frame = (Frame) msg;
                assertThat(FrameCodec.encodedSize(frame)).isLessThanOrEqualTo(max);
                assertThat(decodeOne(Samples.encode(frame), max)).isEqualTo(frame);
            }
            failed |= failsNow;
        }
        assertThat(channel.finish()).isFalse();
        assertThat(fed)
                .allSatisfy(
                        b -> assertThat(b.refCnt()).as("input buffer released").isZero());
    }

    @FuzzTest(maxDuration = "2m")
    void decodingAnEncodedFrameGivesItBack(FuzzedDataProvider data) {
        // the frames the encoder can write: Samples.random picks type and fields from a seed the fuzzer chose
        java.util.Random r = new java.util.Random(data.consumeLong());
        Frame frame = Samples.random(r);
        byte[] bytes = Samples.encode(frame);
        assertThat(bytes).hasSize(FrameCodec.encodedSize(frame));
        assertThat(decodeOne(bytes, Samples.MAX)).isEqualTo(frame);
    }

    /** Decodes {@code bytes}, which must hold exactly one frame. */
    private static Frame decodeOne(byte[] bytes, int max) {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(max));
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        channel.writeInbound(buf);
        Frame frame = channel.readInbound();
        assertThat(frame).isNotNull();
        Object next = channel.readInbound();
        assertThat(next).isNull();
        assertThat(channel.finish()).isFalse();
        assertThat(buf.refCnt()).isZero();
        return frame;
    }
}
