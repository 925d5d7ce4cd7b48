package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.replication.TlsFiles;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.wan.WanLink;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Two nodes replicate only if they share the cluster secret (a backup with another one is never fed),
 * and over mutual TLS when both have certificates of one CA.
 */
class ReplicationSecurityTest {
    private static final ReplicatorConfig FAST_RECONNECT = ReplicatorConfig.builder()
            .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
            .writeTimeout(Duration.ofMillis(500))
            .build();

    private static KvsNode backup(String secret) {
        return KvsNode.start(NodeConfig.builder()
                .name("dc-b")
                .role(Role.BACKUP)
                .port(0)
                .adminPort(0)
                .replPort(0)
                .clusterSecret(secret)
                .admin(AdminConfig.defaults().withTrustLoopback(true))
                .build());
    }

    private static KvsNode primary(KvsNode backup, String secret) {
        return KvsNode.start(NodeConfig.builder()
                .name("dc-a")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .peer("127.0.0.1:" + backup.replPort())
                .replication(FAST_RECONNECT)
                .clusterSecret(secret)
                .admin(AdminConfig.defaults().withTrustLoopback(true))
                .build());
    }

    @Test
    void nodesWithTheSameSecretReplicate() {
        try (KvsNode b = backup("shared-secret-0123456789");
                KvsNode a = primary(b, "shared-secret-0123456789");
                Jedis ja = new Jedis("127.0.0.1", a.port());
                Jedis jb = new Jedis("127.0.0.1", b.port())) {
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(ja.info("replication")).contains("kvs_link_state:streaming"));
            assertThat(ja.set("k", "v")).isEqualTo("OK"); // id-first: the backup acknowledged the key
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() ->
                            assertThat(JedisAccess.peek(jb, "k".getBytes())).isNotNull());
        }
    }

    @Test
    void aPrimaryWithAnotherSecretIsRefusedAndItsWritesAreNotProtected() {
        try (KvsNode b = backup("the-backups-secret-0123");
                KvsNode a = primary(b, "another-secret-9876543210");
                Jedis ja = new Jedis("127.0.0.1", a.port());
                Jedis jb = new Jedis("127.0.0.1", b.port())) {
            await().atMost(Duration.ofSeconds(20)).until(() -> refusedConnections(b) >= 3);

            assertThat(ja.info("replication")).contains("kvs_link_state:connecting");
            assertThat(JedisAccess.peek(jb, "k".getBytes())).isNull();
            assertThat(jb.info("replication"))
                    .contains("kvs_epoch:1", "kvs_role:backup", "kvs_replication_refused_connections:");
        }
    }

    @Test
    void nodesWithCertificatesOfOneCaReplicateOverMutualTls() throws Exception {
        X509Bundle ca = new CertificateBuilder()
                .subject("CN=kvs test CA")
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        try (KvsNode b = KvsNode.start(NodeConfig.builder()
                        .name("dc-b")
                        .role(Role.BACKUP)
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .tls(tlsFiles(ca, "dc-b", "dc-a"))
                        .build());
                KvsNode a = KvsNode.start(NodeConfig.builder()
                        .name("dc-a")
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .peer("127.0.0.1:" + b.replPort())
                        .replication(FAST_RECONNECT)
                        .tls(tlsFiles(ca, "dc-a", "dc-b"))
                        .build());
                Jedis ja = new Jedis("127.0.0.1", a.port());
                Jedis jb = new Jedis("127.0.0.1", b.port())) {
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(ja.info("replication")).contains("kvs_link_state:streaming"));
            assertThat(ja.set("k", "v")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() ->
                            assertThat(JedisAccess.peek(jb, "k".getBytes())).isNotNull());
        }
    }

    @Test
    void aPrimaryWhoseFirstConnectionsCloseBeforeAuthenticatingKeepsRedialling() throws Exception {
        int backupPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            backupPort = probe.getLocalPort();
        }
        // the link accepts, then closes each connection while nothing listens behind it yet
        try (WanLink link = WanLink.builder().target("127.0.0.1", backupPort).build();
                KvsNode a = KvsNode.start(NodeConfig.builder()
                        .name("dc-a")
                        .port(0)
                        .adminPort(0)
                        .replPort(0)
                        .peer("127.0.0.1:" + link.port())
                        .replication(FAST_RECONNECT)
                        .clusterSecret("shared-secret-0123456789")
                        .admin(AdminConfig.defaults().withTrustLoopback(true))
                        .build());
                Jedis ja = new Jedis("127.0.0.1", a.port())) {
            await().atMost(Duration.ofSeconds(20)).until(() -> link.stats().acceptedConnections() >= 6);
            try (KvsNode b = KvsNode.start(NodeConfig.builder()
                    .name("dc-b")
                    .role(Role.BACKUP)
                    .port(0)
                    .adminPort(0)
                    .replPort(backupPort)
                    .clusterSecret("shared-secret-0123456789")
                    .admin(AdminConfig.defaults().withTrustLoopback(true))
                    .build())) {
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThat(ja.info("replication")).contains("kvs_link_state:streaming"));
            }
        }
    }

    /** The backup's count of refused replication connections, from {@code /status}. */
    private static long refusedConnections(KvsNode backup) throws Exception {
        Matcher m = Pattern.compile("\"refusedConnections\":(\\d+)").matcher(Admin.get(backup.adminPort(), "/status"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static TlsFiles tlsFiles(X509Bundle ca, String name, String peer) throws Exception {
        X509Bundle leaf = new CertificateBuilder()
                .subject("CN=" + name)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .addSanDnsName(name)
                .addExtendedKeyUsageServerAuth()
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(ca);
        return new TlsFiles(
                leaf.toTempCertChainPem().toPath(),
                leaf.toTempPrivateKeyPem().toPath(),
                ca.toTempRootCertPem().toPath(),
                Optional.of(peer));
    }
}
