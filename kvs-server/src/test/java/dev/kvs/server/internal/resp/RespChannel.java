package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.TestContexts;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.notify.KeyEvents;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/** A RESP client port on an {@link EmbeddedChannel}: bytes in, reply text out, no sockets. */
final class RespChannel implements AutoCloseable {
    /** The node's parts other than its RESP port (active expiry, status), for the tests that use them. */
    final NodeContext node;
    /** What the port's commands work with. */
    final CommandContext commands;

    final KvStore store;
    final EmbeddedChannel channel;
    final RespServer server;

    RespChannel(NodeConfig config) {
        this(config, null);
    }

    /** A primary whose replication to the backup is {@code link} (null: alone). */
    RespChannel(NodeConfig config, ReplicationLink link) {
        this(config, link, null, false);
    }

    /**
     * A primary whose replication to the backup is {@code link} (null: alone), serving a client at
     * {@code remote} (null: the embedded channel's address). With {@code frozenTime} the channel's
     * clock stands still from before the connection starts: only {@link #advanceTime} moves it.
     */
    RespChannel(NodeConfig config, ReplicationLink link, SocketAddress remote, boolean frozenTime) {
        this(config, link, remote, frozenTime, java.time.Clock.systemUTC(), null);
    }

    /** The same, with {@code clock} as the node's wall clock (what TTLs are computed and checked with). */
    RespChannel(
            NodeConfig config, ReplicationLink link, SocketAddress remote, boolean frozenTime, java.time.Clock clock) {
        this(config, link, remote, frozenTime, clock, null);
    }

    /** As above, the channel allocating its buffers with {@code alloc} (null: Netty's default). */
    RespChannel(
            NodeConfig config, ReplicationLink link, SocketAddress remote, boolean frozenTime, ByteBufAllocator alloc) {
        this(config, link, remote, frozenTime, java.time.Clock.systemUTC(), alloc);
    }

    /** The general form: the node's wall clock and the channel's allocator (null: Netty's default). */
    RespChannel(
            NodeConfig config,
            ReplicationLink link,
            SocketAddress remote,
            boolean frozenTime,
            java.time.Clock clock,
            ByteBufAllocator alloc) {
        this(config, link, remote, frozenTime, clock, alloc, ClusterView.NONE, KeyEvents.off());
    }

    /** A primary, alone, with {@code clock} as its wall clock, publishing its keyspace notifications to {@code events}. */
    static RespChannel withEvents(NodeConfig config, java.time.Clock clock, KeyEvents events) {
        return new RespChannel(config, null, null, false, clock, null, ClusterView.NONE, events);
    }

    /** A primary, alone, answering as the member of a cluster that {@code cluster} shows. */
    static RespChannel clustered(NodeConfig config, ClusterView cluster) {
        return new RespChannel(config, null, null, false, java.time.Clock.systemUTC(), null, cluster, KeyEvents.off());
    }

    private RespChannel(
            NodeConfig config,
            ReplicationLink link,
            SocketAddress remote,
            boolean frozenTime,
            java.time.Clock clock,
            ByteBufAllocator alloc,
            ClusterView cluster,
            KeyEvents events) {
        store = KvStore.builder().config(config.store()).open();
        node = TestContexts.primary(config, store, 1, 0, link, clock);
        channel = remote == null
                ? new EmbeddedChannel()
                : new EmbeddedChannel() {
                    @Override
                    protected SocketAddress remoteAddress0() {
                        return remote;
                    }
                };
        if (frozenTime) channel.freezeTime();
        if (alloc != null) channel.config().setAllocator(alloc);
        commands = TestContexts.commands(node, cluster, events);
        server = new RespServer(commands);
        server.configure(channel.pipeline());
        guardOutbound(channel);
        channel.pipeline().fireChannelActive(); // the channel was active before the handlers were added
    }

    /**
     * Lets a thread other than the test's write replies to {@code ch}. An {@link EmbeddedChannel}'s loop
     * takes every thread for its own, so a reply completed elsewhere (FLUSHDB's, once the sweep thread
     * is done) is encoded and queued on that thread: every write and flush that reaches the channel,
     * and every read of its outbound queue ({@link #drain(EmbeddedChannel)}), holds {@code ch}'s lock.
     */
    static void guardOutbound(EmbeddedChannel ch) {
        ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                synchronized (ch) {
                    ctx.write(msg, promise);
                }
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                synchronized (ch) {
                    ctx.flush();
                }
            }
        });
    }

    /**
     * The reply to a command just written to {@code ch}, waited for (up to 10 s) when it comes from
     * another thread: the text of every reply byte written back by then.
     */
    static String awaitReply(EmbeddedChannel ch) {
        return awaitReplies(ch, 1);
    }

    /** The replies written back to {@code ch}, waited for (up to 10 s) until they are {@code length} characters long. */
    static String awaitReplies(EmbeddedChannel ch, int length) {
        StringBuilder out = new StringBuilder();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            ch.runPendingTasks();
            out.append(drain(ch));
            return out.length() >= length;
        });
        return out.toString();
    }

    /** {@link #awaitReply(EmbeddedChannel)} on this client's channel. */
    String awaitReply() {
        return awaitReply(channel);
    }

    /** {@link #awaitReplies(EmbeddedChannel, int)} on this client's channel. */
    String awaitReplies(int length) {
        return awaitReplies(channel, length);
    }

    static RespChannel withDefaults() {
        return withDefaults(null);
    }

    /** A primary with the default test store whose replication to the backup is {@code link}. */
    static RespChannel withDefaults(ReplicationLink link) {
        return new RespChannel(
                NodeConfig.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(256L << 20)
                                .build())
                        .build(),
                link);
    }

    /** Moves the channel's clock (see the constructor's {@code frozenTime}) and runs what came due. */
    void advanceTime(long amount, TimeUnit unit) {
        channel.advanceTimeBy(amount, unit);
        channel.runPendingTasks();
    }

    /** The connection's handler. */
    RespHandler handler() {
        return channel.pipeline().get(RespHandler.class);
    }

    /** Writes raw bytes and returns every reply byte written back so far, as ISO-8859-1 text. */
    String send(String raw) {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    String send(byte[] raw) {
        channel.writeInbound(Unpooled.wrappedBuffer(raw));
        channel.runPendingTasks();
        return drain();
    }

    /**
     * The commands a decoder on {@code channel} passed on so far, in order: each alone, or several from
     * one read as one {@link RespCommands} message.
     */
    static List<RespCommand> decoded(EmbeddedChannel channel) {
        List<RespCommand> out = new ArrayList<>();
        for (Object m; (m = channel.readInbound()) != null; ) {
            if (m instanceof RespCommands batch) {
                for (int i = 0; i < batch.size(); i++) out.add(batch.command(i));
            } else {
                out.add((RespCommand) m);
            }
        }
        return out;
    }

    /** Sends one command in RESP array form. */
    String command(String... args) {
        return send(encode(args));
    }

    static String encode(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$')
                    .append(a.getBytes(StandardCharsets.ISO_8859_1).length)
                    .append("\r\n")
                    .append(a)
                    .append("\r\n");
        }
        return b.toString();
    }

    String drain() {
        return drain(channel);
    }

    /** Every reply byte written back to {@code ch} so far, as ISO-8859-1 text, its buffers released. */
    static String drain(EmbeddedChannel ch) {
        StringBuilder out = new StringBuilder();
        synchronized (ch) {
            ByteBuf buf;
            while ((buf = ch.readOutbound()) != null) {
                out.append(buf.toString(StandardCharsets.ISO_8859_1));
                buf.release();
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
        commands.metrics().close();
        store.close();
    }
}
