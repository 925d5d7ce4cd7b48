package dev.kvs.client.internal;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/** Builds the client's TLS context from PEM files. Not an API type. */
public final class ClientTls {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private ClientTls() {}

    /**
     * A client context trusting the certificates in {@code caFile}, presenting {@code certFile} with
     * {@code keyFile} if they are not null, and checking that a server's certificate names the host
     * dialled if {@code verifyHostname}. OpenSSL (netty-tcnative) if on the class path, else the JDK;
     * TLS 1.3 and 1.2.
     *
     * @throws IllegalArgumentException if a file is not a usable certificate, key or CA
     */
    public static SslContext context(Path caFile, Path certFile, Path keyFile, boolean verifyHostname) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .protocols(PROTOCOLS)
                    .trustManager(caFile.toFile())
                    .endpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
            if (certFile != null) b.keyManager(certFile.toFile(), keyFile.toFile());
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "TLS files (caFile " + caFile
                            + (certFile == null ? "" : ", certFile " + certFile + ", keyFile " + keyFile)
                            + ") are not usable: " + e.getMessage(),
                    e);
        }
    }
}
