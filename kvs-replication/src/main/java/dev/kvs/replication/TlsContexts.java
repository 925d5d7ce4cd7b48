package dev.kvs.replication;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * The TLS settings every kvs port shares: OpenSSL (netty-tcnative) when it is on the class path, else
 * the JDK's TLS, and TLS 1.3 and 1.2 only. {@link ReplicationTls} and the client and admin ports start
 * their contexts here so that they cannot drift apart.
 */
public final class TlsContexts {
    /** The protocol versions offered and accepted. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private TlsContexts() {}

    /** OpenSSL if available, else the JDK. */
    public static SslProvider provider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /**
     * A server context builder presenting the node's certificate ({@link TlsFiles#certFile()}, {@link
     * TlsFiles#keyFile()}), with the provider and protocols set; the caller adds trust and client
     * authentication.
     */
    public static SslContextBuilder forServer(TlsFiles files) {
        return SslContextBuilder.forServer(
                        files.certFile().toFile(), files.keyFile().toFile())
                .sslProvider(provider())
                .protocols(PROTOCOLS);
    }

    /** A client context builder with the provider and protocols set. */
    public static SslContextBuilder forClient() {
        return SslContextBuilder.forClient().sslProvider(provider()).protocols(PROTOCOLS);
    }
}
