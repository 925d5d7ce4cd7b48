/**
 * TLS on the client (RESP) and admin ports: the node's server {@link io.netty.handler.ssl.SslContext}
 * ({@link dev.kvs.server.internal.tls.ServerTls}) and the pipeline handlers that admit TLS only ({@link
 * dev.kvs.server.internal.tls.TlsOnly}). Not an API.
 */
package dev.kvs.server.internal.tls;
