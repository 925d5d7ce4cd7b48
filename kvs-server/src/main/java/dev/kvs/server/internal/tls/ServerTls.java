package dev.kvs.server.internal.tls;

import dev.kvs.replication.TlsContexts;
import dev.kvs.replication.TlsFiles;
import dev.kvs.server.config.TlsPortsConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of TLS on the client and admin ports: one {@link SslContext}, built once per node
 * and shared by both ports, presenting the node's certificate. With {@code clientAuth} other than
 * {@code none} it asks for a client certificate and checks that it leads to {@code caFile} (any name:
 * who the client is is not checked here).
 */
public final class ServerTls {
    private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

    private ServerTls() {}

    /**
     * Reads the PEM files.
     *
     * @throws IllegalArgumentException if a file is not a usable certificate, key or CA
     */
    public static SslContext context(TlsFiles files, TlsPortsConfig.ClientAuth clientAuth) {
        try {
            SslContextBuilder b = TlsContexts.forServer(files);
            if (clientAuth != TlsPortsConfig.ClientAuth.NONE) {
                b.trustManager(files.caFile().toFile())
                        .clientAuth(
                                clientAuth == TlsPortsConfig.ClientAuth.REQUIRE
                                        ? ClientAuth.REQUIRE
                                        : ClientAuth.OPTIONAL);
            }
            SslContext context = b.build();
            log.info(
                    "client/admin port TLS with {} ({}, client certificates: {})",
                    TlsContexts.provider(),
                    files.certFile(),
                    clientAuth.label());
            return context;
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "TLS files " + files + " are not usable for the client ports: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e.getCause() instanceof IOException) {
                throw new IllegalArgumentException(
                        "TLS files " + files + " are not usable for the client ports: " + e.getMessage(), e);
            }
            throw e;
        }
    }
}
