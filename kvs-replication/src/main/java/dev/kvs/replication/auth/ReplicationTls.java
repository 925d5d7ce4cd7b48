package dev.kvs.replication.auth;

import dev.kvs.replication.TlsContexts;
import dev.kvs.replication.TlsFiles;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS on replication connections: both nodes present a certificate their shared CA signed,
 * and each checks the other's name. Provider and protocols are those of {@link TlsContexts}.
 * Thread-safe.
 */
public final class ReplicationTls {
    /** Its name in the pipeline. */
    public static final String NAME = "tls";

    private static final Logger log = LoggerFactory.getLogger(ReplicationTls.class);

    private final SslContext server;
    private final SslContext client;

    private ReplicationTls(SslContext server, SslContext client) {
        this.server = server;
        this.client = client;
    }

    /**
     * Reads the PEM files.
     *
     * @throws IllegalArgumentException if a file is not a usable certificate, key or CA
     */
    public static ReplicationTls of(TlsFiles files) {
        try {
            TrustManager trust =
                    NamedPeerTrust.of(files.caFile(), files.peerName().orElse(null));
            SslContext server = TlsContexts.forServer(files)
                    .trustManager(trust)
                    .clientAuth(ClientAuth.REQUIRE)
                    .build();
            SslContext client = TlsContexts.forClient()
                    .keyManager(files.certFile().toFile(), files.keyFile().toFile())
                    .trustManager(trust)
                    // with a configured peer name the trust checks that name; else the host dialled
                    .endpointIdentificationAlgorithm(files.peerName().isPresent() ? null : "HTTPS")
                    .build();
            log.info("replication TLS with {} ({})", TlsContexts.provider(), files.certFile());
            return new ReplicationTls(server, client);
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("TLS files " + files + " are not usable: " + e.getMessage(), e);
        }
    }

    /** The handler for an accepted connection: it requires the peer's certificate. */
    public SslHandler serverHandler(Channel ch) {
        return server.newHandler(ch.alloc());
    }

    /** The handler for a connection dialled to {@code peer}. */
    public SslHandler clientHandler(Channel ch, InetSocketAddress peer) {
        return client.newHandler(ch.alloc(), peer.getHostString(), peer.getPort());
    }
}
