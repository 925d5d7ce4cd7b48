package dev.kvs.replication.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameCodec;
import dev.kvs.replication.wire.FrameMac;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * The per-connection frame keys a {@link ClusterSecret} derives: both sides of a connection derive the
 * same key for each direction; the two directions, two connections (other nonces) and two secrets
 * never share one.
 */
class ClusterSecretTest {
    private static final ClusterSecret SECRET = ClusterSecret.of("correct horse battery staple", "dc");
    private static final byte[] DIALLER_NONCE = ClusterSecret.nonce(Frame.NONCE_BYTES);
    private static final byte[] LISTENER_NONCE = ClusterSecret.nonce(Frame.NONCE_BYTES);
    private static final Frame HELLO = new Frame.Hello("dc", "primary-1", "primary", 3, Frame.ChannelKind.KEY, 0);

    /** Whether a frame tagged under {@code send} is accepted by a decoder checking under {@code receive}. */
    private static boolean accepted(FrameMac send, FrameMac receive) {
        EmbeddedChannel sender = new EmbeddedChannel();
        FrameCodec.install(sender.pipeline(), 1 << 16);
        FrameCodec.addTagger(sender.pipeline());
        FrameCodec.startMacs(sender.pipeline(), send, new FrameMac(new byte[FrameMac.KEY_BYTES], 9));
        EmbeddedChannel receiver = new EmbeddedChannel();
        FrameCodec.install(receiver.pipeline(), 1 << 16);
        FrameCodec.addTagger(receiver.pipeline());
        FrameCodec.startMacs(receiver.pipeline(), new FrameMac(new byte[FrameMac.KEY_BYTES], 9), receive);
        sender.writeAndFlush(HELLO);
        for (ByteBuf b; (b = sender.readOutbound()) != null; ) receiver.writeInbound(b);
        Object got = receiver.readInbound();
        sender.finishAndReleaseAll();
        receiver.finishAndReleaseAll();
        return HELLO.equals(got);
    }

    @Test
    void bothSidesDeriveTheSameKeyForEachDirection() {
        assertThat(accepted(
                        SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE),
                        SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE)))
                .isTrue();
        assertThat(accepted(
                        SECRET.listenerFrames(DIALLER_NONCE, LISTENER_NONCE),
                        SECRET.listenerFrames(DIALLER_NONCE, LISTENER_NONCE)))
                .isTrue();
    }

    @Test
    void aFrameReflectedBackToItsSenderIsRefused() {
        assertThat(accepted(
                        SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE),
                        SECRET.listenerFrames(DIALLER_NONCE, LISTENER_NONCE)))
                .isFalse();
    }

    @Test
    void aFrameOfAnotherConnectionIsRefused() {
        byte[] otherNonce = ClusterSecret.nonce(Frame.NONCE_BYTES);
        assertThat(accepted(
                        SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE),
                        SECRET.diallerFrames(DIALLER_NONCE, otherNonce)))
                .isFalse();
        assertThat(accepted(
                        SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE),
                        SECRET.diallerFrames(otherNonce, LISTENER_NONCE)))
                .isFalse();
    }

    @Test
    void aFrameUnderAnotherSecretOrClusterIsRefused() {
        FrameMac send = SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE);
        assertThat(accepted(
                        send,
                        ClusterSecret.of("another secret, 24 bytes!", "dc")
                                .diallerFrames(DIALLER_NONCE, LISTENER_NONCE)))
                .isFalse();
        assertThat(accepted(
                        SECRET.diallerFrames(DIALLER_NONCE, LISTENER_NONCE),
                        ClusterSecret.of("correct horse battery staple", "dc2")
                                .diallerFrames(DIALLER_NONCE, LISTENER_NONCE)))
                .isFalse();
    }
}
