package dev.kvs.replication.backup;

import dev.kvs.core.TxId;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backup's end of the key channel: hands key batches and resync markers to the {@link
 * BackupApplier} and answers one cumulative {@code KeyAck} (and at most one {@code Resend}) per read
 * batch, flushed once. Stops reading while the unfinished-key queue, or the queue of async values
 * awaited, is full.
 */
final class KeyChannelHandler extends ChannelInboundHandlerAdapter {
    static final String NAME = "replication-key-channel";
    private static final Logger log = LoggerFactory.getLogger(KeyChannelHandler.class);

    private final RealReplicationServer server;
    private final BackupApplier applier;
    private final UnfinishedKeys unfinished;
    private final UnfinishedKeys asyncValues;
    private boolean ackDue;
    private TxId resend;
    private boolean writeDue;
    private boolean paused;

    KeyChannelHandler(RealReplicationServer server) {
        this.server = server;
        this.applier = server.applier;
        this.unfinished = server.unfinished;
        this.asyncValues = server.applier.asyncValues();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Frame.KeyBatch b) {
            BackupApplier.KeyResult r = applier.onKeyBatch(b.packets());
            if (r.walk() != null) {
                // a flush's store sweep runs off this event loop (the flushed keys are hidden already)
                server.walk(r.walk(), ok -> {
                    if (!ok) ctx.channel().close();
                });
            }
            ackDue = !applier.resyncing();
            if (r.resend() != null) resend = r.resend();
            // deletes that came before their key packets, and tombstones the key channel has passed
            if (applier.heldDue() || applier.tombstonesDue()) server.collectSoon();
            if (!r.wants().isEmpty()) {
                ctx.write(new Frame.ResyncWants(r.wants()));
                writeDue = true;
            }
        } else if (msg instanceof Frame.ResyncBegin r) {
            applier.onResyncBegin(r.upTo());
        } else if (msg instanceof Frame.ResyncEnd r) {
            // the walk over the whole store runs off this event loop; its end acknowledges the resync
            BackupApplier.ResyncWalk walk = applier.endListing(r.upTo());
            server.walk(
                    walk,
                    ok -> ctx.executor().execute(() -> {
                        if (!ok) ctx.close();
                        else if (ctx.channel().isActive()) ctx.writeAndFlush(new Frame.KeyAck(applier.contiguous()));
                    }));
        } else if (msg instanceof Frame.Handover h) {
            log.warn(
                    "primary at {} hands over: taking over in epoch {}",
                    ctx.channel().remoteAddress(),
                    h.epoch());
            server.node.handover(h.epoch());
        } else if (msg instanceof Frame.Heartbeat h) {
            if (!h.reply()) {
                ctx.write(new Frame.Heartbeat(h.nanos(), true));
                writeDue = true;
            }
        } else {
            log.warn(
                    "unexpected frame on the key channel from {}: {}; closing",
                    ctx.channel().remoteAddress(),
                    msg);
            ReferenceCountUtil.release(msg);
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (ackDue) {
            ctx.write(new Frame.KeyAck(applier.contiguous()));
            ackDue = false;
            writeDue = true;
        }
        if (resend != null) {
            log.info("gap in key packets after {}; asking the primary to resend", resend);
            ctx.write(new Frame.Resend(resend));
            resend = null;
            writeDue = true;
        }
        if (writeDue) {
            ctx.flush();
            writeDue = false;
        }
        if (!paused && full()) pause(ctx);
        ctx.fireChannelReadComplete();
    }

    private boolean full() {
        return unfinished.isFull() || asyncValues.isFull();
    }

    /** Stops reading until values drain the queues below their bound. */
    private void pause(ChannelHandlerContext ctx) {
        paused = true;
        ctx.channel().config().setAutoRead(false);
        server.keyChannelPaused(ctx.channel(), true);
        log.info(
                "unfinished-key queue or async values awaited full ({} / {} keys, bound {}); key channel paused",
                unfinished.size(),
                asyncValues.size(),
                unfinished.maxKeys());
        CompletableFuture.allOf(unfinished.whenNotFull(), asyncValues.whenNotFull())
                .thenRun(() -> {
                    try {
                        ctx.executor().execute(() -> resumeOrWait(ctx));
                    } catch (RejectedExecutionException e) {
                        // shutting down
                    }
                });
    }

    private void resumeOrWait(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) return;
        if (full()) {
            pause(ctx);
            return;
        }
        paused = false;
        server.keyChannelPaused(ctx.channel(), false);
        ctx.channel().config().setAutoRead(true);
        log.info("unfinished-key queue below its bound; key channel resumed");
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        server.channelClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn("key channel from {} failed; closing it: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
