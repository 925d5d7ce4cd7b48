package dev.kvs.server.internal.tls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits right behind the {@link io.netty.handler.ssl.SslHandler} of a TLS port: a TLS failure (a
 * handshake the client gave up on, a certificate the node refused, a bad record) closes the connection
 * here, logged at debug level (anyone can cause one), instead of reaching the protocol handler as a
 * protocol error it would try to answer. Other exceptions pass on. Sharable.
 */
@ChannelHandler.Sharable
public final class TlsFailures extends ChannelInboundHandlerAdapter {
    /** Its name in the pipeline. */
    public static final String NAME = "tls-failures";

    private static final Logger log = LoggerFactory.getLogger(TlsFailures.class);

    private final String port;

    /** @param port the port's name for the log, e.g. {@code client} */
    public TlsFailures(String port) {
        this.port = port;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        SSLException tls = sslCause(cause);
        if (tls == null) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        log.debug(
                "{} port: TLS with {} failed; closing: {}", port, ctx.channel().remoteAddress(), tls.toString());
        ctx.close();
    }

    private static SSLException sslCause(Throwable t) {
        for (int depth = 0; t != null && depth < 5; depth++, t = t.getCause()) {
            if (t instanceof SSLException e) return e;
        }
        return null;
    }
}
