package dev.kvs.server.internal.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First handler of a TLS-only port. It looks at the first record header the client sends: a TLS
 * record makes it replace itself with an {@link SslHandler} (named {@link #NAME}) and pass the bytes
 * on; anything else is answered with {@code refusal}, in plain text, and the connection is closed
 * without a byte reaching the handlers behind it, so no command runs. Add a {@link TlsFailures}
 * behind it. Not sharable.
 */
public final class TlsOnly extends ByteToMessageDecoder {
    /** The name of this handler, and of the {@link SslHandler} that replaces it, in the pipeline. */
    public static final String NAME = "tls";

    /** Bytes of a TLS record header: what it takes to tell TLS from plain text. */
    private static final int RECORD_HEADER_BYTES = 5;

    private static final Logger log = LoggerFactory.getLogger(TlsOnly.class);

    private final SslContext context;
    private final byte[] refusal;
    private final String port;

    /**
     * @param context the node's server context
     * @param refusal what a plain-text client is told before the connection closes, in its protocol
     * @param port the port's name for the log, e.g. {@code client}
     */
    public TlsOnly(SslContext context, byte[] refusal, String port) {
        this.context = context;
        this.refusal = refusal.clone();
        this.port = port;
    }

    /** Plain text was refused: whatever else arrives before the close is dropped. */
    private boolean refused;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < RECORD_HEADER_BYTES) return;
        if (SslHandler.isEncrypted(in, false)) {
            ctx.pipeline().replace(this, NAME, context.newHandler(ctx.alloc()));
            return; // the bytes read so far go to the SslHandler as this handler is removed
        }
        refused = true;
        in.skipBytes(in.readableBytes());
        log.debug(
                "{} port: {} sent plain text to a TLS-only port; refused",
                port,
                ctx.channel().remoteAddress());
        ctx.writeAndFlush(Unpooled.wrappedBuffer(refusal)).addListener(ChannelFutureListener.CLOSE);
    }
}
