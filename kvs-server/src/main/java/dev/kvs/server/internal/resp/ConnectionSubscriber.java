package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.pubsub.OutputLimit;
import dev.kvs.server.internal.pubsub.PubSub;
import dev.kvs.server.internal.pubsub.Subscriber;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection as a {@link Subscriber}: a message published on any thread is queued here and written
 * on the connection's event loop, in publish order, behind the replies already due (a push in RESP3, an
 * array in RESP2). A publisher never waits: the bytes queued for the client (here, plus written and not
 * yet sent) are counted as it publishes, and once they pass the {@code pubsub} class's {@link
 * OutputLimit} (hard at once, soft after its seconds) the message is dropped and the connection closed,
 * as Redis's {@code client-output-buffer-limit pubsub} does. A publish on the connection's own loop
 * writes at once, so a RESP3 client sees its own message before its {@code PUBLISH} reply, as in Redis.
 * Thread-safe.
 */
final class ConnectionSubscriber implements Subscriber {
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PMESSAGE = "pmessage".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SMESSAGE = "smessage".getBytes(StandardCharsets.US_ASCII);

    private record Queued(RedisMessage message, long bytes) {}

    private final RespHandler connection;
    private final ChannelHandlerContext ctx;
    private final PubSub pubSub;
    private final Queue<Queued> queue = new ConcurrentLinkedQueue<>();
    /** Bytes of the messages in {@link #queue}. */
    private final AtomicLong queuedBytes = new AtomicLong();

    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** When the bytes queued first stayed above the soft limit (nanos); 0 while below it. */
    private final AtomicLong softSince = new AtomicLong();

    private final AtomicBoolean cutOff = new AtomicBoolean();

    ConnectionSubscriber(RespHandler connection, ChannelHandlerContext ctx, PubSub pubSub) {
        this.connection = connection;
        this.ctx = ctx;
        this.pubSub = pubSub;
    }

    @Override
    public void deliver(Kind kind, byte[] pattern, byte[] channel, byte[] message) {
        if (cutOff.get()) return;
        RedisMessage push = kind == Kind.PMESSAGE
                ? new TypedReplies.PushReply(List.of(bulk(PMESSAGE), bulk(pattern), bulk(channel), bulk(message)))
                : new TypedReplies.PushReply(
                        List.of(bulk(kind == Kind.MESSAGE ? MESSAGE : SMESSAGE), bulk(channel), bulk(message)));
        long bytes = 40L + channel.length + message.length + (pattern == null ? 0 : pattern.length + 16);
        long queued = queuedBytes.addAndGet(bytes) + unsentBytes();
        if (overLimit(queued, pubSub.limit())) {
            queuedBytes.addAndGet(-bytes);
            ReferenceCountUtil.release(push);
            cutOff(queued);
            return;
        }
        queue.add(new Queued(push, bytes));
        if (ctx.executor().inEventLoop()) {
            drain();
        } else if (drainScheduled.compareAndSet(false, true)) {
            ctx.executor().execute(this::drain);
        }
    }

    /** Redis's {@code checkClientOutputBufferLimits}: over the hard limit, or over the soft one for long enough. */
    private boolean overLimit(long queued, OutputLimit limit) {
        if (limit.hardBytes() > 0 && queued >= limit.hardBytes()) return true;
        if (limit.softBytes() == 0 || queued < limit.softBytes()) {
            softSince.set(0);
            return false;
        }
        long now = Math.max(1, System.nanoTime());
        if (softSince.compareAndSet(0, now)) return false;
        return now - softSince.get() > limit.softSeconds() * 1_000_000_000L;
    }

    private long unsentBytes() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /** Writes the queued messages on the event loop, then flushes. */
    private void drain() {
        drainScheduled.set(false);
        if (connection.closing() || !ctx.channel().isActive()) {
            discard();
            return;
        }
        Queued q;
        while ((q = queue.poll()) != null) {
            queuedBytes.addAndGet(-q.bytes());
            connection.replies().reply(ctx, q.message(), null);
        }
        connection.replies().flushIfWritten(ctx);
    }

    /** Closes the connection for its output limit, once, on its event loop. */
    private void cutOff(long queued) {
        if (!cutOff.compareAndSet(false, true)) return;
        pubSub.disconnected();
        ctx.executor().execute(() -> {
            discard();
            connection.limits().closeForPubSubLimit(ctx, queued, pubSub.limit());
        });
    }

    /** Releases what is still queued: the connection is closing. Safe to call more than once. */
    void discard() {
        Queued q;
        while ((q = queue.poll()) != null) {
            queuedBytes.addAndGet(-q.bytes());
            ReferenceCountUtil.release(q.message());
        }
    }

    private static FullBulkStringRedisMessage bulk(byte[] bytes) {
        return Replies.bulk(bytes);
    }
}
