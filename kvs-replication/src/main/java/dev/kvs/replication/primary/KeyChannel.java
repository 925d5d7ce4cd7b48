package dev.kvs.replication.primary;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.core.log.ThrottledLog;
import dev.kvs.replication.ResyncStatus;
import dev.kvs.replication.Role;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyBatch;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's key channel: dials the backup, handshakes, and streams key packets group-committed
 * (every packet committed since the last write goes out in one frame and one flush), resending from
 * the backup's acknowledged point after a reconnect, or listing every key in a full resync when the
 * backup is new or too far behind.
 */
final class KeyChannel {
    private static final Logger log = LoggerFactory.getLogger(KeyChannel.class);
    /** The backup's rejections, a line per interval at most: the primary redials after each. */
    private static final ThrottledLog rejections = new ThrottledLog(log);

    private static final int MAX_PACKETS_PER_FRAME = 4096;

    enum State {
        CONNECTING,
        RESYNCING,
        STREAMING,
        /** The backup is ahead of this primary in its own epoch; replication refuses to go on. */
        DIVERGED,
        CLOSED
    }

    private final PrimaryLink link;
    private final EventLoopGroup group;
    private final ExecutorService resyncExecutor;
    private final Reconnector reconnector;
    private final AtomicBoolean pumpScheduled = new AtomicBoolean();
    private final AtomicLong resyncs = new AtomicLong();
    /** Totals over every resync; see {@link ResyncStatus}. */
    private final AtomicLong keysListed = new AtomicLong();

    private final AtomicLong valueBytesListed = new AtomicLong();
    private final AtomicLong valuesWanted = new AtomicLong();
    private final AtomicLong valueBytesWanted = new AtomicLong();
    /** The totals when the current resync began, for its summary once the backup acknowledges it. */
    private volatile ResyncStatus resyncStart;

    private final AtomicLong connections = new AtomicLong();
    private volatile State state = State.CONNECTING;
    private volatile Channel channel;

    KeyChannel(PrimaryLink link, EventLoopGroup group, ExecutorService resyncExecutor) {
        this.link = link;
        this.group = group;
        this.resyncExecutor = resyncExecutor;
        this.reconnector = new Reconnector(link.config());
    }

    State state() {
        return state;
    }

    ResyncStatus resyncStatus() {
        return new ResyncStatus(keysListed.get(), valueBytesListed.get(), valuesWanted.get(), valueBytesWanted.get());
    }

    long resyncs() {
        return resyncs.get();
    }

    long connections() {
        return connections.get();
    }

    void connect() {
        if (state == State.CLOSED) return;
        if (state != State.DIVERGED) state = State.CONNECTING;
        Dialer.dial(link, group, Dialer.Kind.KEY, new Handler()).addListener(f -> {
            if (!f.isSuccess()) retry();
        });
    }

    private void retry() {
        if (state != State.CLOSED) reconnector.schedule(group.next(), this::connect);
    }

    /** The event loop of the current connection, or null if there is none. */
    EventLoop eventLoop() {
        Channel ch = channel;
        return ch == null ? null : ch.eventLoop();
    }

    /**
     * Sends the key packets that may go, now if called on the connection's event loop (see {@link
     * #eventLoop}), else soon ({@link #wakeup}).
     */
    void pumpHere() {
        Channel ch = channel;
        if (ch != null && ch.eventLoop().inEventLoop()) pump(ch);
        else wakeup();
    }

    /** New key packets may be sendable: send them soon, batched with whatever else arrives. */
    void wakeup() {
        Channel ch = channel;
        if (ch != null && state == State.STREAMING && pumpScheduled.compareAndSet(false, true)) {
            ch.eventLoop().execute(() -> {
                pumpScheduled.set(false);
                pump(ch);
            });
        }
    }

    private void pump(Channel ch) {
        if (state != State.STREAMING || channel != ch || !ch.isActive()) return;
        boolean wrote = false;
        while (ch.isWritable()) {
            List<KeyPacket> packets = link.keyLog().drainSendable(MAX_PACKETS_PER_FRAME);
            if (packets.isEmpty()) break;
            ch.write(new KeyBatch(packets), ch.voidPromise());
            wrote = true;
        }
        if (wrote) {
            ch.flush();
            link.stages().mark(WriteStages.Stage.KEY_FLUSHED);
        }
    }

    /**
     * Tells the backup to take over in {@code epoch} (planned switchover), then waits, within the same
     * timeout, until the backup closes this channel: it does so once it has promoted itself, so the
     * caller demotes this node only when clients already find the new primary.
     *
     * @return true if the frame was written to a streaming key channel (the backup may then take over
     *     even if it did not close the channel in time)
     */
    boolean handOver(long epoch, long timeoutMillis) throws InterruptedException {
        Channel ch = channel;
        if (state != State.STREAMING || ch == null || !ch.isActive()) return false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        var f = ch.writeAndFlush(new Frame.Handover(epoch));
        if (!f.await(timeoutMillis) || !f.isSuccess()) return false;
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (!ch.closeFuture().await(Math.max(1, left))) {
            log.warn(
                    "backup {} did not confirm the handover within {} ms; demoting anyway",
                    link.peerName(),
                    timeoutMillis);
        }
        return true;
    }

    void close() {
        state = State.CLOSED;
        Channel ch = channel;
        if (ch != null) ch.close();
    }

    private void onWelcome(Channel ch, Frame.Welcome w) {
        connections.incrementAndGet();
        KeyLog keyLog = link.keyLog();
        TxId acked = keyLog.ackedTxId();
        TxId has = w.contiguous();
        if (has.epoch() == keyLog.epoch() && has.seq() > keyLog.lastTxId().seq()) {
            // the backup holds writes of this epoch that this primary never ordered: this primary lost
            // its state (a memory-only restart). Resyncing would wipe acknowledged writes on the backup.
            state = State.DIVERGED;
            log.error(
                    "backup {} has writes up to {} but this primary's last is {}: this primary lost its data;"
                            + " not replicating. Promote the backup, or wipe it to start over.",
                    link.peerName(),
                    has,
                    keyLog.lastTxId());
            ch.close(); // redialled with a growing backoff: the backoff is reset only by a good Welcome
            return;
        }
        reconnector.reset();
        link.onConfirmed().run();
        boolean resendable = !w.empty() && has.epoch() == keyLog.epoch() && has.seq() >= acked.seq();
        if (resendable) {
            keyLog.ack(has);
            keyLog.rewind(has);
            state = State.STREAMING;
            log.info("key channel to {} up; resending after {}", link.peerName(), has);
            pump(ch);
        } else {
            state = State.RESYNCING;
            resyncs.incrementAndGet();
            log.info("key channel to {} up; full resync (backup has {}, empty={})", link.peerName(), has, w.empty());
            resyncExecutor.execute(() -> resync(ch));
        }
    }

    /**
     * Lists every key (keys first, so the backup can fence from the first second), then streams on. The
     * backup answers each batch with the values it lacks ({@link Frame.ResyncWants}); only those ship.
     */
    private void resync(Channel ch) {
        resyncStart = resyncStatus();
        try {
            long upTo = link.keyLog().sendablePrefix();
            TxId mark = new TxId(link.keyLog().epoch(), upTo);
            send(ch, new Frame.ResyncBegin(mark));
            List<KeyPacket> batch = new ArrayList<>();
            List<byte[]> keys = new ArrayList<>();
            link.store().forEach((key, v) -> {
                if (!ch.isActive()) return;
                if (v.state() != RecordState.COMPLETE) return;
                boolean structure = v.header().type().isStructure();
                batch.add(new KeyPacket(
                        v.txId(),
                        Op.writing(v.header().type()), // a structure: listed with its type, no length,
                        key,
                        v.header().valueLength(),
                        // ... and its members' fingerprint, which the backup compares as a string's checksum
                        structure
                                ? link.store().membersFingerprint(key)
                                : v.header().checksum(),
                        v.header().expireAtMillis()));
                keysListed.incrementAndGet();
                valueBytesListed.addAndGet(v.header().valueLength());
                keys.add(key);
                if (batch.size() >= 1024) {
                    send(ch, new KeyBatch(new ArrayList<>(batch)));
                    batch.clear();
                }
            });
            if (!batch.isEmpty()) send(ch, new KeyBatch(batch));
            send(ch, new Frame.ResyncEnd(mark));
            link.keyLog().resyncedUpTo(upTo);
            link.pending().requeueAll();
            ch.eventLoop().execute(() -> {
                if (channel == ch && state == State.RESYNCING) {
                    state = State.STREAMING;
                    pump(ch);
                }
            });
            log.info("full resync to {} listed {} keys up to {}", link.peerName(), keys.size(), mark);
        } catch (RuntimeException e) {
            log.warn("full resync to {} failed; will retry on reconnect", link.peerName(), e);
            ch.close();
        }
    }

    /**
     * Ships the values a resync's backup lacks, each if its key still has the listed TxId (a key written
     * since ships its newer value as any write does; one deleted since, its delete).
     */
    private void ship(List<KeyPacket> wanted) {
        for (KeyPacket p : wanted) {
            RecordHeader h = link.store().header(p.key());
            if (h == null || !h.txId().equals(p.txId())) continue;
            link.pending().listed(p.key(), p.txId(), p.valueLength()); // a resync's: no writer waits on it
            valuesWanted.incrementAndGet();
            valueBytesWanted.addAndGet(p.valueLength());
        }
    }

    /** The backup acknowledged the end of a resync: every batch's wants came before, in order. */
    private void resyncAcknowledged() {
        ResyncStatus start = resyncStart;
        resyncStart = null;
        ResyncStatus now = resyncStatus();
        long listedBytes = now.valueBytesListed() - start.valueBytesListed();
        long wantedBytes = now.valueBytesWanted() - start.valueBytesWanted();
        log.info(
                "full resync to {} acknowledged: {} keys listed, {} values shipped ({} of {} value bytes; {} saved)",
                link.peerName(),
                now.keysListed() - start.keysListed(),
                now.valuesWanted() - start.valuesWanted(),
                wantedBytes,
                listedBytes,
                listedBytes - wantedBytes);
    }

    /** Writes from a non-event-loop thread, waiting while the channel's buffer is full. */
    private static void send(Channel ch, Frame f) {
        ch.writeAndFlush(f);
        while (ch.isActive() && !ch.isWritable()) LockSupport.parkNanos(200_000);
        if (!ch.isActive()) throw new IllegalStateException("key channel closed");
    }

    private final class Handler extends SimpleChannelInboundHandler<Frame> {
        private final long heartbeatMillis = link.config().heartbeatInterval().toMillis();
        private final long deadMillis =
                Math.max(5 * heartbeatMillis, link.config().writeTimeout().toMillis());

        /**
         * Probes the link: a heartbeat after {@code heartbeatInterval} without a write, and the channel
         * closed (so it reconnects, and modes that answer at once stop doing so) when nothing at all came
         * back for {@code max(5 x heartbeatInterval, writeTimeout)}: a link that fails silently (no RST,
         * e.g. an interface down) is otherwise never noticed.
         */
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (heartbeatMillis <= 0) return;
            ctx.pipeline()
                    .addBefore(
                            ctx.name(),
                            "link-probe",
                            new IdleStateHandler(deadMillis, heartbeatMillis, 0, TimeUnit.MILLISECONDS));
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (!(evt instanceof IdleStateEvent e)) {
                ctx.fireUserEventTriggered(evt);
            } else if (e.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(new Frame.Heartbeat(System.nanoTime(), false));
            } else if (e.state() == IdleState.READER_IDLE && state != State.RESYNCING) {
                // during a resync the backup is silent until ResyncEnd; a big listing may take long
                log.warn(
                        "nothing from backup {} for {} ms: the link is dead; closing the key channel",
                        link.peerName(),
                        deadMillis);
                ctx.close();
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            if (state == State.CLOSED) { // closed while this connection was being made
                ctx.close();
                return;
            }
            sendHello(ctx, 0);
        }

        /** Sends the {@code Hello}, once this node's client address is known (waits up to a second). */
        private void sendHello(ChannelHandlerContext ctx, int waited) {
            if (!ctx.channel().isActive()) return;
            String address = link.advertisedClientAddress(ctx.channel().localAddress());
            if (address == null && waited < 1000) {
                ctx.executor().schedule(() -> sendHello(ctx, waited + 1), 1, TimeUnit.MILLISECONDS);
                return;
            }
            ctx.writeAndFlush(new Frame.Hello(
                    link.cluster(),
                    link.node(),
                    Role.PRIMARY.label(),
                    link.keyLog().epoch(),
                    Frame.ChannelKind.KEY,
                    0,
                    address == null ? "" : address,
                    link.shard()));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
            if (f instanceof Frame.KeyAck a) {
                if (resyncStart != null) resyncAcknowledged();
                link.stages().mark(WriteStages.Stage.KEY_ACKED);
                link.keyLog().ack(a.upTo());
                pump(ctx.channel()); // acks free room in the log: more may be sendable
            } else if (f instanceof Frame.Welcome w) {
                onWelcome(ctx.channel(), w);
            } else if (f instanceof Frame.ResyncWants w) {
                ship(w.wanted());
            } else if (f instanceof Frame.Resend r) {
                link.keyLog().rewind(r.after());
                pump(ctx.channel());
            } else if (f instanceof Frame.Heartbeat h && !h.reply()) {
                ctx.writeAndFlush(new Frame.Heartbeat(h.nanos(), true));
            } else if (f instanceof Frame.Reject r) {
                rejections.warn(
                        "backup {} rejected the key channel: {} ({})", link.peerName(), r.reason(), r.message());
                if (r.reason() == Frame.RejectReason.STALE_EPOCH || r.reason() == Frame.RejectReason.NOT_BACKUP)
                    link.onStaleEpoch().staleEpoch(r.epoch());
                ctx.close();
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) pump(ctx.channel());
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // also a connection closed before it became active here (it failed its authentication or
            // TLS, say): each connection has its own handler, so this redials once per connection
            boolean wasCurrent = channel == ctx.channel();
            if (wasCurrent) {
                channel = null;
                link.keyLog().rewind(TxId.ZERO);
            }
            if (state != State.CLOSED && (wasCurrent || channel == null)) {
                if (state != State.DIVERGED) state = State.CONNECTING;
                log.info("key channel to {} lost; reconnecting", link.peerName());
                retry();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("key channel error", cause);
            ctx.close();
        }
    }
}
