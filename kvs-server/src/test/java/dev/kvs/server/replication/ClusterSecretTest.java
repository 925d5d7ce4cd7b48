package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.NodeConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** Two nodes replicate only if they share the cluster secret; a backup with another one is never fed. */
class ClusterSecretTest {
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
                .build());
    }

    @Test
    void nodesWithTheSameSecretReplicate() {
        try (KvsNode b = backup("shared-secret-0123456789");
                KvsNode a = primary(b, "shared-secret-0123456789");
                Jedis ja = new Jedis("127.0.0.1", a.port());
                Jedis jb = new Jedis("127.0.0.1", b.port())) {
            assertThat(ja.set("k", "v")).isEqualTo("OK"); // id-first: the backup acknowledged the key
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(TwoDc.peek(jb, "k".getBytes()))
                    .isNotNull());
        }
    }

    @Test
    void aPrimaryWithAnotherSecretIsRefusedAndItsWritesAreNotProtected() {
        try (KvsNode b = backup("the-backups-secret-0123");
                KvsNode a = primary(b, "another-secret-9876543210");
                Jedis ja = new Jedis("127.0.0.1", a.port());
                Jedis jb = new Jedis("127.0.0.1", b.port())) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> Admin.get(b.adminPort(), "/status").matches("(?s).*\"refusedConnections\":[3-9].*"));

            assertThat(ja.info("replication")).contains("kvs_link_state:connecting");
            assertThat(TwoDc.peek(jb, "k".getBytes())).isNull();
            assertThat(jb.info("replication"))
                    .contains("kvs_epoch:1", "kvs_role:backup", "kvs_replication_refused_connections:");
        }
    }
}
