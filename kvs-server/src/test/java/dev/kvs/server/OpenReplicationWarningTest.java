package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A node that replicates without a cluster secret and without TLS says so at start, as a WARN naming
 * what is open: the backup's listening replication port, the primary's peer.
 */
class OpenReplicationWarningTest {
    private static final String SECRET = "shared-secret-0123456789";

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger nodeLogger = (Logger) LoggerFactory.getLogger(KvsNode.class);

    @BeforeEach
    void captureTheNodesLog() {
        logged.start();
        nodeLogger.addAppender(logged);
    }

    @AfterEach
    void release() {
        nodeLogger.detachAppender(logged);
    }

    private static NodeConfig.Builder node(String name) {
        return NodeConfig.builder()
                .name(name)
                .port(0)
                .adminPort(0)
                .replPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(16L << 20)
                        .build());
    }

    private List<String> warnings() {
        return logged.list.stream()
                .filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void aBackupListeningWithoutASecretWarnsWhoCanActAsItsPrimary() {
        try (KvsNode b = KvsNode.start(node("dc-b").role(Role.BACKUP).build())) {
            assertThat(warnings())
                    .containsExactly("replication is open: no clusterSecret and no tls, so anyone who reaches its"
                            + " replication port 127.0.0.1:" + b.replPort() + " can act as its primary. Set the same"
                            + " clusterSecret (or clusterSecretFile) on both nodes, or tls");
        }
    }

    @Test
    void aPrimaryDiallingWithoutASecretWarnsWhereItsWritesGo() {
        try (KvsNode b = KvsNode.start(node("dc-b").role(Role.BACKUP).build())) {
            logged.list.clear();
            String peer = "127.0.0.1:" + b.replPort();
            try (KvsNode a = KvsNode.start(node("dc-a").peer(peer).build())) {
                assertThat(warnings())
                        .containsExactly("replication is open: no clusterSecret and no tls, so it sends its writes to "
                                + peer + ", unauthenticated and in clear. Set the same clusterSecret (or"
                                + " clusterSecretFile) on both nodes, or tls");
            }
        }
    }

    @Test
    void aBackupWithAPeerWarnsOfBothSides() {
        try (KvsNode b =
                KvsNode.start(node("dc-b").role(Role.BACKUP).peer("127.0.0.1:1").build())) {
            assertThat(warnings())
                    .singleElement()
                    .asString()
                    .contains("anyone who reaches its replication port 127.0.0.1:" + b.replPort())
                    .contains("; and it sends its writes to 127.0.0.1:1, unauthenticated and in clear, once promoted.");
        }
    }

    @Test
    void nodesWithASecretOrNoReplicationStartWithoutAWarning() {
        try (KvsNode b = KvsNode.start(node("dc-b")
                        .role(Role.BACKUP)
                        .clusterSecret(SECRET)
                        .admin(AdminConfig.defaults().withTrustLoopback(true))
                        .build());
                KvsNode a = KvsNode.start(node("dc-a")
                        .peer("127.0.0.1:" + b.replPort())
                        .clusterSecret(SECRET)
                        .admin(AdminConfig.defaults().withTrustLoopback(true))
                        .build());
                KvsNode lone = KvsNode.start(node("lone").build())) {
            assertThat(logged.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(m -> m.startsWith("kvs node 'lone'"));
            assertThat(warnings()).isEmpty();
        }
    }
}
