package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.TestContexts;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How commands are timed for {@code INFO commandstats}: the commands of one kind that follow each other
 * in one read are timed as one stretch, so a pipelined read costs the same few clock readings whatever
 * the number of its commands (issue 36: a reading cost about a tenth of a short command).
 */
class CommandTimingTest {
    private static final long TICK = 1_000;

    /** The port's clock: each reading is counted and moves it on by {@link #TICK} nanoseconds. */
    private final AtomicLong readings = new AtomicLong();

    private final AtomicLong now = new AtomicLong();

    private final KvStore store = KvStore.builder()
            .config(StoreConfig.builder().maxBytes(16 << 20).build())
            .open();
    private final NodeContext node = TestContexts.primary(
            NodeConfig.builder()
                    .store(StoreConfig.builder().maxBytes(16 << 20).build())
                    .build(),
            store,
            1,
            0);
    private final RespServer server = new RespServer(TestContexts.commands(node), null, () -> {
        readings.incrementAndGet();
        return now.addAndGet(TICK);
    });
    private final EmbeddedChannel channel = server.embeddedConnection();

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        node.metrics().close();
        store.close();
    }

    private String send(String raw) {
        channel.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            out.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return out.toString();
    }

    /** The clock readings one read of {@code commands} pipelined SETs takes. */
    private long readingsOfARead(int commands) {
        return readingsOfARead(commands, RespChannel.encode("SET", "k", "v"), "+OK\r\n");
    }

    /** The clock readings one read of {@code commands} copies of {@code command} takes. */
    private long readingsOfARead(int commands, String command, String reply) {
        long before = readings.get();
        assertThat(send(command.repeat(commands))).isEqualTo(reply.repeat(commands));
        return readings.get() - before;
    }

    /** The {@code calls} and {@code usec} of {@code command} in {@code INFO commandstats}. */
    private long[] stat(String command) {
        Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+),usec=(\\d+),")
                .matcher(send(RespChannel.encode("INFO", "commandstats")));
        assertThat(m.find()).as("cmdstat_%s", command).isTrue();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    @Test
    void aReadOfManyCommandsReadsTheClockNoMoreOftenThanAReadOfOne() {
        readingsOfARead(1); // the connection's first read (its memory account starts)
        long one = readingsOfARead(1);
        long many = readingsOfARead(64);

        assertThat(many)
                .as("clock readings of a read of 64 SETs, of 1: %d", one)
                .isEqualTo(one);
        assertThat(stat("set")[0]).isEqualTo(66);
    }

    /**
     * A command that is not a data command adds its counts to the shared ones before it runs, so that an
     * {@code INFO} sees every command before it; a run of one (PING) still reads the clock once.
     */
    @Test
    void aRunOfACommandThatIsNotADataCommandReadsTheClockOnceToo() {
        String ping = RespChannel.encode("PING");
        readingsOfARead(1, ping, "+PONG\r\n");
        long one = readingsOfARead(1, ping, "+PONG\r\n");
        long many = readingsOfARead(64, ping, "+PONG\r\n");

        assertThat(many)
                .as("clock readings of a read of 64 PINGs, of 1: %d", one)
                .isEqualTo(one);
        assertThat(stat("ping")[0]).isEqualTo(66);
        assertThat(send(RespChannel.encode("INFO", "commandstats").repeat(2)))
                .as("the second INFO of a read sees the first")
                .contains("cmdstat_info:calls=1,");
    }

    /** The time a connection idles between two reads is no command's: the clock moves 600 ms in between. */
    @Test
    void aCommandsTimeDoesNotIncludeTheWaitForItsRead() {
        send(RespChannel.encode("SET", "k", "v") + RespChannel.encode("GET", "k"));
        now.addAndGet(600_000_000L); // the connection idles between two reads
        assertThat(send(RespChannel.encode("GET", "k"))).isEqualTo("$1\r\nv\r\n");

        long[] get = stat("get");
        assertThat(get[0]).isEqualTo(2);
        assertThat(get[1]).as("usec of the two GETs, one tick each").isEqualTo(2 * TICK / 1_000);
    }

    @Test
    void eachKindOfCommandInAReadIsTimedFromItsFirstCommandToTheNext() {
        String read = RespChannel.encode("SET", "k", "v").repeat(3)
                + RespChannel.encode("GET", "k").repeat(2);
        assertThat(send(read)).isEqualTo("+OK\r\n".repeat(3) + "$1\r\nv\r\n".repeat(2));

        long[] set = stat("set");
        long[] get = stat("get");
        assertThat(set[0]).isEqualTo(3);
        assertThat(get[0]).isEqualTo(2);
        // SET's run: from its first command to GET's first (one tick apart, nothing else read the clock
        // in between); GET's: from there to the end of the read
        assertThat(set[1]).isEqualTo(TICK / 1_000);
        assertThat(get[1]).isEqualTo(TICK / 1_000);
    }
}
