package dev.kvs.wan;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection through the link: the channel accepted from the client, the one opened to the
 * target, and a {@link Flow} each way. Confined to the link's event loop.
 */
final class Connection {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    private final Channel inbound;
    private Channel outbound;
    private Flow up;
    private Flow down;
    private int closedChannels;
    /**
     * What the client sent before the target connection was up, oldest first. Reading is off until
     * then, but native epoll reads a socket whose peer has closed regardless, so a client that sends
     * and closes at once is read early.
     */
    private final ArrayDeque<Chunk> early = new ArrayDeque<>();
    /** The client closed before the target connection was up, after sending {@link #early}. */
    private boolean inboundClosedEarly;

    private Connection(Channel inbound) {
        this.inbound = inbound;
    }

    /**
     * Relays {@code inbound}, already accepted and not reading yet: connects to the target, then reads
     * both ways. {@code onClosed} runs once both channels are closed.
     */
    static Connection open(
            Channel inbound, Bootstrap connector, LinkDirection toTarget, LinkDirection toClient, Runnable onClosed) {
        Connection c = new Connection(inbound);
        inbound.pipeline().addLast(c.new Relay());
        ChannelFuture connect = connector.clone().handler(c.new Relay()).connect();
        c.outbound = connect.channel();
        Runnable closed = () -> {
            if (++c.closedChannels == 2) onClosed.run();
        };
        inbound.closeFuture().addListener(f -> {
            c.onClose(c.inbound);
            closed.run();
        });
        c.outbound.closeFuture().addListener(f -> {
            c.onClose(c.outbound);
            closed.run();
        });
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                log.debug(
                        "cannot connect to {}: {}",
                        connector.config().remoteAddress(),
                        f.cause().toString());
                c.dropEarly();
                inbound.close();
            } else if (!inbound.isActive() && c.early.isEmpty()) {
                c.outbound.close();
            } else {
                c.up = new Flow(toTarget, inbound, c.outbound);
                c.down = new Flow(toClient, c.outbound, inbound);
                for (Chunk early; (early = c.early.poll()) != null; ) c.up.read(early.buf, early.arrivedAt);
                if (c.inboundClosedEarly) c.onClose(inbound);
                else inbound.config().setAutoRead(true);
                c.outbound.config().setAutoRead(true);
            }
        });
        return c;
    }

    /** Closes both sides at once, discarding what is queued: a connection reset. */
    void reset() {
        if (up != null) up.discard();
        if (down != null) down.discard();
        dropEarly();
        inbound.close();
        outbound.close();
    }

    private void onClose(Channel channel) {
        if (up == null) { // not connected yet, or never will be
            if (channel == inbound && !early.isEmpty() && outbound.isOpen()) {
                inboundClosedEarly = true; // relayed, then closed, once connected
                return;
            }
            dropEarly();
            (channel == inbound ? outbound : inbound).close();
            return;
        }
        Flow from = channel == inbound ? up : down;
        Flow towards = channel == inbound ? down : up;
        towards.discard();
        from.end(); // the other side is closed once what was sent before the close arrives
    }

    private void dropEarly() {
        for (Chunk c; (c = early.poll()) != null; ) c.buf.release();
    }

    /** The handler of both channels: hands reads to the flow leaving from that channel. */
    private final class Relay extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Flow flow = ctx.channel() == inbound ? up : down;
            if (!(msg instanceof ByteBuf buf)) {
                ReferenceCountUtil.release(msg);
            } else if (flow != null) {
                flow.read(buf, System.nanoTime());
            } else if (ctx.channel() == inbound && outbound.isOpen()) {
                early.add(Chunk.of(buf, System.nanoTime()));
            } else {
                buf.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("connection through WAN link reset: {}", cause.toString());
            reset();
        }
    }
}
