package dev.kvs.replication.primary;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.core.log.ThrottledLog;
import dev.kvs.replication.Role;
import dev.kvs.replication.wire.Frame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One value connection to the backup; the {@link ValueShipper} writes to it, acks come back on it. */
final class ValueChannel {
    private static final Logger log = LoggerFactory.getLogger(ValueChannel.class);
    /** The backup's rejections of every stream, a line per interval at most: each stream redials after one. */
    private static final ThrottledLog rejections = new ThrottledLog(log);

    private final PrimaryLink link;
    private final RefusedValues refusals;
    private final EventLoopGroup group;
    private final int stream;
    private final Reconnector reconnector;
    private volatile Channel channel;
    private volatile boolean ready;
    private volatile boolean closed;

    ValueChannel(PrimaryLink link, RefusedValues refusals, EventLoopGroup group, int stream) {
        this.link = link;
        this.refusals = refusals;
        this.group = group;
        this.stream = stream;
        this.reconnector = new Reconnector(link.config());
    }

    /** This stream's number, from 0. */
    int stream() {
        return stream;
    }

    /** Handshake done and the connection is up. */
    boolean ready() {
        Channel ch = channel;
        return ready && ch != null && ch.isActive();
    }

    /** The connection, if {@link #ready()}. */
    Channel channel() {
        return channel;
    }

    void connect() {
        if (closed) return;
        Dialer.dial(link, group, Dialer.Kind.VALUE, new Handler()).addListener(f -> {
            if (!f.isSuccess() && !closed) reconnector.schedule(group.next(), this::connect);
        });
    }

    void close() {
        closed = true;
        Channel ch = channel;
        if (ch != null) ch.close();
    }

    private final class Handler extends SimpleChannelInboundHandler<Frame> {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            if (closed) { // closed while this connection was being made
                ctx.close();
                return;
            }
            ctx.writeAndFlush(new Frame.Hello(
                    link.cluster(),
                    link.node(),
                    Role.PRIMARY.label(),
                    link.keyLog().epoch(),
                    Frame.ChannelKind.VALUE,
                    stream,
                    "",
                    link.shard()));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
            if (f instanceof Frame.ValueReceipt r) {
                link.flow().received(stream, r.bytes(), r.sentNanos(), r.receivedNanos(), System.nanoTime());
            } else if (f instanceof Frame.ValueAck a) {
                link.stages().mark(WriteStages.Stage.VALUE_ACKED);
                for (TxId t : a.txIds()) {
                    ByteKey k = link.pending().acked(t);
                    if (k != null) refusals.landed(k, t);
                }
            } else if (f instanceof Frame.ValueRefused r) {
                refusals.refused(r.txId(), r.reason(), r.detail());
            } else if (f instanceof Frame.ValueNack n) {
                log.warn("backup re-requests value {}: {}", n.txId(), n.reason());
                link.pending().nacked(n.txId());
            } else if (f instanceof Frame.Welcome) {
                reconnector.reset();
                ready = true;
                // anything sent before a drop and not acknowledged goes again (duplicates are harmless:
                // the backup applies only newer values and acknowledges superseded ones)
                link.pending().requeueInFlight();
                refusals.reconnected(); // a backup restarted with a larger store takes them now
            } else if (f instanceof Frame.Heartbeat h && !h.reply()) {
                ctx.writeAndFlush(new Frame.Heartbeat(h.nanos(), true));
            } else if (f instanceof Frame.Reject r) {
                rejections.warn(
                        "backup {} rejected value stream {}: {} ({})",
                        link.peerName(),
                        stream,
                        r.reason(),
                        r.message());
                if (r.reason() == Frame.RejectReason.STALE_EPOCH || r.reason() == Frame.RejectReason.NOT_BACKUP)
                    link.onStaleEpoch().staleEpoch(r.epoch());
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ready = false;
            if (channel == ctx.channel()) channel = null;
            link.flow().streamReset(stream, System.nanoTime());
            // whatever was sent and not acknowledged is shipped again once a stream is back
            link.pending().requeueInFlight();
            if (!closed) reconnector.schedule(group.next(), ValueChannel.this::connect);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("value stream {} error", stream, cause);
            ctx.close();
        }
    }
}
