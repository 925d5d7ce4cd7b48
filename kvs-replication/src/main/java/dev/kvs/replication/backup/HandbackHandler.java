package dev.kvs.replication.backup;

import dev.kvs.core.TxId;
import dev.kvs.replication.Handback;
import dev.kvs.replication.WantedValue;
import dev.kvs.replication.wire.Frame;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The promoted node's end of a handback connection: lists the fenced keys it wants ({@code
 * HandbackWants}, split to fit frames), assembles the values the deposed primary sends back, offers
 * each to the node's {@link Handback}, and at {@code HandbackEnd} answers one {@code ValueAck} of
 * the accepted TxIds and closes.
 */
final class HandbackHandler extends ChannelInboundHandlerAdapter {
    static final String NAME = "replication-handback";
    private static final Logger log = LoggerFactory.getLogger(HandbackHandler.class);

    private final RealReplicationServer server;
    private final Handback handback;
    private final String node;
    private final List<TxId> accepted = new ArrayList<>();
    private AssemblyBudget.Lease lease;
    private ValueAssembler assembler;
    private int offered;
    private boolean done;

    HandbackHandler(RealReplicationServer server, Handback handback, String node) {
        this.server = server;
        this.handback = handback;
        this.node = node;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        lease = server.lease(ctx);
        assembler = new ValueAssembler(lease, server.store.config().maxValueBytes());
    }

    /** Sends the wanted keys, as many frames as they need. */
    void sendWants(ChannelHandlerContext ctx) {
        TxId upTo = handback.keysUpTo();
        List<WantedValue> wanted = handback.wanted();
        // this connection's encoder keeps the handshake's frame limit: stay within half of it
        long budget = Math.max(
                64 * 1024, Math.min(server.config.maxFrameBytes(), RealReplicationServer.HANDSHAKE_FRAME_BYTES) / 2);
        List<Frame.KeyPacket> batch = new ArrayList<>();
        long size = 0;
        for (WantedValue w : wanted) {
            long packet = 45L + w.key().length; // a key packet's encoded size, with room to spare
            if (!batch.isEmpty() && size + packet > budget) {
                ctx.write(new Frame.HandbackWants(upTo, batch, false));
                batch = new ArrayList<>();
                size = 0;
            }
            batch.add(new Frame.KeyPacket(w.txId(), Frame.Op.PUT, w.key(), w.valueLength(), w.checksum()));
            size += packet;
        }
        ctx.writeAndFlush(new Frame.HandbackWants(upTo, batch, true));
        log.info("handback from {}: asked for {} fenced keys; keys up to {} were received", node, wanted.size(), upTo);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done) {
            ReferenceCountUtil.release(msg);
        } else if (msg instanceof Frame.ValueBatch b) {
            for (Frame.ValueChunk c : b.chunks()) {
                ValueAssembler.Result r = assembler.accept(c);
                if (r instanceof ValueAssembler.Whole w) {
                    offered++;
                    boolean taken = w.op().isStructure()
                            ? handback.acceptStructure(
                                    w.key(), w.txId(), w.op().type(), w.checksum(), w.bytes(), w.expireAtMillis())
                            : handback.accept(
                                    w.key(),
                                    w.txId(),
                                    w.op() == Frame.Op.DELETE,
                                    w.checksum(),
                                    w.bytes(),
                                    w.expireAtMillis());
                    if (taken) {
                        accepted.add(w.txId());
                    }
                } else if (r instanceof ValueAssembler.Corrupt bad) {
                    offered++;
                    log.warn("handback from {}: value {} refused: {}", node, bad.txId(), bad.reason());
                }
            }
        } else if (msg instanceof Frame.HandbackEnd) {
            done = true;
            handback.finished(node, offered, accepted.size());
            int perFrame = Math.max(1, (server.config.maxFrameBytes() - 64) / 16);
            for (int i = 0; i < accepted.size(); i += perFrame) {
                ctx.write(new Frame.ValueAck(accepted.subList(i, Math.min(accepted.size(), i + perFrame))));
            }
            // an empty ack ends the answer
            ctx.writeAndFlush(new Frame.ValueAck(List.of())).addListener(ChannelFutureListener.CLOSE);
        } else if (msg instanceof Frame.Heartbeat h) {
            if (!h.reply()) ctx.writeAndFlush(new Frame.Heartbeat(h.nanos(), true));
        } else {
            log.warn("unexpected frame on a handback connection from {}: {}; closing", node, msg);
            ReferenceCountUtil.release(msg);
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lease.pauseIfOver();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        assembler.close();
        if (!done) log.warn("handback from {} broke off after {} values", node, offered);
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        assembler.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn("handback connection from {} failed; closing it: {}", node, cause.toString());
        ctx.close();
    }
}
