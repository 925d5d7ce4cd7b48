package dev.kvs.replication.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Feeds random and mutated bytes, in random pieces, and checks the decoder only ever yields frames
 * or a {@link FrameException}, then goes quiet, and releases every buffer. Replay a failure with
 * {@code -Dkvs.seed=<seed>}.
 */
class FrameDecoderFuzzTest {
    private static final int MAX = 64 * 1024;

    @RepeatedTest(300)
    void decoderYieldsFramesOrFrameExceptionNeverAnythingElse() {
        long seed = Long.getLong("kvs.seed", ThreadLocalRandom.current().nextLong());
        System.out.println("FrameDecoderFuzzTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random r = new Random(seed);
        byte[] input = r.nextInt(4) == 0 ? randomBytes(r) : mutatedFrames(r);

        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(MAX));
        List<ByteBuf> fed = new ArrayList<>();
        boolean failed = false;
        for (int i = 0; i < input.length; ) {
            int n = Math.min(input.length - i, 1 + r.nextInt(r.nextBoolean() ? 8 : 512));
            ByteBuf piece = Unpooled.wrappedBuffer(input, i, n);
            fed.add(piece);
            i += n;
            try {
                channel.writeInbound(piece);
                if (failed)
                    assertThat(channel.inboundMessages())
                            .as("seed %d: decoded after failing", seed)
                            .isEmpty();
            } catch (FrameException e) {
                assertThat(failed).as("seed %d: second failure %s", seed, e).isFalse();
                failed = true;
            } catch (RuntimeException | Error e) {
                fail("seed " + seed + ": " + e, e);
            }
            for (Object msg; (msg = channel.readInbound()) != null; ) {
                assertThat(msg).as("seed %d", seed).isInstanceOf(Frame.class);
            }
        }
        assertFalse(channel.finish());
        assertThat(fed)
                .as("seed %d: leaked input", seed)
                .allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(4096)];
        r.nextBytes(b);
        return b;
    }

    /** Valid frames with a few bytes overwritten, dropped, or inserted: corruption deep in the payload. */
    private static byte[] mutatedFrames(Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 1 + r.nextInt(6); i > 0; i--) out.writeBytes(Samples.encode(Samples.random(r)));
        List<Byte> bytes = new ArrayList<>();
        for (byte b : out.toByteArray()) bytes.add(b);
        for (int i = r.nextInt(4); i > 0 && !bytes.isEmpty(); i--) {
            int at = r.nextInt(bytes.size());
            switch (r.nextInt(4)) {
                case 0 -> bytes.set(at, (byte) r.nextInt());
                case 1 -> bytes.set(at, (byte) (r.nextBoolean() ? 0xFF : 0x7F)); // huge or negative ints
                case 2 -> bytes.remove(at);
                default -> bytes.add(at, (byte) r.nextInt());
            }
        }
        byte[] result = new byte[bytes.size()];
        for (int i = 0; i < result.length; i++) result[i] = bytes.get(i);
        return result;
    }
}
