package dev.kvs.server.tls;

import dev.kvs.replication.TlsFiles;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/** Throwaway CAs and certificates for TLS tests, valid for a day. */
final class TestPki {
    private TestPki() {}

    static X509Bundle authority(String subject) throws Exception {
        return new CertificateBuilder()
                .subject(subject)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
    }

    /** A certificate {@code ca} signed for {@code name}, 127.0.0.1 and localhost, for servers and clients. */
    static X509Bundle leaf(X509Bundle ca, String name) throws Exception {
        return new CertificateBuilder()
                .subject("CN=" + name)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .addSanDnsName(name)
                .addSanDnsName("localhost")
                .addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(ca);
    }

    /** {@code leaf}'s PEM files, trusting {@code ca}. */
    static TlsFiles files(X509Bundle leaf, X509Bundle ca) throws Exception {
        return new TlsFiles(
                leaf.toTempCertChainPem().toPath(),
                leaf.toTempPrivateKeyPem().toPath(),
                ca.toTempRootCertPem().toPath(),
                Optional.empty());
    }

    /** A JDK client context trusting {@code ca}, presenting {@code identity} if not null. */
    static SSLContext clientContext(X509Bundle ca, X509Bundle identity) throws Exception {
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(
                identity == null ? null : identity.toKeyManagerFactory().getKeyManagers(),
                ca.toTrustManagerFactory().getTrustManagers(),
                null);
        return c;
    }
}
