package dev.kvs.server.internal.resp;

import dev.kvs.core.WriteStages;
import dev.kvs.replication.Transports;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.PackedEventLoops;
import dev.kvs.server.internal.Transport;
import dev.kvs.server.internal.pubsub.OutputLimit;
import dev.kvs.server.internal.pubsub.PubSub;
import dev.kvs.server.internal.role.ReadersOut;
import dev.kvs.server.internal.script.ScriptEngine;
import dev.kvs.server.internal.tls.TlsFailures;
import dev.kvs.server.internal.tls.TlsOnly;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RESP2 client port; with a TLS context it speaks TLS only, and a plain-text client is answered
 * {@link #TLS_REQUIRED} and closed before any command runs.
 */
public final class RespServer {
    private static final Logger log = LoggerFactory.getLogger(RespServer.class);

    private static final int MAX_INLINE_BYTES = 64 * 1024;

    /** The error a plain-text client of a TLS-only port reads before the connection closes. */
    public static final String TLS_REQUIRED =
            "-TLSREQUIRED this port accepts TLS connections only (e.g. redis-cli --tls --cacert ca.pem)\r\n";

    /** What connections' idleness and commands' time are measured with ({@link System#nanoTime}, or a test's). */
    private final LongSupplier nanoClock;

    private final CommandContext node;
    private final CommandTable table = new CommandTable();
    private final ClientStats stats = new ClientStats();
    private final BulkPreallocBudget bulkBudget;
    private final ProtectedMode protectedMode;
    private final ClientMemory memory;
    private final ClientWarnings warnings = new ClientWarnings();
    private final AclLog aclLog = new AclLog(System::currentTimeMillis);
    private final CommandRefusals refusals;
    /** Shared by the connections: data commands pass it, an EXEC runs alone in it. */
    private final ExecBarrier barrier = new ExecBarrier();

    private final TransactionCommands transactions;
    /** EVAL and SCRIPT; their scripts run on the engine's own thread. */
    private final ScriptEngine scriptEngine = new ScriptEngine();

    private final ScriptCommands scripts;
    /** The node's channels and subscribers: PUBLISH here, and anything on the node that publishes. */
    private final PubSub pubSub;

    private final SslContext tls;
    private final WriteStages stages;
    private Channel serverChannel;
    private ScheduledFuture<?> memorySweep;

    /** A plain-TCP client port. */
    public RespServer(CommandContext node) {
        this(node, null, WriteStages.OFF);
    }

    /**
     * A client port speaking TLS with {@code tls} only, or plain TCP if it is {@code null}; marking each
     * command's dispatch and reply in {@code stages} ({@link WriteStages#OFF} but for a benchmark).
     */
    public RespServer(CommandContext node, SslContext tls, WriteStages stages) {
        this(node, tls, System::nanoTime, stages);
    }

    /**
     * A plain-TCP port judging connections' idleness for {@code maxClientMemory}, and timing commands, by
     * {@code nanoClock} (tests).
     */
    RespServer(CommandContext node, SslContext tls, LongSupplier nanoClock) {
        this(node, tls, nanoClock, WriteStages.OFF);
    }

    private RespServer(CommandContext node, SslContext tls, LongSupplier nanoClock, WriteStages stages) {
        this.node = node;
        this.tls = tls;
        this.stages = stages;
        this.nanoClock = nanoClock;
        this.memory = new ClientMemory(node.config().maxClientMemory(), nanoClock);
        node.metrics()
                .clientMemory(
                        memory::used,
                        memory::closingBytes,
                        memory::bound,
                        memory::evicted,
                        () -> memory.overBound() ? 1 : 0);
        this.protectedMode = new ProtectedMode(node.config());
        this.bulkBudget = new BulkPreallocBudget(node.config().bulkPreallocBytes());
        String[] limit = node.config().clientOutputBufferLimitPubsub().trim().split("\\s+");
        this.pubSub = new PubSub(p -> new GlobPattern(p)::matches, OutputLimit.parse(limit[0], limit[1], limit[2]));
        node.metrics().pubSub(pubSub::channelCount, pubSub::patternCount, pubSub::disconnections);
        this.refusals = new CommandRefusals(node.roles(), node.cluster(), stats, aclLog);
        // the command groups, as Redis groups them (COMMAND DOCS); each takes what it uses
        KeyGate gate = new KeyGate(node, refusals, table, barrier);
        Users users = new Users(node.config());
        new StringCommands(node, gate).register(table);
        new CounterCommands(node, gate).register(table);
        new HashCommands(node, gate).register(table);
        new SetCommands(node, gate).register(table);
        new ListCommands(node, gate).register(table);
        new KeyspaceCommands(node, gate).register(table);
        new RenameCommands(node, gate).register(table);
        new ObjectCommands(node, gate).register(table);
        new ExpiryCommands(node, gate).register(table);
        new ServerCommands(
                        node,
                        table,
                        scriptEngine,
                        new ClientOutputBufferLimit(node.config().clientOutputBufferLimit(), pubSub))
                .register();
        table.add(
                "INFO",
                -1,
                0,
                0,
                0,
                0,
                new InfoCommand(node, stats, table, bulkBudget, memory, warnings, scriptEngine, pubSub));
        new ShutdownCommand(node).register(table);
        new ConnectionCommands(node, users, aclLog, warnings).register(table);
        new AclCommand(users, !node.config().clientAuthRequired(), aclLog).register(table);
        new KvsCommands(node).register(table);
        BackupReadCommands.register(table);
        new ClusterCommands(node.cluster()).register(table);
        new PubSubCommands(pubSub).register(table);
        this.transactions = new TransactionCommands(node, refusals, barrier);
        transactions.register(table);
        this.scripts = new ScriptCommands(node, scriptEngine, barrier, table, refusals, stats);
        scripts.register(table);
        new FunctionCommands(scriptEngine, scripts::runningCommand).register(table);
    }

    /**
     * Binds the port and starts serving.
     *
     * @return the bound port (useful when {@code port} is 0)
     */
    public int start(String bind, int port, EventLoopGroup boss, EventLoopGroup workers, Transport transport)
            throws InterruptedException {
        if (workers instanceof PackedEventLoops loops) stats.loops = loops;
        serverChannel = bootstrap(boss, workers, transport)
                .bind(new InetSocketAddress(bind, port))
                .sync()
                .channel();
        memorySweep = workers.next()
                .scheduleAtFixedRate(
                        memory::sweep, ClientMemory.SWEEP_MILLIS, ClientMemory.SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        if (protectedMode.active()) {
            log.warn(
                    "protected mode: the client port listens on {} and neither requirepass nor users are set, so"
                            + " only loopback clients are served; set requirepass or users, or protectedMode: false on"
                            + " a trusted network",
                    bind);
        }
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /** The listener's bootstrap: socket options, and {@link #configure} for each connection. */
    ServerBootstrap bootstrap(EventLoopGroup boss, EventLoopGroup workers, Transport transport) {
        return new ServerBootstrap()
                .group(boss, workers)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.readAllocator())
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(1 << 20, (int)
                        SessionLimits.REPLY_SOFT_LIMIT))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        configure(ch.pipeline());
                    }
                });
    }

    /**
     * A client connection of this port on an {@link EmbeddedChannel}, with the handlers a socket's gets: for a
     * benchmark of the request path without the sockets ({@code RequestPathBenchmark} in kvs-bench). Bytes
     * written inbound are decoded and run on the calling thread; the replies are read outbound.
     */
    public EmbeddedChannel embeddedConnection() {
        EmbeddedChannel ch = new EmbeddedChannel();
        configure(ch.pipeline());
        ch.pipeline().fireChannelActive(); // the channel was active before the handlers were added
        return ch;
    }

    /** Installs the client protocol handlers; also used by tests on an {@code EmbeddedChannel}. */
    void configure(ChannelPipeline p) {
        if (tls != null) {
            p.addLast(TlsOnly.NAME, new TlsOnly(tls, TLS_REQUIRED.getBytes(StandardCharsets.US_ASCII), "client"));
            p.addLast(TlsFailures.NAME, new TlsFailures("client"));
        }
        p.addLast("encoder", new RespReplyEncoder());
        RespCommandDecoder decoder = decoder(node.config(), stats, bulkBudget, null);
        ClientMemory.Account account = memory.open(p.channel(), () -> {
            RespHandler h = p.get(RespHandler.class);
            if (h != null) h.evictForMemory();
        });
        CommandDispatch dispatch =
                new CommandDispatch(table, refusals, transactions, scripts, barrier, stats, node.metrics(), nanoClock);
        RespHandler handler = new RespHandler(
                node, table, stats, decoder, protectedMode, warnings, dispatch, account, pubSub, stages);
        decoder.memory(account);
        decoder.afterRead(dispatch::endStretch);
        decoder.stager((key, length) -> node.writes().stage(handler.mode(), key, length));
        p.addLast("decoder", decoder);
        p.addLast("handler", handler);
    }

    /** A connection's request decoder, with {@code config}'s limits (and its pre-auth ones if it asks for a login). */
    static RespCommandDecoder decoder(NodeConfig config, ClientStats stats, BulkPreallocBudget budget) {
        return decoder(config, stats, budget, null);
    }

    /** As above, staging a SET's long value in the store with {@code stager} (null: never). */
    static RespCommandDecoder decoder(
            NodeConfig config, ClientStats stats, BulkPreallocBudget budget, RespCommandDecoder.Stager stager) {
        return new RespCommandDecoder(
                config.maxBulkBytes(),
                config.maxMultibulkLength(),
                MAX_INLINE_BYTES,
                config.clientAuthRequired(),
                stats,
                budget,
                RespCommandDecoder.MIN_BULK_CHUNK,
                stager);
    }

    /** The port's counters; for INFO and tests. */
    ClientStats stats() {
        return stats;
    }

    /** The node-wide bound on client memory; for tests. */
    ClientMemory memory() {
        return memory;
    }

    /** The failed logins and refused commands; for tests. */
    AclLog aclLog() {
        return aclLog;
    }

    /** The commands the port knows; for tests. */
    CommandTable table() {
        return table;
    }

    /** The node's budget of bulk bytes preallocated ahead of their arrival; for tests. */
    BulkPreallocBudget bulkBudget() {
        return bulkBudget;
    }

    /** The port's barrier as the node's guard: a backup applies an EXEC's writes while no command runs. */
    public ReadersOut readersOut() {
        return barrier;
    }

    /**
     * The node's pub/sub: what {@code PUBLISH} publishes through, and what anything else on the node
     * that publishes (keyspace notifications) should use; thread-safe.
     */
    public PubSub pubSub() {
        return pubSub;
    }

    /** Client connections open now. */
    public int connectedClients() {
        return stats.connected.get();
    }

    /** Stops accepting connections; open connections close with their event loops. */
    public void close() {
        if (memorySweep != null) memorySweep.cancel(false);
        if (serverChannel != null) serverChannel.close().syncUninterruptibly();
        scriptEngine.close();
    }
}
