package dev.kvs.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.TlsPortsConfig.ClientAuth;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools' admin client against a node whose admin port is HTTPS only ({@code tls.admin: true}),
 * with certificates from {@link RunPki}: it works with the run's CA and the token, and fails without
 * TLS, with another CA, or without the client certificate a {@code clientAuth: require} node demands.
 */
class AdminClientTlsTest {
    @TempDir
    Path dir;

    @Test
    void readsAndActsOverHttpsWithTheRunsCaAndToken() {
        RunPki pki = SecuredNode.pki(dir, "node-a");
        try (KvsNode node = SecuredNode.start(pki, "node-a", ClientAuth.NONE)) {
            AdminClient admin = new AdminClient(SecuredNode.ADMIN_TOKEN, pki.clientTls());

            JsonNode status = admin.get("127.0.0.1", node.adminPort(), "/status");
            assertThat(status.path("role").asText()).isEqualTo("primary");
            assertThat(admin.get("localhost", node.adminPort(), "/health").isObject())
                    .isTrue();

            // without the token the action is refused, over the same TLS
            AdminClient noToken = new AdminClient(null, pki.clientTls());
            assertThatThrownBy(() -> noToken.post("127.0.0.1", node.adminPort(), "/demote?epoch=5"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("answered 401");
        }
    }

    @Test
    void plainHttpAnotherCaOrAMissingClientCertificateFail() {
        RunPki pki = SecuredNode.pki(dir.resolve("ours"), "node-b");
        RunPki other = SecuredNode.pki(dir.resolve("theirs"), "node-b");
        try (KvsNode node = SecuredNode.start(pki, "node-b", ClientAuth.REQUIRE)) {
            AdminClient plain = new AdminClient(SecuredNode.ADMIN_TOKEN, null);
            assertThatThrownBy(() -> plain.get("127.0.0.1", node.adminPort(), "/status"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("answered 400");

            AdminClient wrongCa = new AdminClient(SecuredNode.ADMIN_TOKEN, other.clientTls());
            assertThatThrownBy(() -> wrongCa.get("127.0.0.1", node.adminPort(), "/status"))
                    .isInstanceOf(UncheckedIOException.class);

            AdminClient noCertificate = new AdminClient(SecuredNode.ADMIN_TOKEN, pki.clientTls());
            assertThatThrownBy(() -> noCertificate.get("127.0.0.1", node.adminPort(), "/status"))
                    .isInstanceOf(UncheckedIOException.class);

            // the node's own certificate is also a client certificate the CA signed
            AdminClient withCertificate = new AdminClient(
                    SecuredNode.ADMIN_TOKEN,
                    new ClientTlsFiles(pki.caFile(), pki.certFile("node-b"), pki.keyFile("node-b"), true));
            assertThat(withCertificate
                            .get("127.0.0.1", node.adminPort(), "/status")
                            .path("role")
                            .asText())
                    .isEqualTo("primary");
        }
    }

    @Test
    void theRunsKeysAndDirectoryAreTheOwnersOnly() throws Exception {
        RunPki pki = RunPki.create(dir, java.util.List.of("dc-main", "dc-backup"), java.util.List.of("10.77.0.1"));
        assertThat(pki.caFile()).exists();
        assertThat(Files.readString(pki.certFile("dc-backup"))).startsWith("-----BEGIN CERTIFICATE-----");
        assertThat(Files.readString(pki.keyFile("dc-main"))).contains("PRIVATE KEY-----");
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.keyFile("dc-main"))))
                    .isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(pki.caFile().getParent())))
                    .isEqualTo("rwx------");
        }
        java.security.cert.X509Certificate cert =
                (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificate(Files.newInputStream(pki.certFile("dc-backup")));
        assertThat(cert.getSubjectAlternativeNames())
                .extracting(l -> l.get(1).toString())
                .contains("dc-backup", "localhost", "127.0.0.1", "10.77.0.1");
    }
}
