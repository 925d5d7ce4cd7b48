package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.replication.TlsFiles;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.TlsPortsConfig;
import dev.kvs.server.config.TlsPortsConfig.ClientAuth;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client over TLS against real nodes with {@code tls.clients: true}: requests work; a client
 * without TLS, trusting another CA, dialling a name the certificate lacks, or without the certificate
 * a node requires fails at once with {@link KvsTlsException}, and nothing is executed.
 */
class TlsTest {
    private static X509Bundle ca;
    private static Path caFile;
    private static Path otherCaFile;
    private static TlsFiles nodeFiles;
    private static TlsFiles elsewhereFiles;
    private static X509Bundle app;

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void pki() throws Exception {
        ca = authority("CN=kvs test CA");
        caFile = ca.toTempRootCertPem().toPath();
        otherCaFile = authority("CN=someone else's CA").toTempRootCertPem().toPath();
        nodeFiles = files(leaf("kvs-node", true), ca);
        elsewhereFiles = files(leaf("kvs.elsewhere.example", false), ca);
        app = leaf("app", false);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) c.close();
    }

    @Test
    void setAndGetOverTls() {
        KvsNode node = node(nodeFiles, ClientAuth.NONE);
        KvsClient client = client(KvsClient.builder().tls(caFile), node);

        client.put("k", "v");
        assertThat(client.get("k")).isEqualTo("v");
        assertThat(client.getAll(List.of("k".getBytes(), "absent".getBytes())))
                .satisfiesExactly(
                        v -> assertThat(v).isEqualTo("v".getBytes()),
                        v -> assertThat(v).isNull());
    }

    @Test
    void aClientWithoutTlsIsToldTheNodeWantsTlsAndNothingRuns() {
        KvsNode node = node(nodeFiles, ClientAuth.NONE);
        KvsClient plain = client(KvsClient.builder(), node);

        assertThatThrownBy(() -> plain.put("k", "v"))
                .isInstanceOf(KvsTlsException.class)
                .hasMessageStartingWith("TLSREQUIRED")
                .hasMessageContaining("tls(caFile)");
        KvsClient withPassword = client(KvsClient.builder().password("whatever"), node);
        assertThatThrownBy(() -> withPassword.get("k")).isInstanceOf(KvsTlsException.class);

        assertThat(client(KvsClient.builder().tls(caFile), node).exists("k".getBytes()))
                .isFalse();
    }

    @Test
    void aServerCertificateFromAnotherCaIsRefused() {
        KvsNode node = node(nodeFiles, ClientAuth.NONE);
        KvsClient client = client(KvsClient.builder().tls(otherCaFile), node);

        assertThatThrownBy(() -> client.put("k", "v"))
                .isInstanceOf(KvsTlsException.class)
                .hasMessageStartingWith("TLS with 127.0.0.1:" + node.port() + " failed: ");
    }

    @Test
    void theCertificateMustNameTheHostDialledUnlessVerificationIsOff() {
        KvsNode node = node(elsewhereFiles, ClientAuth.NONE); // names kvs.elsewhere.example only
        KvsClient checking = client(KvsClient.builder().tls(caFile), node);
        assertThatThrownBy(checking::ping).isInstanceOf(KvsTlsException.class);

        KvsClient trusting = client(KvsClient.builder().tls(caFile).tlsHostnameVerification(false), node);
        assertThat(trusting.ping()).isEqualTo("PONG");
    }

    @Test
    void aNodeRequiringClientCertificatesRefusesAClientWithoutOne() throws Exception {
        KvsNode node = node(nodeFiles, ClientAuth.REQUIRE);
        KvsClient anonymous = client(KvsClient.builder().tls(caFile), node);
        assertThatThrownBy(() -> anonymous.put("k", "v"))
                .isInstanceOf(KvsTlsException.class)
                .hasMessageStartingWith("TLS with 127.0.0.1:" + node.port() + " failed: ");

        KvsClient identified = client(
                KvsClient.builder()
                        .tls(caFile)
                        .tlsClientCertificate(
                                app.toTempCertChainPem().toPath(),
                                app.toTempPrivateKeyPem().toPath()),
                node);
        assertThat(identified.exists("k".getBytes()))
                .as("the refused write did not run")
                .isFalse();
        identified.put("k", "v");
        assertThat(identified.get("k")).isEqualTo("v");
    }

    @Test
    void aTlsClientOfAPlainNodeFailsWithinTheConnectTimeout() {
        KvsNode node = KvsNode.start(Nodes.primary("plain").build());
        open.add(node);
        KvsClient client = client(KvsClient.builder().tls(caFile).connectTimeout(Duration.ofMillis(500)), node);

        assertThatThrownBy(client::ping)
                .isInstanceOf(KvsTlsException.class)
                // the node answers the ClientHello as a bad command, or waits for the end of its line
                .hasMessageMatching(
                        "TLS with .* failed: .*\\((is tls.clients on for this node|does this port speak TLS)\\?\\)");
    }

    @Test
    void badTlsSettingsAreRejectedByTheBuilder() throws Exception {
        assertThatThrownBy(() -> KvsClient.builder().tls(Path.of("/nonexistent/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot read tls caFile /nonexistent/ca.pem");
        Path cert = app.toTempCertChainPem().toPath();
        Path key = app.toTempPrivateKeyPem().toPath();
        assertThatThrownBy(() -> KvsClient.builder()
                        .endpoints("127.0.0.1:6380")
                        .tlsClientCertificate(cert, key)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs tls(caFile)");
        assertThatThrownBy(() -> KvsClient.builder()
                        .endpoints("127.0.0.1:6380")
                        .tls(key) // a key is not a CA certificate
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("are not usable");
    }

    private KvsNode node(TlsFiles files, ClientAuth auth) {
        KvsNode node = KvsNode.start(Nodes.primary("tls-node")
                .tls(files)
                .tlsPorts(new TlsPortsConfig(true, false, auth))
                .build());
        open.add(node);
        return node;
    }

    private KvsClient client(KvsClient.Builder builder, KvsNode node) {
        KvsClient c = builder.endpoints(Nodes.endpoint(node))
                .requestTimeout(Duration.ofSeconds(5))
                .build();
        open.add(c);
        return c;
    }

    private static X509Bundle authority(String subject) throws Exception {
        return new CertificateBuilder()
                .subject(subject)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
    }

    /** A certificate of {@code ca} for {@code name}, and for 127.0.0.1 if {@code loopback}. */
    private static X509Bundle leaf(String name, boolean loopback) throws Exception {
        CertificateBuilder b = new CertificateBuilder()
                .subject("CN=" + name)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .addSanDnsName(name)
                .addExtendedKeyUsageServerAuth()
                .addExtendedKeyUsageClientAuth()
                .ecp256();
        if (loopback) b.addSanIpAddress("127.0.0.1");
        return b.buildIssuedBy(ca);
    }

    private static TlsFiles files(X509Bundle leaf, X509Bundle ca) throws Exception {
        return new TlsFiles(
                leaf.toTempCertChainPem().toPath(),
                leaf.toTempPrivateKeyPem().toPath(),
                ca.toTempRootCertPem().toPath(),
                Optional.empty());
    }
}
