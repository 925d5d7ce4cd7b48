package dev.kvs.replication.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.TxId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Frames with {@link FrameMac} tags on {@link EmbeddedChannel}s: what a sender's tagger writes its peer's
 * decoder reads back; a change of any one byte of the stream, a frame replayed, reordered, dropped or
 * injected, or a frame tagged for the other direction, closes the connection before anything of that
 * frame is decoded; frames before the tags start go untagged.
 */
class FrameMacTest {
    private static final byte[] KEY = bytesOf(16, 1);
    private static final byte[] OTHER_KEY = bytesOf(16, 2);
    private static final int MAX = 256 * 1024;

    private static byte[] bytesOf(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A sender's pipeline as a connection has it: codec, tagger, tags started with {@code key}. */
    private static EmbeddedChannel sender(byte[] key) {
        EmbeddedChannel ch = new EmbeddedChannel();
        FrameCodec.install(ch.pipeline(), MAX);
        FrameCodec.addTagger(ch.pipeline());
        FrameCodec.startMacs(ch.pipeline(), new FrameMac(key, 1), new FrameMac(OTHER_KEY, 2));
        return ch;
    }

    private static EmbeddedChannel receiver(byte[] key) {
        EmbeddedChannel ch = new EmbeddedChannel();
        FrameCodec.install(ch.pipeline(), MAX);
        FrameCodec.addTagger(ch.pipeline());
        FrameCodec.startMacs(ch.pipeline(), new FrameMac(OTHER_KEY, 2), new FrameMac(key, 1));
        return ch;
    }

    /** Each frame's bytes on the wire, its tag included, as {@code sender} writes them. */
    private static List<byte[]> send(EmbeddedChannel sender, List<?> messages) {
        List<byte[]> wire = new ArrayList<>();
        for (Object m : messages) {
            sender.writeAndFlush(m);
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            for (ByteBuf b; (b = sender.readOutbound()) != null; ) {
                one.writeBytes(ByteBufUtil.getBytes(b));
                b.release();
            }
            wire.add(one.toByteArray());
        }
        return wire;
    }

    /** Feeds {@code bytes} to {@code receiver}; the frames it decoded, or up to its failure. */
    private static List<Frame> receive(EmbeddedChannel receiver, byte[]... pieces) {
        List<Frame> got = new ArrayList<>();
        for (byte[] piece : pieces) {
            if (!receiver.isOpen()) break;
            try {
                receiver.writeInbound(Unpooled.wrappedBuffer(piece));
            } catch (FrameException e) {
                receiver.close(); // as every replication handler does on a decoder failure
            }
            for (Object f; (f = receiver.readInbound()) != null; ) got.add((Frame) f);
        }
        return got;
    }

    private static List<Frame> frames() {
        TxId t = TxId.of(2, 7);
        return List.of(
                new Frame.Hello("dc", "primary-1", "primary", 2, Frame.ChannelKind.KEY, 0),
                new Frame.KeyBatch(List.of(new Frame.KeyPacket(t, Frame.Op.PUT, Samples.bytes("k"), 3, 9))),
                new Frame.Heartbeat(5, false),
                new Frame.ValueBatch(List.of(new Frame.ValueChunk(
                        t, Frame.Op.PUT, Samples.bytes("big"), 70_000, 1, 0, bytesOf(70_000, 3)))));
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        parts.forEach(out::writeBytes);
        return out.toByteArray();
    }

    @Test
    void framesTaggedByTheSenderAreDecodedByItsPeer() {
        EmbeddedChannel receiver = receiver(KEY);
        List<byte[]> wire = send(sender(KEY), frames());

        assertThat(wire.get(2)).hasSize(Samples.encode(frames().get(2)).length + FrameMac.TAG_BYTES);
        assertThat(receive(receiver, concat(wire))).isEqualTo(frames());
        assertThat(receiver.isOpen()).isTrue();
        assertThat(receiver.finish()).isFalse();
    }

    @Test
    void chunkFramesFilledInPlaceAreTaggedToo() {
        ValueChunkFrame chunk = ValueChunkFrame.allocate(
                ByteBufAllocator.DEFAULT, TxId.of(1, 1), Samples.bytes("k"), 100_000, 5, 0, 100_000, 0);
        chunk.data().put(bytesOf(100_000, 4));
        EmbeddedChannel receiver = receiver(KEY);

        List<byte[]> wire = send(sender(KEY), List.of(chunk.finish(42)));

        List<Frame> got = receive(receiver, wire.get(0));
        assertThat(got).hasSize(1);
        Frame.ValueChunk c = ((Frame.ValueBatch) got.get(0)).chunks().get(0);
        assertThat(c.data()).isEqualTo(bytesOf(100_000, 4));
        assertThat(receiver.finish()).isFalse();
    }

    @Test
    void anyOneByteChangedClosesTheConnectionBeforeThatFrameIsDecoded() {
        List<byte[]> wire = send(sender(KEY), frames());
        byte[] stream = concat(wire.subList(0, 3)); // Hello, KeyBatch, Heartbeat
        byte[] more = wire.get(3); // 70 kB more: a length made longer still ends within them
        int[] starts = {0, wire.get(0).length, wire.get(0).length + wire.get(1).length};
        for (int i = 0; i < stream.length; i++) {
            for (int bit = 0; bit < 8; bit += 7) {
                long failures = FrameMac.failures();
                byte[] changed = stream.clone();
                changed[i] ^= (byte) (1 << bit);
                EmbeddedChannel receiver = receiver(KEY);

                List<Frame> got = receive(receiver, changed, more);

                int frame = i >= starts[2] ? 2 : i >= starts[1] ? 1 : 0;
                assertThat(got).as("byte %d bit %d", i, bit).isEqualTo(frames().subList(0, frame));
                assertThat(receiver.isOpen()).as("byte %d bit %d: open", i, bit).isFalse();
                boolean inLengthPrefix = i - starts[frame] < 4;
                if (!inLengthPrefix) assertThat(FrameMac.failures()).isGreaterThan(failures);
                receiver.finishAndReleaseAll();
            }
        }
    }

    @Test
    void aReplayedReorderedDroppedOrInjectedFrameClosesTheConnection() {
        List<byte[]> w = send(sender(KEY), frames());
        byte[] forged = concat(List.of(Samples.encode(new Frame.Handover(99)), bytesOf(FrameMac.TAG_BYTES, 5)));
        List<List<byte[]>> attacks = List.of(
                List.of(w.get(0), w.get(1), w.get(1), w.get(2)), // replayed
                List.of(w.get(0), w.get(2), w.get(1)), // reordered
                List.of(w.get(0), w.get(2)), // one dropped
                List.of(w.get(0), forged, w.get(1))); // injected
        for (List<byte[]> attack : attacks) {
            long failures = FrameMac.failures();
            EmbeddedChannel receiver = receiver(KEY);

            List<Frame> got = receive(receiver, attack.toArray(new byte[0][]));

            assertThat(got).as("only what came before").isEqualTo(frames().subList(0, got.size()));
            assertThat(got).doesNotContain(new Frame.Handover(99));
            assertThat(got.size()).isLessThanOrEqualTo(2);
            assertThat(receiver.isOpen()).isFalse();
            assertThat(FrameMac.failures()).isGreaterThan(failures);
            receiver.finishAndReleaseAll();
        }
    }

    @Test
    void aFrameTaggedUnderAnotherKeyIsRefused() {
        // e.g. reflected back to its sender, whose frames from the peer are checked under the peer's key
        EmbeddedChannel receiver = receiver(OTHER_KEY);

        List<Frame> got = receive(receiver, concat(send(sender(KEY), frames())));

        assertThat(got).isEmpty();
        assertThat(receiver.isOpen()).isFalse();
    }

    @Test
    void framesBeforeTheTagsStartGoUntagged() {
        EmbeddedChannel sender = new EmbeddedChannel();
        FrameCodec.install(sender.pipeline(), MAX);
        FrameCodec.addTagger(sender.pipeline());
        Frame init = new Frame.AuthInit(bytesOf(Frame.NONCE_BYTES, 6));

        byte[] wire = send(sender, List.of(init)).get(0);

        assertThat(wire).isEqualTo(Samples.encode(init));
        assertThat(sender.finish()).isFalse();
    }

    @Test
    void startingTagsWithoutATaggerIsAnError() {
        EmbeddedChannel ch = new EmbeddedChannel();
        FrameCodec.install(ch.pipeline(), MAX);

        assertThatThrownBy(() -> FrameCodec.startMacs(ch.pipeline(), new FrameMac(KEY, 1), new FrameMac(KEY, 2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(FrameCodec.TAGGER);
    }

    @Test
    void aKeyOfAnotherLengthIsRefused() {
        assertThatThrownBy(() -> new FrameMac(new byte[32], 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key of 32 bytes");
    }

    @Test
    void theWarmUpTagsAndChecksEveryFrame() {
        assertThat(FrameMac.warmUp()).isEqualTo(FrameMac.WARM_UP_FRAMES);
    }
}
