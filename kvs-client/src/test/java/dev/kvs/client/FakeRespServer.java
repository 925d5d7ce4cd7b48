package dev.kvs.client;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A tiny scripted RESP server for what real nodes cannot do on demand yet ({@code -UNFINISHED},
 * {@code -LOST}, ...) or on purpose (drop a connection with a request in flight, go silent). It
 * records every command it receives.
 */
final class FakeRespServer implements AutoCloseable {
    /** Reply to one command: raw RESP text, {@link #NO_REPLY} or {@link #CLOSE}. */
    interface Script {
        /**
         * @param command the command's arguments as UTF-8 text
         * @param connection 1 for the first connection accepted, 2 for the second, ...
         */
        String reply(List<String> command, int connection);
    }

    /** Stay silent. */
    static final String NO_REPLY = "<no reply>";
    /** Close the connection without answering. */
    static final String CLOSE = "<close>";

    private static final String AFTER = "<after ";

    /** {@code reply}, sent {@code millis} later (other commands on the connection are answered meanwhile). */
    static String after(long millis, String reply) {
        return AFTER + millis + ">" + reply;
    }

    private final EventLoopGroup group;
    private final Channel server;
    private final ConcurrentLinkedQueue<List<String>> received = new ConcurrentLinkedQueue<>();
    private final AtomicInteger connections = new AtomicInteger();

    private FakeRespServer(Script script) throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        int n = connections.incrementAndGet();
                        ch.pipeline()
                                .addLast(new RedisDecoder())
                                .addLast(new RedisBulkStringAggregator())
                                .addLast(new RedisArrayAggregator())
                                .addLast(new Responder(script, n));
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
    }

    /** Answers each command as the script says. */
    private final class Responder extends SimpleChannelInboundHandler<ArrayRedisMessage> {
        private final Script script;
        private final int connection;

        Responder(Script script, int connection) {
            this.script = script;
            this.connection = connection;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ArrayRedisMessage msg) {
            List<String> command = new ArrayList<>();
            for (RedisMessage child : msg.children()) {
                command.add(((FullBulkStringRedisMessage) child).content().toString(StandardCharsets.UTF_8));
            }
            received.add(command);
            String reply = script.reply(command, connection);
            if (CLOSE.equals(reply)) {
                ctx.close();
            } else if (reply.startsWith(AFTER)) {
                int end = reply.indexOf('>');
                long millis = Long.parseLong(reply.substring(AFTER.length(), end));
                String later = reply.substring(end + 1);
                ctx.executor().schedule(() -> send(ctx, later), millis, TimeUnit.MILLISECONDS);
            } else if (!NO_REPLY.equals(reply)) {
                send(ctx, reply);
            }
        }

        private void send(ChannelHandlerContext ctx, String reply) {
            ctx.writeAndFlush(Unpooled.copiedBuffer(reply, StandardCharsets.UTF_8));
        }
    }

    static FakeRespServer start(Script script) {
        try {
            return new FakeRespServer(script);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String endpoint() {
        return "127.0.0.1:" + ((java.net.InetSocketAddress) server.localAddress()).getPort();
    }

    /** Every command received so far, in order. */
    List<List<String>> received() {
        return List.copyOf(received);
    }

    /** How many received commands start with {@code name}. */
    long count(String name) {
        return received.stream().filter(c -> c.get(0).equalsIgnoreCase(name)).count();
    }

    int connections() {
        return connections.get();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
