package dev.kvs.wan;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** The {@link WanLink}: a listener, its connections and a {@link LinkDirection} each way, on one event loop. */
final class RealWanLink implements WanLink {
    private final EventLoopGroup ownGroup;
    private final EventLoop loop;
    private final LinkTransport transport;
    private final InetSocketAddress target;
    private final LinkDirection toTarget;
    private final LinkDirection toClient;
    private final Bootstrap connector;
    private final Channel server;
    /** Event loop only. */
    private final Set<Connection> connections = new LinkedHashSet<>();

    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean cut;
    private volatile boolean paused;
    private volatile Duration delay;
    private volatile long bitsPerSecond;
    private volatile int openConnections;
    private volatile long acceptedConnections;
    private volatile long refusedConnections;

    RealWanLink(WanLink.Builder b) {
        this.target = new InetSocketAddress(b.targetHost, b.targetPort);
        if (target.isUnresolved()) {
            throw new UncheckedIOException(
                    "WAN link target host unknown: " + b.targetHost, new UnknownHostException(b.targetHost));
        }
        this.delay = b.delay;
        this.bitsPerSecond = b.bitsPerSecond;
        this.ownGroup = b.group != null ? null : LinkTransport.best().newGroup("kvs-wan");
        this.loop = (b.group != null ? b.group : ownGroup).next();
        this.transport = LinkTransport.of(loop);
        this.toTarget = new LinkDirection(loop, b.queueing, b.bufferBytes, delay.toNanos(), bitsPerSecond);
        this.toClient = new LinkDirection(loop, b.queueing, b.bufferBytes, delay.toNanos(), bitsPerSecond);

        int chunk = toTarget.chunkBytes;
        AdaptiveRecvByteBufAllocator reads = new AdaptiveRecvByteBufAllocator(64, Math.min(2048, chunk), chunk);
        this.connector = new Bootstrap()
                .group(loop)
                .channel(transport.socketChannel())
                .remoteAddress(target)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.RCVBUF_ALLOCATOR, reads);
        ServerBootstrap server = new ServerBootstrap()
                .group(loop)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, reads)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        if (b.allocator != null) {
            connector.option(ChannelOption.ALLOCATOR, b.allocator);
            server.childOption(ChannelOption.ALLOCATOR, b.allocator);
        }
        ChannelFuture bound = server.bind(b.listenHost, b.listenPort).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            shutdownOwnGroup();
            Throwable cause = bound.cause();
            String message =
                    "WAN link cannot listen on " + b.listenHost + ":" + b.listenPort + ": " + cause.getMessage();
            throw new UncheckedIOException(
                    message, cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause));
        }
        this.server = bound.channel();
    }

    private void accept(SocketChannel ch) {
        if (cut || closed.get()) {
            refusedConnections++;
            ch.close();
            return;
        }
        acceptedConnections++;
        Connection[] c = new Connection[1];
        c[0] = Connection.open(ch, connector, toTarget, toClient, () -> {
            connections.remove(c[0]);
            openConnections = connections.size();
        });
        connections.add(c[0]);
        openConnections = connections.size();
    }

    @Override
    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    @Override
    public int port() {
        return address().getPort();
    }

    @Override
    public InetSocketAddress target() {
        return target;
    }

    @Override
    public void cut() {
        onLoop(() -> {
            cut = true;
            resetAll();
        });
    }

    @Override
    public void heal() {
        onLoop(() -> cut = false);
    }

    @Override
    public boolean isCut() {
        return cut;
    }

    @Override
    public void pause() {
        onLoop(() -> {
            paused = true;
            toTarget.pause();
            toClient.pause();
        });
    }

    @Override
    public void resume() {
        onLoop(() -> {
            paused = false;
            toTarget.resume();
            toClient.resume();
        });
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void delay(Duration oneWay) {
        Duration d = Builder.checkDelay(oneWay);
        onLoop(() -> {
            delay = d;
            toTarget.delayNanos(d.toNanos());
            toClient.delayNanos(d.toNanos());
        });
    }

    @Override
    public Duration delay() {
        return delay;
    }

    @Override
    public void bandwidthBitsPerSecond(long bps) {
        long b = Builder.checkBandwidth(bps);
        onLoop(() -> {
            bitsPerSecond = b;
            toTarget.bitsPerSecond(b);
            toClient.bitsPerSecond(b);
        });
    }

    @Override
    public long bandwidthBitsPerSecond() {
        return bitsPerSecond;
    }

    @Override
    public WanLinkStats stats() {
        State state = cut ? State.CUT : paused ? State.PAUSED : State.UP;
        return new WanLinkStats(
                state, openConnections, acceptedConnections, refusedConnections, toTarget.stats(), toClient.stats());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        run(() -> {
            resetAll();
            server.close();
        });
        shutdownOwnGroup();
    }

    @Override
    public String toString() {
        return "WanLink[" + server.localAddress() + " -> " + target + ", delay " + delay + ", "
                + (bitsPerSecond == 0 ? "unlimited" : bitsPerSecond + " bit/s") + ", "
                + transport.name().toLowerCase(Locale.ROOT) + "]";
    }

    private void resetAll() {
        for (Connection c : List.copyOf(connections)) c.reset();
    }

    private void shutdownOwnGroup() {
        if (ownGroup == null) return;
        var f = ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        if (!loop.inEventLoop()) f.awaitUninterruptibly();
    }

    /** Runs {@code action} on the event loop and waits for it; a no-op once closed. */
    private void onLoop(Runnable action) {
        if (!closed.get()) run(action);
    }

    private void run(Runnable action) {
        if (loop.inEventLoop()) {
            action.run();
            return;
        }
        try {
            loop.submit(action).syncUninterruptibly();
        } catch (RejectedExecutionException e) {
            // the loop is shut down (closed meanwhile, or an external group): nothing left to do
        }
    }
}
