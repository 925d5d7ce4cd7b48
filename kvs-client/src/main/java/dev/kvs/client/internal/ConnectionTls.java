package dev.kvs.client.internal;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.time.Duration;

/** How a {@link Connection} speaks TLS: the client's context, and how long its handshake may take. */
record ConnectionTls(SslContext context, Duration handshakeTimeout) {

    /** A handler for a connection to {@code endpoint}: SNI and hostname checks use its host. */
    SslHandler newHandler(Channel ch, Endpoint endpoint) {
        SslHandler h = context.newHandler(ch.alloc(), endpoint.host(), endpoint.port());
        h.setHandshakeTimeoutMillis(Math.max(1, handshakeTimeout.toMillis()));
        return h;
    }
}
