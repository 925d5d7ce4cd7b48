package dev.kvs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.client.KvsClientException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The pipelined FIFO on an {@link EmbeddedChannel}: no sockets, every buffer released. */
class ConnectionTest {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Connection connection = new Connection(new Endpoint("test", 1), 10, TIMEOUT_NANOS);
    private final EmbeddedChannel channel = new EmbeddedChannel(
            new RedisDecoder(),
            new RedisBulkStringAggregator(),
            new RedisArrayAggregator(),
            new RedisEncoder(),
            connection);
    private final List<String> events = new ArrayList<>();

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Connection.Listener listener(String name) {
        return new Connection.Listener() {
            @Override
            public void onValue(Object value) {
                events.add(name + " = " + (value instanceof byte[] v ? new String(v, StandardCharsets.UTF_8) : value));
            }

            @Override
            public void onError(String text) {
                events.add(name + " ! " + text);
            }

            @Override
            public void onFailure(Connection.Failure failure, Throwable cause) {
                events.add(name + " " + failure + " " + cause.getClass().getSimpleName());
            }
        };
    }

    private String outbound() {
        channel.runPendingTasks();
        StringBuilder b = new StringBuilder();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null) {
            b.append(buf.toString(StandardCharsets.UTF_8));
            buf.release();
        }
        return b.toString();
    }

    private void reply(String resp) {
        channel.writeInbound(Unpooled.copiedBuffer(resp, StandardCharsets.UTF_8));
    }

    @Test
    void pipelinedRepliesReachTheirRequestsInOrder() {
        connection.connected(channel, List.of());
        connection.send(Command.get(b("a")), listener("get a"));
        connection.send(Command.set(b("b"), b("")), listener("set b"));
        connection.send(Command.get(b("c")), listener("get c"));
        assertThat(outbound())
                .isEqualTo("*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
                        + "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$0\r\n\r\n"
                        + "*2\r\n$3\r\nGET\r\n$1\r\nc\r\n");
        reply("$1\r\nA\r\n+OK\r\n$-1\r\n");
        assertThat(events).containsExactly("get a = A", "set b = null", "get c = null");
        closeAndFinish();
    }

    @Test
    void errorReplyGoesToItsRequestOnly() {
        connection.connected(channel, List.of());
        connection.send(Command.get(b("a")), listener("get a"));
        connection.send(Command.get(b("b")), listener("get b"));
        outbound();
        reply("-UNFINISHED a 1:5\r\n$1\r\nB\r\n");
        assertThat(events).containsExactly("get a ! UNFINISHED a 1:5", "get b = B");
        closeAndFinish();
    }

    @Test
    void unexpectedReplyTypeFailsTheRequestAndKeepsTheOrder() {
        connection.connected(channel, List.of());
        connection.send(Command.get(b("a")), listener("get a"));
        connection.send(Command.ping(), listener("ping"));
        outbound();
        reply(":1\r\n+PONG\r\n");
        assertThat(events).containsExactly("get a FATAL KvsClientException", "ping = PONG");
        closeAndFinish();
    }

    @Test
    void closeFailsWrittenRequestsAsLostAndLaterOnesAsNotSent() {
        connection.connected(channel, List.of());
        connection.send(Command.set(b("k"), b("v")), listener("set k"));
        outbound();
        channel.close();
        connection.send(Command.get(b("k")), listener("get k"));
        assertThat(events)
                .containsExactly("set k LOST ClosedChannelException", "get k NOT_SENT ClosedChannelException");
        assertThat(connection.isOpen()).isFalse();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void maxPendingRefusesTheRequestBeyondItUntilAReplyArrives() {
        connection.connected(channel, List.of());
        for (int i = 0; i < 10; i++)
            assertThat(connection.send(Command.ping(), listener("ping" + i))).isTrue();
        assertThat(connection.send(Command.ping(), listener("refused"))).isFalse();
        outbound();
        reply("+PONG\r\n");
        assertThat(connection.send(Command.ping(), listener("ping10"))).isTrue();
        outbound();
        reply("+PONG\r\n".repeat(10));
        assertThat(events).hasSize(11).doesNotContain("refused = PONG").contains("ping0 = PONG", "ping10 = PONG");
        closeAndFinish();
    }

    @Test
    void silentConnectionIsClosedWhenARequestTimesOut() {
        connection.connected(channel, List.of());
        connection.send(Command.get(b("a")), listener("get a"));
        connection.send(Command.set(b("b"), b("v")), listener("set b"));
        outbound();
        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(events)
                .containsExactly("get a UNRESPONSIVE KvsTimeoutException", "set b UNRESPONSIVE KvsTimeoutException");
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void timedOutRequestOnALiveConnectionDropsItsLateReply() {
        connection.connected(channel, List.of());
        connection.send(Command.get(b("slow")), listener("get slow"));
        outbound();
        reply("$1\r\n"); // part of the reply: the connection is alive, the reply is only slow
        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(events).containsExactly("get slow TIMEOUT KvsTimeoutException");
        connection.send(Command.get(b("next")), listener("get next"));
        outbound();
        reply("S\r\n$1\r\nN\r\n");
        assertThat(events).containsExactly("get slow TIMEOUT KvsTimeoutException", "get next = N");
        assertThat(channel.isOpen()).isTrue();
        closeAndFinish();
    }

    @Test
    void requestsSentWhileOpeningWaitForTheHandshakeAndKeepTheirOrder() {
        connection.send(Command.get(b("first")), listener("get first"));
        connection.connected(
                channel, List.of(Command.auth(null, "secret"), Command.mode(dev.kvs.client.ReplicationMode.SYNC)));
        connection.send(Command.get(b("second")), listener("get second"));
        assertThat(outbound()).isEqualTo("*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*2\r\n$8\r\nKVS.MODE\r\n$4\r\nsync\r\n");
        assertThat(connection.isReady()).isFalse();
        reply("+OK\r\n+OK\r\n");
        assertThat(connection.isReady()).isTrue();
        assertThat(connection.ready()).isCompletedWithValue(connection);
        assertThat(outbound()).isEqualTo("*2\r\n$3\r\nGET\r\n$5\r\nfirst\r\n*2\r\n$3\r\nGET\r\n$6\r\nsecond\r\n");
        reply("$1\r\n1\r\n$1\r\n2\r\n");
        assertThat(events).containsExactly("get first = 1", "get second = 2");
        closeAndFinish();
    }

    @Test
    void refusedHandshakeFailsWaitingRequestsWithItsError() {
        connection.connected(channel, List.of(Command.auth(null, "wrong")));
        connection.send(Command.get(b("k")), listener("get k"));
        outbound();
        reply("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
        assertThat(events).containsExactly("get k FATAL AuthenticationException");
        assertThat(connection.ready()).isCompletedExceptionally();
        assertThat(connection.isOpen()).isFalse();
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.finish()).isFalse();
        events.clear();
        connection.send(Command.get(b("k")), listener("later"));
        assertThat(events).containsExactly("later FATAL AuthenticationException");
    }

    @Test
    void refusedModeIsReportedWithTheCommand() {
        connection.connected(channel, List.of(Command.mode(dev.kvs.client.ReplicationMode.ASYNC)));
        outbound();
        reply("-ERR unknown command 'KVS.MODE'\r\n");
        assertThat(connection.ready())
                .failsWithin(java.time.Duration.ZERO)
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause()
                .isExactlyInstanceOf(KvsClientException.class)
                .withMessage("KVS.MODE refused by test:1: ERR unknown command 'KVS.MODE'");
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void replyWithNoRequestClosesTheConnection() {
        connection.connected(channel, List.of());
        reply("+OK\r\n");
        assertThat(channel.isOpen()).isFalse();
        assertThat(channel.finish()).isFalse();
    }

    private void closeAndFinish() {
        channel.close();
        assertThat(channel.finish()).isFalse();
    }
}
