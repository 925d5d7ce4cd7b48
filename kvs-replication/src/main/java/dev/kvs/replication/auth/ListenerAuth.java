package dev.kvs.replication.auth;

import dev.kvs.core.log.ThrottledLog;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener's side of the replication authentication, first after the frame codec: answers the
 * dialler's {@code AuthInit} with a challenge and its own proof, checks the dialler's {@code
 * AuthProof}, then removes itself so the handshake proper ({@code Hello}) begins. Anything else, or a
 * wrong proof, is answered {@code Reject(AUTH)} and closed: nothing of an unauthenticated peer reaches
 * the node. Without TLS, every frame after the proofs, the {@code Hello} first, carries a MAC under this
 * connection's keys. Not sharable: one per connection.
 */
public final class ListenerAuth extends ChannelInboundHandlerAdapter {
    /** Its name in the pipeline. */
    public static final String NAME = "replication-auth";

    private static final Logger log = LoggerFactory.getLogger(ListenerAuth.class);
    /** Refusals, a line per interval at most: a stranger may retry in a tight loop. */
    private static final ThrottledLog refusals = new ThrottledLog(log);

    private final ClusterSecret secret;
    private final long epoch;
    private final boolean macs;
    private byte[] diallerNonce;
    private byte[] listenerNonce;
    private boolean refused;

    /**
     * @param epoch sent in a {@code Reject}, as every reject carries the node's epoch
     * @param macs whether every frame after the proofs carries a MAC ({@link FrameCodec#addTagger} was
     *     called on the pipeline): when no TLS protects the connection
     */
    public ListenerAuth(ClusterSecret secret, long epoch, boolean macs) {
        this.secret = secret;
        this.epoch = epoch;
        this.macs = macs;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (diallerNonce == null && msg instanceof Frame.AuthInit init) {
            diallerNonce = init.nonce();
            listenerNonce = ClusterSecret.nonce(Frame.NONCE_BYTES);
            ctx.writeAndFlush(
                    new Frame.AuthChallenge(listenerNonce, secret.listenerProof(diallerNonce, listenerNonce)));
        } else if (diallerNonce != null && msg instanceof Frame.AuthProof proof) {
            if (!ClusterSecret.matches(secret.diallerProof(diallerNonce, listenerNonce), proof.proof())) {
                refuse(ctx, "wrong proof of the cluster secret");
                return;
            }
            if (macs) {
                // the proof is the last frame read untagged; the challenge was the last one sent untagged
                FrameCodec.startMacs(
                        ctx.pipeline(),
                        secret.listenerFrames(diallerNonce, listenerNonce),
                        secret.diallerFrames(diallerNonce, listenerNonce));
            }
            ctx.pipeline().remove(this);
        } else {
            ReferenceCountUtil.release(msg);
            refuse(
                    ctx,
                    diallerNonce == null
                            ? "this node requires the cluster secret; the peer sent " + name(msg) + " without it"
                            : "expected AuthProof, got " + name(msg));
        }
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        refused = true;
        refusals.warn(
                "refused a replication connection from {}: {}", ctx.channel().remoteAddress(), why);
        ctx.writeAndFlush(new Frame.Reject(Frame.RejectReason.AUTH, epoch, why))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private static String name(Object msg) {
        return msg instanceof Frame ? msg.getClass().getSimpleName() : String.valueOf(msg);
    }
}
