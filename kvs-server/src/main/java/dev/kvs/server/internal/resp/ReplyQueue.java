package dev.kvs.server.internal.resp;

import dev.kvs.core.KvsException;
import dev.kvs.core.WriteStages;
import dev.kvs.server.internal.NodeMetrics;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * One connection's replies, written in request order even when some wait for replication ({@link
 * LaterReply}): a reply known at once is written at once unless an earlier one still waits; the others
 * queue, counted in bytes once known, until every reply before them is written. Owns the queue, its
 * byte count and whether anything was written since the last flush; flushes once per read batch
 * ({@link RespHandler#channelReadComplete}) or when replies that waited are written. Measured hot path.
 * Confined to the connection's event loop.
 */
final class ReplyQueue {
    private final RespHandler connection;
    /** Where each reply's write is marked for a benchmark ({@link WriteStages#OFF} otherwise). */
    private final WriteStages stages;

    private final ClientStats stats;
    private final NodeMetrics metrics;

    /** Replies not yet written because an earlier one is still pending; in request order. */
    private final ArrayDeque<QueuedReply> pending = new ArrayDeque<>();
    /** Bytes of the replies in {@link #pending} that are known (their futures are done). */
    private long pendingBytes;

    private boolean writtenSinceFlush;

    /** A reply in {@link #pending}; {@code bytes} counts in {@link #pendingBytes} once known. */
    private static final class QueuedReply {
        final CompletableFuture<RedisMessage> reply;
        /** The command's counters if the reply came later (an error then counts as failed); else null. */
        final CommandCounters counters;

        long bytes;
        boolean written;
        /** Dropped unwritten (the connection closed); its reply is released once known. */
        boolean dropped;

        boolean released;

        QueuedReply(CompletableFuture<RedisMessage> reply, CommandCounters counters) {
            this.reply = reply;
            this.counters = counters;
        }
    }

    /** @param connection told when replies are queued (the output limit) and when waiting ones are written */
    ReplyQueue(RespHandler connection, ClientStats stats, NodeMetrics metrics, WriteStages stages) {
        this.connection = connection;
        this.stages = stages;
        this.stats = stats;
        this.metrics = metrics;
    }

    /** True if no reply waits its turn. */
    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** Bytes of the replies waiting their turn that are known. */
    long pendingBytes() {
        return pendingBytes;
    }

    /**
     * Writes {@code result} in its turn.
     *
     * @param counters the counters of the command that produced it (an error counts as failed), or null
     */
    void reply(ChannelHandlerContext ctx, RedisMessage result, CommandCounters counters) {
        if (counters != null && result instanceof ErrorRedisMessage) counters.failed.increment();
        if (!(result instanceof LaterReply) && pending.isEmpty()) {
            write(ctx, result);
            connection.limits().closeIfOverOutputLimit(ctx);
            return;
        }
        if (result instanceof BatchedBulk b) result = copied(b); // its batch is not held while it waits
        CompletableFuture<RedisMessage> f = result instanceof LaterReply later
                ? later.reply().toCompletableFuture()
                : CompletableFuture.completedFuture(result);
        QueuedReply q = new QueuedReply(f, result instanceof LaterReply ? counters : null);
        pending.add(q);
        if (f.isDone()) {
            count(q);
            if (pending.size() == 1) drain(ctx);
        } else {
            f.whenComplete((r, e) -> {
                if (ctx.executor().inEventLoop()) completed(ctx, q);
                else ctx.executor().execute(() -> completed(ctx, q));
            });
        }
        connection.limits().closeIfOverOutputLimit(ctx);
    }

    /** The plain reply of {@code b}'s value, {@code b} released. */
    private static RedisMessage copied(BatchedBulk b) {
        try {
            return Replies.bulk(ByteBufUtil.getBytes(b.content()));
        } finally {
            b.release();
        }
    }

    /**
     * Drops the replies waiting their turn (the connection is closing), releasing those known: a long
     * value's reply holds a pooled buffer. Those still unknown are released by {@link #completed}.
     */
    void drop() {
        for (QueuedReply q : pending) {
            q.dropped = true;
            release(q);
        }
        pending.clear();
        pendingBytes = 0;
    }

    /** Releases a dropped reply's message once it is known; at most once. */
    private static void release(QueuedReply q) {
        if (q.released || !q.reply.isDone()) return;
        q.released = true;
        if (!q.reply.isCompletedExceptionally()) ReferenceCountUtil.release(q.reply.join());
    }

    /** A reply that waited for replication is known: count it while it waits its turn, and write what can be. */
    private void completed(ChannelHandlerContext ctx, QueuedReply q) {
        if (q.written) return;
        if (q.dropped || !ctx.channel().isActive()) {
            q.dropped = true; // still in pending if only inactive: channelInactive drops it, not twice
            release(q);
            return;
        }
        count(q);
        drain(ctx);
        connection.limits().closeIfOverOutputLimit(ctx);
    }

    private void count(QueuedReply q) {
        if (q.bytes == 0 && q.reply.isDone() && !q.reply.isCompletedExceptionally()) {
            q.bytes = Math.max(1, RespReplyEncoder.estimate(q.reply.join()));
            pendingBytes += q.bytes;
        }
    }

    private void drain(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!pending.isEmpty() && pending.peek().reply.isDone()) {
            QueuedReply q = pending.poll();
            q.written = true;
            pendingBytes -= q.bytes;
            RedisMessage m;
            try {
                m = q.reply.join();
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                m = cause instanceof KvsException k
                        ? Replies.storeError(k)
                        : Replies.error("ERR " + cause.getMessage());
            }
            if (q.counters != null && m instanceof ErrorRedisMessage) q.counters.failed.increment();
            write(ctx, m);
            wrote = true;
        }
        if (wrote) {
            connection.limits().touch(ctx);
            connection.publishCounts();
            ctx.flush();
            writtenSinceFlush = false;
            connection.limits().repliesQueued(pendingBytes);
            connection.held().resumeLater(ctx);
        }
    }

    private void write(ChannelHandlerContext ctx, RedisMessage m) {
        if (m instanceof ErrorRedisMessage e) {
            stats.errorReplies.increment();
            metrics.recordError(Replies.kind(e));
        }
        if (connection.session().closeAfterReply && pending.isEmpty()) {
            connection.publishCounts();
            ctx.writeAndFlush(m).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.write(m, ctx.voidPromise());
        stages.mark(WriteStages.Stage.REPLY_WRITTEN);
        writtenSinceFlush = true;
    }

    /** Flushes what was written since the last flush, if anything was. */
    void flushIfWritten(ChannelHandlerContext ctx) {
        if (writtenSinceFlush) {
            writtenSinceFlush = false;
            ctx.flush();
        }
    }
}
