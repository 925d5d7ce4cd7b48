package dev.kvs.server.internal.admin;

import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.NodeStatus;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * The node's admin HTTP server: {@code GET /health}, {@code GET /status} (JSON), {@code GET /metrics}
 * (Prometheus text), plus whatever other parts of the node add with {@link #route}. Unknown paths
 * answer 404, known paths with another method 405, malformed requests 400; all as JSON errors.
 *
 * <p>Runs on the caller's event loop group, which must be NIO-based and which this server does not
 * shut down. {@link #route} is thread-safe and may be called before or after {@link #start}. Clients
 * are expected not to pipeline requests (no admin client does): an asynchronous route's answer may
 * overtake an earlier one's on the same connection.
 */
public final class AdminServer implements AutoCloseable {
    /** Largest request body accepted; bigger ones get 413. */
    static final int MAX_BODY_BYTES = 1024 * 1024;

    private final EventLoopGroup group;
    private final AdminRoutes routes = new AdminRoutes();
    private final ChannelGroup channels = new DefaultChannelGroup("kvs-admin", GlobalEventExecutor.INSTANCE);
    private volatile Channel serverChannel;

    public AdminServer(NodeContext node, EventLoopGroup group) {
        this.group = group;
        route("GET", "/health", AdminRoute.of(r -> AdminResponse.ok(Map.of("status", "ok"))));
        route("GET", "/status", AdminRoute.of(r -> AdminResponse.ok(NodeStatus.of(node))));
        route(
                "GET",
                "/metrics",
                AdminRoute.of(r -> AdminResponse.text(
                        200, AdminResponse.PROMETHEUS_TYPE, node.metrics().scrape())));
    }

    /**
     * Serves {@code method path} (exact path match) with {@code route}.
     *
     * @param method upper-case HTTP method, e.g. {@code POST}
     * @throws IllegalStateException if {@code method path} already has a route
     */
    public AdminServer route(String method, String path, AdminRoute route) {
        routes.add(method, path, route);
        return this;
    }

    /**
     * Listens on {@code bind:port}; blocks until bound. Not on an event loop thread.
     *
     * @param port the port, 0 for an ephemeral one
     * @return the port bound
     * @throws UncheckedIOException if the address cannot be bound (port in use, unknown host...)
     * @throws IllegalStateException if already started
     */
    public int start(String bind, int port) {
        if (serverChannel != null) throw new IllegalStateException("admin server already started");
        AdminHttpHandler handler = new AdminHttpHandler(routes);
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ch.pipeline()
                                .addLast(new HttpServerCodec(new HttpDecoderConfig()
                                        .setMaxInitialLineLength(8192)
                                        .setMaxHeaderSize(16384)))
                                .addLast(new HttpObjectAggregator(MAX_BODY_BYTES))
                                .addLast(handler);
                    }
                });
        ChannelFuture f = b.bind(bind, port).awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable cause = f.cause();
            String message = "admin HTTP server cannot listen on " + bind + ":" + port + ": " + cause.getMessage();
            throw new UncheckedIOException(
                    message, cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause));
        }
        serverChannel = f.channel();
        return port();
    }

    /** The port bound, or -1 before {@link #start}. */
    public int port() {
        Channel c = serverChannel;
        return c == null ? -1 : ((InetSocketAddress) c.localAddress()).getPort();
    }

    /** Stops listening and closes open admin connections; idempotent. Does not shut the group down. */
    @Override
    public void close() {
        Channel c = serverChannel;
        if (c != null) c.close().syncUninterruptibly();
        channels.close().awaitUninterruptibly();
    }
}
