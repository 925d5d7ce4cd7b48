package dev.kvs.replication.backup;

import dev.kvs.core.KvsException;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backup's end of one value channel: assembles chunks into values, applies whole values, nacks
 * broken ones, and answers one {@code ValueAck} per read batch (split only if it would not fit in a
 * frame), flushed once. Stops reading while assembly memory is over its bound (see {@link
 * AssemblyBudget}).
 *
 * <p>A value the store will not take (full, too large, failing) is answered with a {@code
 * ValueRefused} naming the reason, not a nack: sending it again at once would not help, so the
 * primary keeps it and retries later, and shows the alarm. It is counted and logged by {@link
 * BackupRefusals} (not a line per value).
 *
 * <p>Each batch (or staged chunk) that asks for one gets a {@code ValueReceipt} at once, flushed
 * before its values are applied, stamped with the time its bytes were read (flow control measures the
 * link with it).
 *
 * <p>Cut-through (protocol version 5): {@code StagedChunk}s stage a value that has no TxId yet, a
 * {@code StageBind} gives it one (and is applied, acked or nacked like a value's last chunk), a
 * {@code StageCancel} drops it; see {@link ValueAssembler}.
 *
 * <p>Values are written to the store on this event loop. A value longer than one chunk is written
 * chunk by chunk as it arrives, into a stage of the store ({@link dev.kvs.core.KvStore#stage}), and
 * committed at its last chunk; a one-chunk value (up to the primary's chunk size, 256 KiB by default)
 * is written whole.
 */
final class ValueChannelHandler extends ChannelInboundHandlerAdapter {
    static final String NAME = "replication-value-channel";
    private static final Logger log = LoggerFactory.getLogger(ValueChannelHandler.class);
    private static final int MAX_DETAIL_CHARS = 1024;

    private final RealReplicationServer server;
    private final BackupApplier applier;
    private final BackupCounters counters;
    private final int maxAcksPerFrame;
    private ReadClock clock;
    private AssemblyBudget.Lease lease;
    private ValueAssembler assembler;
    private List<TxId> acks = new ArrayList<>();
    private boolean writeDue;

    ValueChannelHandler(RealReplicationServer server) {
        this.server = server;
        this.applier = server.applier;
        this.counters = server.counters;
        // a ValueAck is 10 bytes of frame header and count, then 16 bytes per TxId
        this.maxAcksPerFrame = Math.max(1, (server.config.maxFrameBytes() - 64) / 16);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        lease = server.lease(ctx);
        clock = ctx.pipeline().get(ReadClock.class);
        assembler = new ValueAssembler(lease, server.store.config().maxValueBytes(), server.store::stage);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Frame.ValueBatch b) {
            read(ctx, b.sentNanos(), b);
            for (Frame.ValueChunk c : b.chunks()) settle(ctx, assembler.accept(c));
        } else if (msg instanceof Frame.StagedChunk c) {
            read(ctx, c.sentNanos(), c);
            settle(ctx, assembler.acceptStaged(c));
        } else if (msg instanceof Frame.StageBind b) {
            settle(ctx, assembler.bind(b));
        } else if (msg instanceof Frame.StageCancel c) {
            assembler.cancel(c);
        } else if (msg instanceof Frame.Effect e) {
            read(ctx, e.sentNanos(), e);
            apply(ctx, e);
        } else if (msg instanceof Frame.Heartbeat h) {
            if (!h.reply()) {
                ctx.write(new Frame.Heartbeat(h.nanos(), true));
                writeDue = true;
            }
        } else {
            log.warn(
                    "unexpected frame on a value channel from {}: {}; closing",
                    ctx.channel().remoteAddress(),
                    msg);
            ReferenceCountUtil.release(msg);
            ctx.close();
        }
    }

    /**
     * A frame of value bytes ({@code ValueBatch} or {@code StagedChunk}) was read: marks it, and
     * answers its receipt at once if it asks for one ({@code sentNanos != 0}).
     */
    private void read(ChannelHandlerContext ctx, long sentNanos, Frame frame) {
        server.stages.mark(WriteStages.Stage.BACKUP_FIRST_READ);
        server.stages.markLast(WriteStages.Stage.BACKUP_LAST_READ);
        if (sentNanos != 0) {
            // the receipt goes before the values are applied: it measures the link, not the store
            long at = clock != null ? clock.lastReadNanos() : System.nanoTime();
            ctx.writeAndFlush(new Frame.ValueReceipt(sentNanos, at, FrameCodec.encodedSize(frame)));
        }
    }

    /** Applies a whole value, nacks a broken one, refuses one the store will not take; nothing for {@code null}. */
    private void settle(ChannelHandlerContext ctx, ValueAssembler.Result r) {
        if (r instanceof ValueAssembler.Whole w) {
            apply(ctx, w);
        } else if (r instanceof ValueAssembler.Corrupt bad) {
            if (bad.refusal() != null) refuse(ctx, bad.txId(), bad.key(), bad.refusal(), bad.reason());
            else nack(ctx, bad.txId(), bad.key(), bad.reason());
        }
    }

    private void apply(ChannelHandlerContext ctx, ValueAssembler.Whole w) {
        BackupApplier.Outcome outcome;
        try {
            outcome = applier.apply(w, (later, refused) -> settledLater(ctx, w, later, refused));
        } catch (KvsException e) {
            refuse(ctx, w.txId(), w.key(), BackupRefusals.reasonOf(e), String.valueOf(e.getMessage()));
            return;
        }
        if (outcome == BackupApplier.Outcome.HELD) return; // answered once its key packet has come
        answer(ctx, w, outcome);
    }

    /**
     * Applies a structure write's effect: acked if applied (or superseded); nacked if this backup does
     * not hold its exact base, which makes the primary ship the key's whole value, at its current TxId.
     */
    private void apply(ChannelHandlerContext ctx, Frame.Effect e) {
        BackupApplier.Outcome outcome;
        try {
            outcome = applier.apply(e);
        } catch (KvsException ex) {
            refuse(ctx, e.txId(), e.key(), BackupRefusals.reasonOf(ex), String.valueOf(ex.getMessage()));
            return;
        }
        if (outcome == BackupApplier.Outcome.WANTS_WHOLE) {
            nack(ctx, e.txId(), e.key(), "effect's base " + e.base() + " is not held: the whole value is wanted");
            return;
        }
        acks.add(e.txId());
        if (acks.size() >= maxAcksPerFrame) writeAcks(ctx);
    }

    /** The answer to a value applied: an ack, or a nack if it differs from its key packet. */
    private void answer(ChannelHandlerContext ctx, ValueAssembler.Whole w, BackupApplier.Outcome outcome) {
        if (outcome == BackupApplier.Outcome.MISMATCH) {
            nack(ctx, w.txId(), w.key(), "value differs from its key packet (length or checksum)");
            return;
        }
        acks.add(w.txId());
        if (acks.size() >= maxAcksPerFrame) writeAcks(ctx);
    }

    /** A held delete was applied on another thread: answered on this channel's event loop. */
    private void settledLater(
            ChannelHandlerContext ctx, ValueAssembler.Whole w, BackupApplier.Outcome outcome, KvsException refused) {
        try {
            ctx.executor().execute(() -> {
                if (!ctx.channel().isActive()) return; // the primary ships it again on a new channel
                if (refused != null) {
                    refuse(
                            ctx,
                            w.txId(),
                            w.key(),
                            BackupRefusals.reasonOf(refused),
                            String.valueOf(refused.getMessage()));
                } else {
                    answer(ctx, w, outcome);
                    if (!acks.isEmpty()) writeAcks(ctx);
                }
                ctx.flush();
                writeDue = false;
            });
        } catch (RejectedExecutionException e) {
            // the event loop is shutting down: the channel is gone with it
        }
    }

    private void nack(ChannelHandlerContext ctx, TxId txId, byte[] key, String reason) {
        counters.valuesNacked.increment();
        log.warn("value {} from {} refused: {}", txId, ctx.channel().remoteAddress(), reason);
        ctx.write(new Frame.ValueNack(txId, key, reason));
        writeDue = true;
    }

    /** The store will not take the value: the primary hears why, and keeps it for later. */
    private void refuse(ChannelHandlerContext ctx, TxId txId, byte[] key, StoreRefusal reason, String detail) {
        // a store's message is short; a frame's string is at most 64 KiB of UTF-8
        String d = detail.length() > MAX_DETAIL_CHARS ? detail.substring(0, MAX_DETAIL_CHARS) : detail;
        server.refusals.refused(reason, d, ctx.channel().remoteAddress());
        ctx.write(new Frame.ValueRefused(txId, key, reason, d));
        writeDue = true;
    }

    private void writeAcks(ChannelHandlerContext ctx) {
        ctx.write(new Frame.ValueAck(acks));
        acks = new ArrayList<>();
        writeDue = true;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        boolean acking = !acks.isEmpty();
        if (acking) writeAcks(ctx);
        if (writeDue) {
            ctx.flush();
            writeDue = false;
            if (acking) server.stages.mark(WriteStages.Stage.ACK_FLUSHED);
        }
        if (lease.pauseIfOver()) {
            log.debug(
                    "assembly memory over its bound; value channel from {} paused",
                    ctx.channel().remoteAddress());
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        assembler.close();
        server.channelClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        assembler.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn("value channel from {} failed; closing it: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
