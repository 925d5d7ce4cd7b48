package dev.kvs.replication.backup;

import dev.kvs.core.KvStore;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.Handback;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.Role;
import dev.kvs.replication.Transports;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.Hello;
import dev.kvs.replication.wire.Frame.RejectReason;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link ReplicationServer}: the listener, the handshake and the registry of live channels. */
public final class RealReplicationServer implements ReplicationServer {
    private static final Logger log = LoggerFactory.getLogger(RealReplicationServer.class);

    final KvStore store;
    final BackupNode node;
    final BackupConfig config;
    final UnfinishedKeys unfinished;
    final BackupCounters counters = new BackupCounters();
    final BackupRefusals refusals = new BackupRefusals();
    final BackupApplier applier;
    /** Where the stages of each write are marked for a benchmark (its value's frames read, applied, acked). */
    final WriteStages stages;

    final AssemblyBudget budget;
    private final ReceivedBytes received;
    private final LinkSecurity security;
    /** Connections accepted whose handshake has not finished: bounded by the config, in two pools. */
    private final HandshakeSlots slots;

    final RefusalLogs refusalLogs = new RefusalLogs();
    /** The configured peer's host (resolved now and every {@link #PEER_RESOLVE_MINUTES}), or null. */
    private final String peerHost;

    private final EventLoopGroup group;
    /** Where value channels move after their handshake; null: they stay on {@link #group}. */
    private final EventLoopGroup valueGroup;

    private final Channel server;
    private final ChannelGroup all = new DefaultChannelGroup("kvs-replication", GlobalEventExecutor.INSTANCE);
    private final AtomicBoolean closed = new AtomicBoolean();

    // guarded by this
    private Channel keyChannel;
    private Hello keyHello;
    private final Map<Channel, Hello> valueChannels = new LinkedHashMap<>();
    private volatile boolean keyChannelPaused;
    /** What the last welcomed key channel's primary advertised as its client address; kept after it closes. */
    private volatile String primaryClientAddress = "";

    /**
     * Binds and starts accepting connections; {@link ReplicationServer.Builder#start()} is the way in,
     * which checks the arguments.
     *
     * @param valueGroup null: value channels stay on {@code group}
     * @param given the unfinished-key queue to fill; null: a new queue bounded by {@link
     *     BackupConfig#maxUnfinishedKeys()}
     * @param peerHost null: no configured peer
     * @param stages where each write's stages are marked ({@link WriteStages#OFF} but for a benchmark)
     */
    public RealReplicationServer(
            KvStore store,
            BackupNode node,
            EventLoopGroup group,
            EventLoopGroup valueGroup,
            String host,
            int port,
            BackupConfig config,
            UnfinishedKeys given,
            LinkSecurity security,
            String peerHost,
            WriteStages stages) {
        this.store = store;
        this.node = node;
        this.config = config;
        this.unfinished = given != null ? given : new UnfinishedKeys(config.maxUnfinishedKeys());
        this.stages = stages;
        this.applier = new BackupApplier(
                store,
                unfinished,
                new UnfinishedKeys(config.maxUnfinishedKeys()),
                counters,
                config.maxHeldKeyPackets(),
                stages,
                config.maxHeldUnitBytes(),
                body -> node.alone(() -> {
                    body.run();
                    return null;
                }));
        this.budget = new AssemblyBudget(config.maxAssemblyBytes(), config.maxAssemblyBytesPerChannel());
        this.received = new ReceivedBytes(counters.bytesReceived);
        this.security = security;
        this.group = group;
        this.valueGroup = valueGroup;
        this.slots = new HandshakeSlots(config);
        this.peerHost = peerHost;
        if (peerHost != null) resolvePeer();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannel(group))
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.readAllocator())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        ChannelFuture bound = bootstrap.bind(host, port).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            String message = "replication cannot listen on " + host + ":" + port + ": " + cause.getMessage();
            throw new UncheckedIOException(
                    message, cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause));
        }
        this.server = bound.channel();
        all.add(server);
        startCollecting();
        if (peerHost != null) {
            walker.scheduleWithFixedDelay(
                    this::resolvePeer, PEER_RESOLVE_MINUTES, PEER_RESOLVE_MINUTES, TimeUnit.MINUTES);
        }
        log.info("backup {} listening for replication on {}", node.name(), server.localAddress());
    }

    private void accept(SocketChannel ch) {
        if (closed.get()) {
            ch.close();
            return;
        }
        InetSocketAddress remote = ch.remoteAddress();
        closeToMakeRoom(slots.admit(ch, remote == null ? null : remote.getAddress()));
        all.add(ch);
        ChannelPipeline p = ch.pipeline();
        security.addListenerTls(ch);
        SslHandler tls = p.get(SslHandler.class);
        if (tls != null) {
            // a finished mutual TLS handshake proves the peer's identity, wherever it connects from
            tls.handshakeFuture().addListener(f -> {
                if (f.isSuccess()) closeToMakeRoom(slots.proven(ch));
            });
        }
        p.addLast("received-bytes", received);
        p.addLast(ReadClock.NAME, new ReadClock());
        // until the handshake is done a frame is a handshake frame: small
        FrameCodec.install(p, Math.min(config.maxFrameBytes(), HANDSHAKE_FRAME_BYTES));
        security.addListenerAuth(ch, node.epoch());
        p.addLast(HandshakeHandler.NAME, new HandshakeHandler(this));
    }

    /**
     * Runs resync and flush walks over the store and the collection of tombstones, one at a time, off
     * the event loops: a collection never runs during a walk.
     */
    private final ScheduledExecutorService walker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kvs-resync-walk");
        t.setDaemon(true);
        return t;
    });

    /** How often the backup collects the tombstones that order nothing any more. */
    static final long COLLECT_INTERVAL_MILLIS = 100;

    /** Starts collecting tombstones every {@link #COLLECT_INTERVAL_MILLIS} while this node is a backup. */
    private void startCollecting() {
        walker.scheduleWithFixedDelay(
                this::collect, COLLECT_INTERVAL_MILLIS, COLLECT_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** A collection is queued on the walker and has not started yet. */
    private final AtomicBoolean collectQueued = new AtomicBoolean();

    /**
     * Applies the held deletes whose key packets came and collects tombstones now, off the event loops,
     * unless that is queued already.
     */
    void collectSoon() {
        if (!collectQueued.compareAndSet(false, true)) return;
        try {
            walker.execute(() -> {
                collectQueued.set(false);
                collect();
            });
        } catch (RejectedExecutionException e) {
            collectQueued.set(false); // closing
        }
    }

    private void collect() {
        if (!node.isBackup()) return;
        try {
            applier.releaseHeld();
            applier.collectTombstones();
        } catch (RuntimeException e) {
            log.warn("collecting tombstones failed; trying again: {}", e.toString());
        }
    }

    @Override
    public boolean expire(byte[] key, long nowMillis) {
        return applier.expire(key, nowMillis);
    }

    /**
     * Runs {@code walk} off the event loops, then {@code done} with whether it completed (unless the
     * listener closed meanwhile).
     */
    void walk(Runnable walk, Consumer<Boolean> done) {
        try {
            walker.execute(() -> {
                boolean ok = false;
                try {
                    walk.run();
                    ok = true;
                } catch (RuntimeException e) {
                    log.error("resync walk failed; closing the key channel so the primary resyncs again", e);
                }
                done.accept(ok);
            });
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    /** How often the peer's host is resolved again, in minutes: its address may change. */
    static final long PEER_RESOLVE_MINUTES = 1;

    /** Resolves the configured peer's host; on failure keeps the addresses it had. */
    private void resolvePeer() {
        try {
            slots.peerAddresses(Set.of(InetAddress.getAllByName(peerHost)));
        } catch (UnknownHostException | RuntimeException e) {
            log.warn(
                    "cannot resolve the peer {}: its connections compete with strangers' for handshake slots"
                            + " until it resolves ({})",
                    peerHost,
                    e.toString());
        }
    }

    /** Closes connections in their handshake that newer ones push out of a full pool. */
    private void closeToMakeRoom(List<HandshakeSlots.Eviction> evicted) {
        for (HandshakeSlots.Eviction e : evicted) {
            counters.droppedConnections.increment();
            refusalLogs.dropped.warn(
                    "closed the oldest replication connection still in its handshake, from {}, to make room: {}",
                    e.channel().remoteAddress(),
                    e.why());
            e.channel().close();
        }
    }

    /** The largest frame read before the handshake is done. */
    static final int HANDSHAKE_FRAME_BYTES = 256 * 1024;

    /**
     * The handshake of {@code ch} is over (welcomed, refused, or closed before): it no longer holds a
     * handshake slot, and its frames may be as large as the config allows.
     */
    void handshakeOver(Channel ch, boolean welcomed) {
        slots.release(ch);
        if (!welcomed) counters.refusedConnections.increment();
        if (welcomed) FrameCodec.maxFrameBytes(ch.pipeline(), config.maxFrameBytes());
    }

    /**
     * Decides on a primary's {@code Hello}: a {@code Reject}, or a {@code Welcome} with the channel
     * registered as the key channel or a value channel.
     */
    synchronized Frame handshake(Hello h, Channel ch) {
        if (closed.get()) return reject(RejectReason.BUSY, "backup is shutting down");
        if (!node.cluster().equals(h.cluster())) {
            return reject(RejectReason.CLUSTER_MISMATCH, "cluster " + h.cluster() + " != " + node.cluster());
        }
        String shard = node.shard();
        if (!h.shard().isEmpty() && !shard.isEmpty() && !h.shard().equals(shard)) {
            return reject(
                    RejectReason.CLUSTER_MISMATCH,
                    "shard " + h.shard() + " != " + shard + ": " + h.node() + " is the primary of another shard");
        }
        // the epoch first: a deposed primary dialling its promoted backup must learn that it is stale
        long epoch = node.epoch();
        if (h.epoch() < epoch) {
            return reject(
                    RejectReason.STALE_EPOCH, "epoch " + h.epoch() + " < " + epoch + ": " + h.node() + " is stale");
        }
        if (!node.isBackup()) return reject(RejectReason.NOT_BACKUP, node.name() + " is not a backup");
        if (h.epoch() > epoch) {
            node.adoptEpoch(h.epoch());
            closeOlderThan(h.epoch());
            log.info("adopted epoch {} from primary {}", h.epoch(), h.node());
        }
        if (h.kind() == Frame.ChannelKind.KEY) {
            if (keyChannel != null && keyChannel.isActive()) {
                if (!keyHello.node().equals(h.node()) && h.epoch() <= keyHello.epoch()) {
                    return reject(RejectReason.BUSY, "key channel of " + keyHello.node() + " is connected");
                }
                log.info("key channel from {} replaces the one from {}", h.node(), keyHello.node());
                keyChannel.close();
            }
            keyChannel = ch;
            keyHello = h;
            if (!h.clientAddress().isEmpty()) primaryClientAddress = h.clientAddress();
            keyChannelPaused = false;
            applier.keyChannelReset();
        } else {
            Channel sameStream = null;
            for (Map.Entry<Channel, Hello> e : valueChannels.entrySet()) {
                if (e.getValue().node().equals(h.node()) && e.getValue().stream() == h.stream())
                    sameStream = e.getKey();
            }
            if (sameStream != null) {
                valueChannels.remove(sameStream);
                sameStream.close();
            }
            if (valueChannels.size() >= config.maxValueChannels()) {
                return reject(RejectReason.BUSY, "already " + valueChannels.size() + " value channels");
            }
            valueChannels.put(ch, h);
        }
        TxId contiguous = applier.contiguous();
        boolean empty = contiguous.equals(TxId.ZERO) && store.stats().entries() == 0;
        return new Frame.Welcome(node.cluster(), node.name(), Role.BACKUP.label(), node.epoch(), contiguous, empty);
    }

    /**
     * A share of the assembly memory for the channel of {@code ctx}: while the budget is over its
     * bound the channel stops reading, and it reads again once the budget has room.
     */
    AssemblyBudget.Lease lease(ChannelHandlerContext ctx) {
        AssemblyBudget.Lease[] lease = new AssemblyBudget.Lease[1];
        lease[0] = budget.open(() -> {
            try {
                ctx.executor().execute(() -> ctx.channel().config().setAutoRead(!lease[0].isPaused()));
            } catch (RejectedExecutionException e) {
                // shutting down
            }
        });
        return lease[0];
    }

    /** A deposed primary offers a handback: the node's {@link Handback}, or a {@code Reject}. */
    synchronized Object handback(Hello h) {
        if (closed.get()) return reject(RejectReason.BUSY, "shutting down");
        if (!node.cluster().equals(h.cluster())) {
            return reject(RejectReason.CLUSTER_MISMATCH, "cluster " + h.cluster() + " != " + node.cluster());
        }
        Handback handback = node.handback();
        if (handback == null) {
            return reject(RejectReason.NOT_PRIMARY, node.name() + " is not a promoted primary: nothing to hand back");
        }
        return handback;
    }

    /** The last {@code Reject} sent, {@code REASON message}, for {@link BackupStatus#lastRejection()}. */
    private volatile String lastRejection = "";

    private Frame reject(RejectReason reason, String message) {
        refusalLogs.rejected.warn("refused a replication channel: {} ({})", reason, message);
        lastRejection = reason + " " + message;
        return new Frame.Reject(reason, node.epoch(), message);
    }

    /** Closes the channels of primaries older than {@code epoch}. */
    @Override
    public synchronized void fence(long epoch) {
        closeOlderThan(epoch);
    }

    private void closeOlderThan(long epoch) {
        applier.dropHeld(); // deletes of a primary that is gone: this backup never acknowledged them
        if (keyChannel != null && keyHello.epoch() < epoch) {
            keyChannel.close();
            keyChannel = null;
            keyHello = null;
        }
        List<Channel> stale = new ArrayList<>();
        valueChannels.forEach((ch, h) -> {
            if (h.epoch() < epoch) stale.add(ch);
        });
        for (Channel ch : stale) {
            valueChannels.remove(ch);
            ch.close();
        }
    }

    @Override
    public String primaryClientAddress() {
        return primaryClientAddress;
    }

    @Override
    public boolean resyncing() {
        return applier.resyncing();
    }

    /** A registered channel closed. */
    synchronized void channelClosed(Channel ch) {
        if (ch == keyChannel) {
            keyChannel = null;
            keyHello = null;
            keyChannelPaused = false;
        }
        valueChannels.remove(ch);
    }

    void keyChannelPaused(Channel ch, boolean paused) {
        synchronized (this) {
            if (ch != keyChannel) return;
        }
        keyChannelPaused = paused;
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
    public UnfinishedKeys unfinishedKeys() {
        return unfinished;
    }

    @Override
    public BackupStatus status() {
        boolean keyConnected;
        int values;
        synchronized (this) {
            keyConnected = keyChannel != null && keyChannel.isActive();
            values = valueChannels.size();
        }
        return new BackupStatus(
                keyConnected,
                values,
                node.epoch(),
                applier.contiguous(),
                applier.resyncing(),
                unfinished.size(),
                unfinished.oldestAgeMillis(),
                counters.keyPackets.sum(),
                counters.duplicateKeyPackets.sum(),
                counters.resendsRequested.sum(),
                counters.valuesApplied.sum(),
                counters.valuesSuperseded.sum(),
                counters.valuesNacked.sum(),
                budget.used(),
                budget.paused(),
                keyConnected && keyChannelPaused,
                counters.bytesReceived.sum(),
                counters.resyncs.sum(),
                counters.keysRemovedByResync.sum(),
                counters.refusedConnections.sum(),
                counters.droppedConnections.sum(),
                slots.strangers() + slots.peers(),
                applier.asyncValues().size(),
                counters.valuesNotAwaited.sum(),
                counters.tombstonesCollected.sum(),
                counters.tombstoneSweeps.sum(),
                applier.tombstoneSweepAbove(),
                applier.heldDeletes(),
                applier.heldUnits(),
                applier.heldUnitBytes(),
                counters.unitsApplied.sum(),
                counters.unitsBroken.sum(),
                refusals.snapshot(),
                lastRejection);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        walker.shutdownNow();
        var closing = all.close();
        if (!onEventLoop()) closing.awaitUninterruptibly();
        log.info("backup {} stopped listening for replication", node.name());
    }

    private boolean onEventLoop() {
        for (EventExecutor e : group) {
            if (e.inEventLoop()) return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return "ReplicationServer[" + server.localAddress() + "]";
    }

    /**
     * Moves a value channel, handshake done, to an event loop of the value group, so that applying
     * its values never holds up the key channel, then runs {@code then} there; without a value group
     * just runs {@code then}.
     */
    void moveToValueLoop(Channel ch, Runnable then) {
        if (valueGroup == null) {
            then.run();
            return;
        }
        EventLoop target = valueGroup.next();
        ch.deregister().addListener(d -> {
            if (!d.isSuccess()) {
                ch.close();
                return;
            }
            // reading resumes on the new loop (autoRead); bytes already decoded went through the old one
            target.register(ch).addListener(r -> {
                if (r.isSuccess()) {
                    then.run();
                } else {
                    log.warn("value channel {} could not move to its event loop; closing it", ch.remoteAddress());
                    ch.close();
                }
            });
        });
    }
}
