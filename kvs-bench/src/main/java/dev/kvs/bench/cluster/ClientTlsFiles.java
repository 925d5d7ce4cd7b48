package dev.kvs.bench.cluster;

import dev.kvs.client.KvsClient;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * How the tools reach nodes whose client port ({@code tls.clients: true}) or admin port ({@code
 * tls.admin: true}) speaks TLS only: the CA the nodes' certificates lead to, and the tool's own
 * certificate for nodes with {@code tls.clientAuth: require}. PEM files, as the nodes' own.
 *
 * @param caFile the CA certificates (PEM) a node's certificate must lead to
 * @param certFile the tool's certificate chain (PEM, leaf first) or null for none
 * @param keyFile its private key (PEM, PKCS#8 unencrypted), null exactly when {@code certFile} is
 * @param verifyHostname whether a node's certificate must name the host dialled
 */
public record ClientTlsFiles(Path caFile, Path certFile, Path keyFile, boolean verifyHostname) {
    public ClientTlsFiles {
        Objects.requireNonNull(caFile, "caFile");
        if ((certFile == null) != (keyFile == null))
            throw new IllegalArgumentException("a client certificate needs both a certificate file and a key file");
        for (Path p : new Path[] {caFile, certFile, keyFile}) {
            if (p != null && !Files.isReadable(p)) throw new IllegalArgumentException("cannot read TLS file " + p);
        }
    }

    /** Trusting {@code caFile}, no client certificate, host names checked. */
    public static ClientTlsFiles trusting(Path caFile) {
        return new ClientTlsFiles(caFile, null, null, true);
    }

    /** {@code builder} connecting with these files (the SDK's own PEM handling). */
    public KvsClient.Builder applyTo(KvsClient.Builder builder) {
        builder.tls(caFile).tlsHostnameVerification(verifyHostname);
        if (certFile != null) builder.tlsClientCertificate(certFile, keyFile);
        return builder;
    }

    /**
     * A JDK context for the admin port's HTTPS (the JDK {@code HttpClient}), from the same PEM files:
     * Netty's PEM reader with the JDK provider, TLS 1.3 and 1.2.
     *
     * @throws IllegalArgumentException if the files are not a usable CA, certificate or key
     */
    public SSLContext sslContext() {
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .trustManager(caFile.toFile());
            if (certFile != null) b.keyManager(certFile.toFile(), keyFile.toFile());
            return ((JdkSslContext) b.build()).context();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "TLS files (CA " + caFile
                            + (certFile == null ? "" : ", certificate " + certFile + ", key " + keyFile)
                            + ") are not usable: " + e.getMessage(),
                    e);
        }
    }
}
