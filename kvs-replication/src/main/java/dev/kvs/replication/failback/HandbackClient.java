package dev.kvs.replication.failback;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.HandbackReport;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Transports;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failback, on the deposed primary: dials the node that replaced it, learns which fenced keys it
 * lacks, sends the values this node still holds for them (same TxId, length and checksum), and then
 * rolls back this node's writes the new primary never received a key packet for. After it, the node
 * can serve as the new primary's backup: what it still holds is what the new primary holds or older.
 *
 * <p>Blocking: run it on its own thread. Nothing is rolled back unless the new primary answered in
 * full, so a broken attempt can simply be retried.
 */
public final class HandbackClient {
    private static final Logger log = LoggerFactory.getLogger(HandbackClient.class);
    private static final Object CLOSED = new Object();
    private static final int BATCH_BYTES = 256 * 1024;

    private HandbackClient() {}

    /** The handback could not be done (refused, broken off, timed out); nothing was rolled back. */
    public static final class HandbackException extends Exception {
        private final Frame.RejectReason reason;

        HandbackException(String message, Frame.RejectReason reason) {
            super(message);
            this.reason = reason;
        }

        /** Why the peer refused, or null if it did not answer a refusal. */
        public Frame.RejectReason reason() {
            return reason;
        }
    }

    /**
     * Hands back to the new primary at {@code newPrimary} (its replication address).
     *
     * @param epoch this node's epoch, sent in the {@code Hello}
     * @param timeout the longest wait for any one answer of the new primary
     * @param security TLS and the cluster secret the connection uses
     * @throws HandbackException if it was refused or did not complete; nothing was rolled back
     */
    public static HandbackReport handBack(
            KvStore store,
            ReplicatorConfig config,
            String cluster,
            String node,
            long epoch,
            InetSocketAddress newPrimary,
            EventLoopGroup group,
            Duration timeout,
            LinkSecurity security)
            throws HandbackException, InterruptedException {
        BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
        ChannelFuture connect = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannel(group))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        security.addDiallerTls(ch, newPrimary);
                        FrameCodec.install(ch.pipeline(), config.maxFrameBytes());
                        security.addDiallerAuth(ch, timeout.toMillis());
                        ch.pipeline().addLast(new Inbox(inbox));
                    }
                })
                .connect(newPrimary);
        if (!connect.await(timeout.toMillis() + 1000) || !connect.isSuccess()) {
            connect.channel().close();
            throw new HandbackException(
                    "cannot connect to " + newPrimary + ": "
                            + (connect.cause() == null
                                    ? "timed out"
                                    : connect.cause().getMessage()),
                    null);
        }
        Channel ch = connect.channel();
        try {
            ch.writeAndFlush(new Frame.Hello(cluster, node, "deposed", epoch, Frame.ChannelKind.HANDBACK, 0));
            List<KeyPacket> wanted = new ArrayList<>();
            TxId keysUpTo;
            while (true) {
                Frame f = next(inbox, timeout, newPrimary);
                if (f instanceof Frame.Reject r) {
                    throw new HandbackException(
                            newPrimary + " refused the handback: " + r.reason() + " " + r.message(), r.reason());
                }
                if (!(f instanceof Frame.HandbackWants w)) throw unexpected(f, newPrimary);
                wanted.addAll(w.wanted());
                if (w.last()) {
                    keysUpTo = w.keysUpTo();
                    break;
                }
            }
            int sent = sendValues(ch, store, config, wanted);
            ch.writeAndFlush(new Frame.HandbackEnd(sent));
            int accepted = 0;
            while (true) {
                Frame f = next(inbox, timeout, newPrimary);
                if (!(f instanceof Frame.ValueAck a)) throw unexpected(f, newPrimary);
                if (a.txIds().isEmpty()) break;
                accepted += a.txIds().size();
            }
            List<HandbackReport.RolledBack> rolledBack = rollBack(store, keysUpTo, wanted);
            HandbackReport report =
                    new HandbackReport(newPrimary.toString(), keysUpTo, wanted.size(), sent, accepted, rolledBack);
            log.warn(
                    "handback to {}: {} fenced keys wanted, {} values sent, {} accepted; {} writes after {} rolled back",
                    newPrimary,
                    wanted.size(),
                    sent,
                    accepted,
                    rolledBack.size(),
                    keysUpTo);
            return report;
        } finally {
            ch.close();
        }
    }

    private static int sendValues(Channel ch, KvStore store, ReplicatorConfig config, List<KeyPacket> wanted)
            throws HandbackException {
        int sent = 0;
        long batchLimit = Math.min(BATCH_BYTES, config.maxFrameBytes() / 2);
        List<Frame.ValueChunk> batch = new ArrayList<>();
        long batchBytes = 0;
        for (KeyPacket p : wanted) {
            StoredValue v = store.get(p.key());
            if (v == null || !v.txId().equals(p.txId())) continue;
            boolean delete = v.state() == RecordState.TOMBSTONE;
            if (!delete && v.state() != RecordState.COMPLETE) continue;
            if (v.header().valueLength() != p.valueLength() || v.header().checksum() != p.checksum()) continue;
            Op op = delete ? Op.DELETE : Op.writing(v.header().type());
            byte[] value = v.value();
            int checksum = v.header().checksum();
            if (op.isStructure()) {
                // a structure ships its canonical image, read now (the wanted entry names it by TxId alone)
                MembersImage m = store.image(p.key());
                if (m == null || !m.header().txId().equals(p.txId())) continue;
                value = m.image();
                checksum = m.checksum();
            }
            int offset = 0;
            do {
                int n = Math.min(config.chunkBytes(), value.length - offset);
                byte[] data = n == value.length ? value : Arrays.copyOfRange(value, offset, offset + n);
                batch.add(new Frame.ValueChunk(
                        v.txId(), op, p.key(), value.length, checksum, offset, data, v.expireAtMillis()));
                batchBytes += n + p.key().length + 64;
                offset += n;
                if (batchBytes >= batchLimit) {
                    send(ch, new Frame.ValueBatch(batch));
                    batch = new ArrayList<>();
                    batchBytes = 0;
                }
            } while (offset < value.length);
            sent++;
        }
        if (!batch.isEmpty()) send(ch, new Frame.ValueBatch(batch));
        return sent;
    }

    /** Removes this node's records after {@code keysUpTo} that the new primary did not want. */
    private static List<HandbackReport.RolledBack> rollBack(KvStore store, TxId keysUpTo, List<KeyPacket> wanted) {
        Map<ByteKey, TxId> wantedTxIds = new HashMap<>();
        for (KeyPacket p : wanted) wantedTxIds.put(new ByteKey(p.key()), p.txId());
        List<HandbackReport.RolledBack> found = new ArrayList<>();
        store.forEach((key, v) -> {
            if (v.txId().compareTo(keysUpTo) <= 0) return;
            if (v.txId().equals(wantedTxIds.get(new ByteKey(key)))) return;
            found.add(new HandbackReport.RolledBack(
                    key,
                    v.txId(),
                    v.state() == RecordState.TOMBSTONE,
                    v.header().valueLength(),
                    v.header().checksum()));
        });
        List<HandbackReport.RolledBack> removed = new ArrayList<>();
        Set<ByteKey> seen = new HashSet<>();
        for (HandbackReport.RolledBack r : found) {
            if (!seen.add(new ByteKey(r.key()))) continue;
            Write w =
                    store.update(r.key(), h -> h != null && h.txId().equals(r.txId()) ? Write.remove() : Write.keep());
            if (w instanceof Write.Remove) removed.add(r);
        }
        return List.copyOf(removed);
    }

    /** Writes {@code f}, waiting while the channel's buffer is full. */
    private static void send(Channel ch, Frame f) throws HandbackException {
        ch.writeAndFlush(f);
        while (ch.isActive() && !ch.isWritable()) LockSupport.parkNanos(200_000);
        if (!ch.isActive()) throw new HandbackException("connection to the new primary closed while sending", null);
    }

    private static Frame next(BlockingQueue<Object> inbox, Duration timeout, InetSocketAddress peer)
            throws HandbackException, InterruptedException {
        Object o = inbox.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (o == null) throw new HandbackException(peer + " did not answer within " + timeout, null);
        if (o == CLOSED) throw new HandbackException(peer + " closed the handback connection", null);
        if (o instanceof Throwable t) throw new HandbackException("handback to " + peer + " failed: " + t, null);
        return (Frame) o;
    }

    private static HandbackException unexpected(Frame f, InetSocketAddress peer) {
        return new HandbackException("unexpected answer from " + peer + ": " + f, null);
    }

    private static final class Inbox extends SimpleChannelInboundHandler<Frame> {
        private final BlockingQueue<Object> inbox;

        Inbox(BlockingQueue<Object> inbox) {
            this.inbox = inbox;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
            inbox.add(f);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inbox.add(CLOSED);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            inbox.add(cause);
            ctx.close();
        }
    }
}
