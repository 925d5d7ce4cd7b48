package dev.kvs.server.internal.admin;

import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AdminPortStats;
import dev.kvs.server.internal.tls.TlsFailures;
import dev.kvs.server.internal.tls.TlsOnly;
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
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's admin HTTP server: {@code GET /health}, plus whatever other parts of the node add with
 * {@link #route} and {@link #blockingRoute} ({@code /status} and {@code /metrics}: {@link StatusRoutes};
 * failover: {@link FailoverRoutes}). Unknown paths answer 404, known paths with another method 405, malformed requests
 * 400, requests the node's {@link dev.kvs.server.config.AdminConfig} does not allow 401 or 403, decided on the
 * request head before its body is read ({@link AdminGate}); all as JSON errors. Every request is
 * answered: a route that fails answers 500, one that takes longer than {@link #ANSWER_DEADLINE} 503.
 *
 * <p>Runs on the caller's event loop group, which must be NIO-based and which this server does not
 * shut down; actions that block (role changes) run on a small pool of its own, so that {@code /health}
 * keeps answering meanwhile. {@link #route} is thread-safe and may be called before or after {@link
 * #start}. Clients are expected not to pipeline requests (no admin client does): an asynchronous
 * route's answer may overtake an earlier one's on the same connection.
 *
 * <p>With a TLS context the port speaks HTTPS only: a plain HTTP request is answered 400 ({@link
 * #HTTPS_REQUIRED}) and closed unread.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

    /**
     * Largest request body accepted; bigger ones get 413. No route reads a body (parameters go in the
     * query string): what a client may make the node buffer stays small.
     */
    static final int MAX_BODY_BYTES = 4096;

    /** Longest a route may take to answer: beyond the longest action a route allows (a 10-minute switchover). */
    public static final Duration ANSWER_DEADLINE = Duration.ofMinutes(11);

    /** Blocking actions running at once; more wait in a queue of {@link #ACTIONS_QUEUED}, then get 503. */
    static final int ACTION_THREADS = 4;

    static final int ACTIONS_QUEUED = 32;

    /** The answer to a plain HTTP request on an HTTPS-only admin port. */
    static final String HTTPS_REQUIRED = httpsRequired();

    private final EventLoopGroup group;
    private final AdminAccess access;
    private final CrossSiteGuard crossSite;
    private final AdminConfig config;
    private final AdminPortStats stats;
    private final Duration deadline;
    private final SslContext tls;
    private final AdminRoutes routes = new AdminRoutes();
    private final ChannelGroup channels = new DefaultChannelGroup("kvs-admin", GlobalEventExecutor.INSTANCE);
    private final ThreadPoolExecutor actions;
    private volatile Channel serverChannel;

    /**
     * An admin port for the node {@code config} describes, as its {@link NodeConfig#admin()} allows;
     * its guards count what they refuse and close in {@code stats}. Serves only {@code /health} until
     * other parts add routes ({@link StatusRoutes}, {@link FailoverRoutes}).
     */
    public AdminServer(NodeConfig config, AdminPortStats stats, EventLoopGroup group) {
        this(config, stats, group, ANSWER_DEADLINE, null);
    }

    /** As {@link #AdminServer(NodeConfig, AdminPortStats, EventLoopGroup)}, speaking HTTPS with {@code tls} if not null. */
    public AdminServer(NodeConfig config, AdminPortStats stats, EventLoopGroup group, SslContext tls) {
        this(config, stats, group, ANSWER_DEADLINE, tls);
    }

    /** As {@link #AdminServer(NodeConfig, AdminPortStats, EventLoopGroup)} with another answer deadline (tests). */
    AdminServer(NodeConfig config, AdminPortStats stats, EventLoopGroup group, Duration deadline) {
        this(config, stats, group, deadline, null);
    }

    private AdminServer(
            NodeConfig node, AdminPortStats stats, EventLoopGroup group, Duration deadline, SslContext tls) {
        this.group = group;
        this.tls = tls;
        this.config = node.admin();
        this.access = new AdminAccess(config);
        this.crossSite = new CrossSiteGuard(ownNames(node), config.token().isPresent(), tls == null);
        this.stats = stats;
        this.deadline = deadline;
        AtomicInteger threads = new AtomicInteger();
        this.actions = new ThreadPoolExecutor(
                ACTION_THREADS, ACTION_THREADS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(ACTIONS_QUEUED), r -> {
                    Thread t = new Thread(r, "kvs-admin-action-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        actions.allowCoreThreadTimeOut(true);
        route("GET", "/health", AdminRoute.of(r -> AdminResponse.ok(Map.of("status", "ok"))));
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
     * Serves {@code method path} with {@code action}, which may block (a role change, a switchover
     * waiting for the backup): it runs on the admin server's own threads, never on the event loop, and
     * its answer is sent when it returns. An {@link AdminException} it throws answers its status, any
     * other exception 500. If {@link #ACTION_THREADS} actions run and {@link #ACTIONS_QUEUED} wait
     * already, or the server is closing, the request is answered 503 at once.
     *
     * @throws IllegalStateException if {@code method path} already has a route
     */
    public AdminServer blockingRoute(String method, String path, Function<AdminRequest, AdminResponse> action) {
        return route(method, path, request -> {
            try {
                return CompletableFuture.supplyAsync(() -> action.apply(request), actions);
            } catch (RejectedExecutionException e) {
                return CompletableFuture.completedFuture(AdminResponse.error(
                        503,
                        "the admin port is busy (" + ACTION_THREADS + " actions running, " + ACTIONS_QUEUED
                                + " waiting) or closing; " + method + " " + path + " not started: retry later"));
            }
        });
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
        AdminHttpHandler handler = new AdminHttpHandler(routes, deadline);
        AdminConnections connections = new AdminConnections(config.maxConnections(), stats);
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        if (tls != null) {
                            ch.pipeline()
                                    .addLast(
                                            TlsOnly.NAME,
                                            new TlsOnly(tls, HTTPS_REQUIRED.getBytes(StandardCharsets.UTF_8), "admin"))
                                    .addLast(TlsFailures.NAME, new TlsFailures("admin"));
                        }
                        ch.pipeline()
                                .addLast(new HttpServerCodec(new HttpDecoderConfig()
                                        .setMaxInitialLineLength(8192)
                                        .setMaxHeaderSize(16384)))
                                .addLast(new AdminGate(
                                        access,
                                        crossSite,
                                        connections,
                                        stats,
                                        config.headTimeoutMillis(),
                                        config.idleTimeoutMillis()))
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

    /**
     * What a Host or Origin header may name as this node: its bind addresses, its advertised host, the
     * machine's host name and the allowed names.
     */
    private static List<String> ownNames(NodeConfig config) {
        List<String> names = new ArrayList<>(config.admin().allowedHosts());
        names.add(config.bind());
        names.add(config.adminBindAddress());
        config.advertise().ifPresent(a -> names.add(a.substring(0, a.lastIndexOf(':'))));
        try {
            names.add(InetAddress.getLocalHost().getHostName());
        } catch (UnknownHostException e) {
            log.debug("no local host name for the admin port's Host check: {}", e.getMessage());
        }
        return names;
    }

    private static String httpsRequired() {
        String body = "{\"error\":\"this admin port speaks HTTPS only: use https://\",\"status\":400}";
        return "HTTP/1.1 400 Bad Request\r\nContent-Type: " + AdminResponse.JSON_TYPE + "\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + body;
    }

    /** Blocking actions running now (tests). */
    int busyActions() {
        return actions.getActiveCount();
    }

    /** The port bound, or -1 before {@link #start}. */
    public int port() {
        Channel c = serverChannel;
        return c == null ? -1 : ((InetSocketAddress) c.localAddress()).getPort();
    }

    /**
     * Stops listening, closes open admin connections and interrupts running actions (a switchover gives
     * up and lifts its fence), waiting a few seconds for them to end; idempotent. Does not shut the
     * group down.
     */
    @Override
    public void close() {
        Channel c = serverChannel;
        if (c != null) c.close().syncUninterruptibly();
        channels.close().awaitUninterruptibly();
        actions.shutdownNow();
        try {
            if (!actions.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("admin actions still running 5 s after the admin server closed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
