package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One connection of a fake primary: sends frames, and queues the frames the backup answers. */
final class TestPrimary implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Channel channel;
    private final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();

    private TestPrimary(EventLoopGroup group, int port) {
        this(group, port, null);
    }

    private TestPrimary(EventLoopGroup group, int port, String from) {
        this.channel = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        FrameCodec.install(ch.pipeline(), 16 * 1024 * 1024);
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<Frame>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
                                received.add(f);
                            }
                        });
                    }
                })
                .connect(new InetSocketAddress("127.0.0.1", port), from == null ? null : new InetSocketAddress(from, 0))
                .syncUninterruptibly()
                .channel();
    }

    /** Connects without saying anything. */
    static TestPrimary connect(EventLoopGroup group, int port) {
        return new TestPrimary(group, port);
    }

    /**
     * Connects from the loopback address {@code from} (any of 127.0.0.0/8 on Linux) without saying
     * anything: another source address, as a stranger's host would be.
     */
    static TestPrimary connectFrom(EventLoopGroup group, int port, String from) {
        return new TestPrimary(group, port, from);
    }

    /** Connects and sends {@code hello}. */
    static TestPrimary connect(EventLoopGroup group, int port, Frame.Hello hello) {
        TestPrimary p = new TestPrimary(group, port);
        p.send(hello);
        return p;
    }

    void send(Frame... frames) {
        for (Frame f : frames) channel.write(f);
        channel.flush();
    }

    void sendRaw(ByteBuf bytes) {
        channel.writeAndFlush(bytes).syncUninterruptibly();
    }

    /** The next frame the backup sent, waiting for it up to {@link #TIMEOUT}. */
    Frame next() {
        try {
            Frame f = received.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(f).as("a frame from the backup within " + TIMEOUT).isNotNull();
            return f;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The next frame, which must be of {@code type}. */
    <T extends Frame> T next(Class<T> type) {
        Frame f = next();
        assertThat(f).isInstanceOf(type);
        return type.cast(f);
    }

    /** Frames received and not yet taken. */
    BlockingQueue<Frame> received() {
        return received;
    }

    boolean isOpen() {
        return channel.isActive();
    }

    /** Waits until the backup closes the connection. */
    void awaitClosed() {
        assertThat(channel.closeFuture().awaitUninterruptibly(TIMEOUT.toMillis()))
                .as("connection closed by the backup")
                .isTrue();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
