package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.ValueStage;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The commands of one read pass from the decoder to the handler as one message ({@link RespCommands}),
 * and the handler runs each as if it had come alone.
 */
class RespCommandsTest {
    private static EmbeddedChannel decoder() {
        return new EmbeddedChannel(new RespCommandDecoder(
                512 * 1024 * 1024,
                1024,
                64 * 1024,
                false,
                new ClientStats(),
                new BulkPreallocBudget(0),
                RespCommandDecoder.MIN_BULK_CHUNK,
                null));
    }

    private static void read(EmbeddedChannel channel, String raw) {
        channel.writeInbound(Unpooled.wrappedBuffer(raw.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void aReadOfSeveralCommandsIsOneMessageAndAReadOfOneIsTheCommand() {
        EmbeddedChannel channel = decoder();
        read(channel, RespChannel.encode("SET", "k", "v").repeat(16) + "PING\r\n");
        Object first = channel.readInbound();
        assertThat(first).isInstanceOf(RespCommands.class);
        RespCommands batch = (RespCommands) first;
        assertThat(batch).hasSize(17);
        assertThat(new String(batch.command(15).args()[0], StandardCharsets.US_ASCII))
                .isEqualTo("SET");
        assertThat(new String(batch.command(16).args()[0], StandardCharsets.US_ASCII))
                .isEqualTo("PING");
        assertThat((Object) channel.readInbound()).isNull();

        read(channel, RespChannel.encode("GET", "k"));
        assertThat((Object) channel.readInbound()).isInstanceOf(RespCommand.class);
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void theCommandsBeforeAProtocolErrorInTheSameReadStillRun() {
        try (RespChannel c = RespChannel.withDefaults()) {
            String replies =
                    c.send(RespChannel.encode("SET", "k", "1") + RespChannel.encode("INCR", "k") + "*1\r\n$x\r\n");
            assertThat(replies).startsWith("+OK\r\n:2\r\n-ERR Protocol error");
            assertThat(c.store.get("k".getBytes(StandardCharsets.US_ASCII)).value())
                    .isEqualTo("2".getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void eachCommandOfAReadRunsInOrderAsIfAlone() {
        try (RespChannel c = RespChannel.withDefaults()) {
            StringBuilder read = new StringBuilder();
            read.append(RespChannel.encode("SET", "n", "0"));
            for (int i = 0; i < 40; i++) read.append(RespChannel.encode("INCR", "n"));
            read.append(RespChannel.encode("NOSUCH"));
            read.append(RespChannel.encode("GET", "n"));
            read.append(RespChannel.encode("MULTI"));
            read.append(RespChannel.encode("INCR", "n"));
            read.append(RespChannel.encode("EXEC"));
            StringBuilder expected = new StringBuilder("+OK\r\n");
            for (int i = 1; i <= 40; i++) expected.append(':').append(i).append("\r\n");
            expected.append("-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
            expected.append("$2\r\n40\r\n+OK\r\n+QUEUED\r\n*1\r\n:41\r\n");
            assertThat(c.send(read.toString())).isEqualTo(expected.toString());
        }
    }

    @Test
    void theCommandsAfterOneThatThrowsAreDiscardedWithTheirStagedValues() {
        try (RespChannel c = RespChannel.withDefaults()) {
            AtomicInteger closed = new AtomicInteger();
            RespCommands batch = new RespCommands();
            batch.add(new RespCommand(args("SET", "k", "1"), null));
            batch.add("a message that is not a command"); // its handling throws
            batch.add(stagedSet("k2", closed));
            batch.add(stagedSet("k3", closed));
            c.channel.pipeline().fireChannelRead(batch);
            assertThat(c.store.get(bytes("k")).value()).isEqualTo(bytes("1"));
            assertThat(closed).as("stages closed").hasValue(2);
            assertThat(c.store.get(bytes("k2"))).isNull();
        }
    }

    private static RespCommand stagedSet(String key, AtomicInteger closed) {
        ValueStage stage = new ValueStage() {
            @Override
            public int length() {
                return 1;
            }

            @Override
            public int written() {
                return 1;
            }

            @Override
            public void write(byte[] data, int offset, int count) {
                throw new UnsupportedOperationException();
            }

            @Override
            public byte[] toArray() {
                return bytes("v");
            }

            @Override
            public void close() {
                closed.incrementAndGet();
            }
        };
        byte[][] a = {bytes("SET"), bytes(key), RespCommand.STAGED_ARG};
        return new RespCommand(a, null, new RespCommand.Staged(stage, 0));
    }

    private static byte[][] args(String... words) {
        byte[][] a = new byte[words.length][];
        for (int i = 0; i < words.length; i++) a[i] = bytes(words[i]);
        return a;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
