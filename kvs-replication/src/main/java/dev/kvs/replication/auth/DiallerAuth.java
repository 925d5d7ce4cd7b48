package dev.kvs.replication.auth;

import dev.kvs.core.log.ThrottledLog;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dialler's side of the replication authentication, right after the frame codec: sends {@code
 * AuthInit} when connected, checks the listener's proof in its {@code AuthChallenge}, answers with its
 * own, and only then lets the connection begin: {@code channelActive} reaches the handlers behind it
 * and frames they wrote meanwhile are sent, in order. A listener that cannot prove the secret (or
 * refuses ours) is disconnected before anything else is sent. Without TLS, every frame after the
 * proofs carries a MAC under this connection's keys. Not sharable: one per connection.
 */
public final class DiallerAuth extends ChannelDuplexHandler {
    /** Its name in the pipeline. */
    public static final String NAME = "replication-auth";

    private static final Logger log = LoggerFactory.getLogger(DiallerAuth.class);
    /** Failures, a line per interval at most: the primary redials after each. */
    private static final ThrottledLog failures = new ThrottledLog(log);

    private final ClusterSecret secret;
    private final long timeoutMillis;
    private final boolean macs;
    private PendingWriteQueue held;
    private byte[] nonce;
    private ScheduledFuture<?> timeout;
    private boolean done;

    /**
     * @param timeoutMillis how long the listener may take to answer; then the connection is closed
     * @param macs whether every frame after the proofs carries a MAC ({@link FrameCodec#addTagger} was
     *     called on the pipeline): when no TLS protects the connection
     */
    public DiallerAuth(ClusterSecret secret, long timeoutMillis, boolean macs) {
        this.secret = secret;
        this.timeoutMillis = timeoutMillis;
        this.macs = macs;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        held = new PendingWriteQueue(ctx);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        nonce = ClusterSecret.nonce(Frame.NONCE_BYTES);
        ctx.writeAndFlush(new Frame.AuthInit(nonce));
        timeout = ctx.executor()
                .schedule(
                        () -> fail(ctx, "no answer to the authentication within " + timeoutMillis + " ms"),
                        timeoutMillis,
                        TimeUnit.MILLISECONDS);
        // channelActive goes on only once authenticated
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (done) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (msg instanceof Frame.AuthChallenge c) {
            if (!ClusterSecret.matches(secret.listenerProof(nonce, c.nonce()), c.proof())) {
                fail(ctx, "the peer did not prove the cluster secret (wrong secret on one side?)");
                return;
            }
            done = true;
            timeout.cancel(false);
            ctx.write(new Frame.AuthProof(secret.diallerProof(nonce, c.nonce())));
            if (macs) {
                // the proof is the last frame sent untagged, the challenge the last one read untagged
                FrameCodec.startMacs(
                        ctx.pipeline(),
                        secret.diallerFrames(nonce, c.nonce()),
                        secret.listenerFrames(nonce, c.nonce()));
            }
            held.removeAndWriteAll();
            ctx.flush();
            ctx.fireChannelActive();
            ctx.pipeline().remove(this);
        } else if (msg instanceof Frame.Reject r) {
            fail(ctx, "the peer refused the authentication: " + r.reason() + " " + r.message());
        } else {
            ReferenceCountUtil.release(msg);
            fail(
                    ctx,
                    "the peer answered " + msg.getClass().getSimpleName()
                            + " instead of a challenge: it has no cluster secret configured");
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (done) ctx.write(msg, promise);
        else held.add(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (done) ctx.flush();
        // else: flushed once authenticated
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!done) {
            if (timeout != null) timeout.cancel(false);
            held.removeAndFailAll(new ClosedChannelException());
        }
        ctx.fireChannelInactive();
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        if (done) return;
        failures.warn(
                "replication connection to {} not authenticated: {}",
                ctx.channel().remoteAddress(),
                why);
        ctx.close();
    }
}
