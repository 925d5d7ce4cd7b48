package dev.kvs.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class TransportsTest {
    /** Drives a handle the way a channel's read loop does: {@code reads} reads of {@code bytes} each, one loop. */
    private static int guessAfterReadLoop(RecvByteBufAllocator.Handle h, EmbeddedChannel ch, int... reads) {
        h.reset(ch.config());
        for (int bytes : reads) {
            h.attemptedBytesRead(h.guess());
            h.lastBytesRead(Math.min(bytes, h.guess()));
            h.incMessagesRead(1);
        }
        h.readComplete();
        return h.guess();
    }

    @Test
    void readsThatFillTheirBufferGrowTheNextToTheMaximum() {
        EmbeddedChannel ch = new EmbeddedChannel();
        RecvByteBufAllocator.Handle h = Transports.readAllocator().newHandle();
        int guess = h.guess();
        // a connection sending large values: every read fills its buffer
        for (int i = 0; i < 10 && guess < Transports.MAX_READ_BYTES; i++) {
            guess = guessAfterReadLoop(h, ch, Integer.MAX_VALUE);
        }
        assertThat(guess)
                .as("a connection of large values is read in buffers of up to 1 MiB, not Netty's default 64 KiB")
                .isEqualTo(Transports.MAX_READ_BYTES);
        assertThat(guessAfterReadLoop(h, ch, Integer.MAX_VALUE)).isEqualTo(Transports.MAX_READ_BYTES);
    }

    @Test
    void smallReadsShrinkTheBufferAgain() {
        EmbeddedChannel ch = new EmbeddedChannel();
        RecvByteBufAllocator.Handle h = Transports.readAllocator().newHandle();
        for (int i = 0; i < 10; i++) guessAfterReadLoop(h, ch, Integer.MAX_VALUE);
        int large = h.guess();
        for (int i = 0; i < 40; i++) guessAfterReadLoop(h, ch, 100);
        assertThat(h.guess())
                .as("a connection back to small commands reads into small buffers")
                .isLessThan(large / 100);
    }
}
