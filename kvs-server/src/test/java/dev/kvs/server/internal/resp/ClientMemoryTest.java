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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code maxClientMemory}: the bytes all client connections hold (requests still arriving, replies not
 * yet sent) are summed as they change; past the bound the biggest unauthenticated connections are
 * closed first, then idle ones, while an authenticated client that is active keeps being served.
 * Several connections of one port, each on an {@code EmbeddedChannel}.
 */
class ClientMemoryTest {
    private static final long BOUND = 64 << 10;
    /** An unauthenticated {@code AUTH} at Redis's pre-auth caps: a 16,000-byte argument, then 8,000 of another. */
    private static final String PRE_AUTH_HOLDING_24K =
            "*3\r\n$4\r\nAUTH\r\n$16000\r\n" + "u".repeat(16_000) + "\r\n$16000\r\n" + "p".repeat(8_000);

    private final AtomicLong clock = new AtomicLong();
    private final KvStore store = KvStore.builder()
            .config(StoreConfig.builder().maxBytes(16 << 20).build())
            .open();
    private final NodeContext node = TestContexts.primary(
            NodeConfig.builder()
                    .store(StoreConfig.builder().maxBytes(16 << 20).build())
                    .requirepass("secret")
                    .maxClientMemory(BOUND)
                    .build(),
            store,
            1,
            0);
    private final RespServer server = new RespServer(TestContexts.commands(node), null, clock::get);
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void close() {
        for (EmbeddedChannel c : channels) c.finishAndReleaseAll();
        node.metrics().close();
        store.close();
    }

    private EmbeddedChannel connect() {
        EmbeddedChannel c = server.embeddedConnection();
        channels.add(c);
        return c;
    }

    private static String send(EmbeddedChannel c, String raw) {
        c.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
        c.runPendingTasks();
        StringBuilder out = new StringBuilder();
        ByteBuf b;
        while ((b = c.readOutbound()) != null) {
            out.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return out.toString();
    }

    private static String command(EmbeddedChannel c, String... args) {
        return send(c, RespChannel.encode(args));
    }

    @Test
    void pastTheBoundUnauthenticatedConnectionsCloseWhileAnActiveAuthenticatedClientIsServed() {
        EmbeddedChannel app = connect();
        assertThat(command(app, "AUTH", "secret")).isEqualTo("+OK\r\n");
        assertThat(send(app, "*2\r\n$4\r\nECHO\r\n$40000\r\n" + "a".repeat(20_000)))
                .isEmpty();
        long appHolds = server.memory().used();
        assertThat(appHolds).isGreaterThanOrEqualTo(40_000); // its buffer takes the whole value

        EmbeddedChannel stranger1 = connect();
        assertThat(send(stranger1, PRE_AUTH_HOLDING_24K)).isEmpty(); // 40,000 + 24,000 + more > 64 KiB
        EmbeddedChannel stranger2 = connect();
        send(stranger2, PRE_AUTH_HOLDING_24K);

        assertThat(stranger1.isActive()).isFalse();
        assertThat(stranger2.isActive()).isFalse();
        assertThat(server.memory().evicted()).isEqualTo(2);
        assertThat(server.memory().used()).isEqualTo(appHolds).isLessThanOrEqualTo(BOUND);

        assertThat(send(app, "a".repeat(20_000) + "\r\n")).startsWith("$40000\r\naaaa");
        assertThat(app.isActive()).isTrue();
        assertThat(command(app, "INFO", "stats")).contains("\r\nevicted_clients:2\r\n");
        assertThat(command(app, "INFO", "clients"))
                .contains("\r\nmaxmemory_clients:" + BOUND + "\r\n")
                .contains("\r\nkvs_client_memory_over_bound:0\r\n");
        assertThat(node.metrics().scrape()).contains("kvs_clients_evicted_for_memory_total 2.0");
        assertThat(node.status().clientMemory().evictedClients()).isEqualTo(2);
    }

    @Test
    void anAuthenticatedClientAloneOverTheBoundIsAnAlarmUntilItIsIdleThenClosed() {
        EmbeddedChannel app = connect();
        assertThat(command(app, "AUTH", "secret")).isEqualTo("+OK\r\n");
        send(app, "*2\r\n$4\r\nECHO\r\n$100000\r\n" + "a".repeat(1_000));

        server.memory().sweep();
        assertThat(app.isActive()).isTrue();
        assertThat(server.memory().overBound()).isTrue();
        assertThat(node.status().clientMemory().overBound()).isTrue();
        assertThat(node.metrics().scrape()).contains("kvs_clients_memory_over_bound 1.0");

        clock.addAndGet(ClientMemory.IDLE_NANOS);
        server.memory().sweep();
        app.runPendingTasks();
        assertThat(app.isActive()).isFalse();
        assertThat(server.memory().evicted()).isEqualTo(1);
        assertThat(server.memory().used()).isZero();
        assertThat(server.memory().overBound()).isFalse();
    }

    @Test
    void unauthenticatedConnectionsGoBeforeBiggerIdleOnesAndIdleOnesBeforeActiveOnes() {
        EmbeddedChannel idle = connect();
        command(idle, "AUTH", "secret");
        send(idle, "*2\r\n$4\r\nECHO\r\n$30000\r\n" + "a".repeat(1_000)); // holds its 30,000-byte buffer
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));

        EmbeddedChannel stranger = connect();
        send(stranger, "*2\r\n$4\r\nAUTH\r\n$16000\r\n" + "p".repeat(2_000)); // 16,000 more: 46,000
        EmbeddedChannel app = connect();
        command(app, "AUTH", "secret");
        send(
                app,
                "*2\r\n$4\r\nECHO\r\n$20000\r\n"
                        + "b".repeat(1_000)); // 66,000, past 15/16 of 64 KiB: the stranger is enough
        app.runPendingTasks();
        stranger.runPendingTasks();
        assertThat(stranger.isActive()).isFalse();
        assertThat(idle.isActive()).isTrue();
        assertThat(server.memory().evicted()).isEqualTo(1);

        EmbeddedChannel app2 = connect();
        command(app2, "AUTH", "secret");
        send(app2, "*2\r\n$4\r\nECHO\r\n$15000\r\n" + "c".repeat(1_000)); // 65,000: no stranger left
        idle.runPendingTasks();
        assertThat(idle.isActive()).isFalse();
        assertThat(app.isActive()).isTrue();
        assertThat(app2.isActive()).isTrue();
        assertThat(server.memory().evicted()).isEqualTo(2);
        assertThat(send(app, "b".repeat(19_000) + "\r\n")).startsWith("$20000\r\nbbb");
    }

    @Test
    void unsentRepliesCountAndAClosedConnectionGivesBackAllItHeld() {
        ClientMemory memory = new ClientMemory(1_000, clock::get);
        EmbeddedChannel channel = new EmbeddedChannel();
        ClientMemory.Account account = memory.open(channel, channel::close);
        channel.write(Unpooled.wrappedBuffer(new byte[600])); // written, not flushed: not sent
        account.replies(0);
        assertThat(memory.outputBytes()).isGreaterThanOrEqualTo(600);
        assertThat(memory.evicted()).isZero();

        channel.write(Unpooled.wrappedBuffer(new byte[600]));
        account.replies(0); // over 1,000: the connection, unauthenticated, is closed
        assertThat(memory.evicted()).isEqualTo(1);
        assertThat(channel.isActive()).isFalse();
        account.close();
        assertThat(memory.used()).isZero();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aConnectionChosenToBeClosedClosesAtItsNextReadBeforeDecodingMore() {
        ClientMemory memory = new ClientMemory(1_000, clock::get);
        RespCommandDecoder decoder = new RespCommandDecoder(1 << 20, 1024, 1024, true, new ClientStats());
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        ClientMemory.Account account = memory.open(channel, () -> {}); // its close waits, as on a busy loop
        decoder.memory(account);

        channel.writeInbound(
                Unpooled.copiedBuffer("*2\r\n$4\r\nAUTH\r\n$2000\r\n" + "p".repeat(1_500), StandardCharsets.US_ASCII));
        assertThat(memory.evicted()).isEqualTo(1);
        assertThat(channel.isActive()).isTrue();

        channel.writeInbound(Unpooled.copiedBuffer("p".repeat(500) + "\r\n", StandardCharsets.US_ASCII));
        assertThat(channel.isActive()).isFalse();
        assertThat(channel.finishAndReleaseAll()).isFalse(); // the AUTH was never decoded
    }

    @Test
    void overTheBoundAStrangerHoldingBytesClosesAtItsNextReadWhileANewOneMayStillLogIn() {
        ClientMemory memory = new ClientMemory(40_000, clock::get);
        EmbeddedChannel holder = decoderChannel(memory);
        holder.writeInbound(
                ascii("*3\r\n$4\r\nAUTH\r\n$16000\r\n" + "u".repeat(16_000) + "\r\n$16000\r\n" + "p".repeat(1_000)));
        EmbeddedChannel bigger = decoderChannel(memory); // chosen, its close waiting as on a busy loop
        bigger.writeInbound(ascii("*4\r\n$4\r\nAUTH\r\n$16000\r\n" + "u".repeat(16_000) + "\r\n$16000\r\n"
                + "v".repeat(16_000) + "\r\n$16000\r\n" + "p".repeat(1_000)));
        assertThat(memory.evicted()).isEqualTo(1);
        assertThat(holder.isActive()).isTrue();

        holder.writeInbound(ascii("p"));
        assertThat(holder.isActive()).isFalse();
        assertThat(memory.evicted()).isEqualTo(2);

        EmbeddedChannel newcomer = decoderChannel(memory);
        newcomer.writeInbound(ascii(RespChannel.encode("AUTH", "secret")));
        assertThat(newcomer.isActive()).isTrue();
        RespCommand auth = newcomer.readInbound();
        assertThat(auth.args()).hasNumberOfRows(2);

        EmbeddedChannel filler = decoderChannel(memory); // over 16 KiB in its first read: closed before decoding
        filler.writeInbound(
                ascii("*3\r\n$4\r\nAUTH\r\n$16000\r\n" + "u".repeat(16_000) + "\r\n$16000\r\n" + "p".repeat(1_000)));
        assertThat(filler.isActive()).isFalse();
        assertThat(memory.evicted()).isEqualTo(3);

        EmbeddedChannel trickle = decoderChannel(memory); // as many small reads in one batch: counted together
        trickle.pipeline().fireChannelRead(ascii("*3\r\n$4\r\nAUTH\r\n$16000\r\n" + "u".repeat(8_000)));
        trickle.pipeline().fireChannelRead(ascii("u".repeat(8_000) + "\r\n$16000\r\n" + "p".repeat(1_000)));
        assertThat(trickle.isActive()).isFalse();
        for (EmbeddedChannel c : List.of(holder, bigger, newcomer, filler, trickle)) c.finishAndReleaseAll();
    }

    private static EmbeddedChannel decoderChannel(ClientMemory memory) {
        RespCommandDecoder decoder = new RespCommandDecoder(1 << 20, 1024, 1024, true, new ClientStats());
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        decoder.memory(memory.open(channel, () -> {}));
        return channel;
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    @Test
    void everyByteHeldIsGivenBackWhenConnectionsClose() {
        EmbeddedChannel app = connect();
        command(app, "AUTH", "secret");
        send(app, "*2\r\n$4\r\nECHO\r\n$30000\r\n" + "a".repeat(1_000));
        EmbeddedChannel stranger = connect();
        send(stranger, "*2\r\n$4\r\nAUTH\r\n$16000\r\n" + "p".repeat(15_000));
        assertThat(server.memory().queryBytes()).isGreaterThanOrEqualTo(30_000 + 15_000);

        for (EmbeddedChannel c : channels) c.close();
        assertThat(server.memory().used()).isZero();
        assertThat(server.memory().evicted()).isZero();
    }
}
