package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/**
 * The replication handshake carries the shard: a primary of one shard wired to a backup of another is
 * refused, and the backup's {@code /status} says why.
 */
class ShardHandshakeTest {

    private static CoordinationConfig shard(TestingServer zk, String shard) {
        return new CoordinationConfig(zk.getConnectString(), Optional.empty(), Duration.ofMillis(1500), shard);
    }

    private static String status(KvsNode node) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + "/status"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    void aPrimaryOfAnotherShardCannotAttachToTheBackup() throws Exception {
        try (TestingServer zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, 100), true);
                TwoDc dc = TwoDc.builder()
                        .primary(b -> b.cluster("shards").coordination(shard(zk, "shard-0")))
                        .backup(b -> b.cluster("shards").coordination(shard(zk, "shard-1")))
                        .start()) {
            await("the backup refuses the primary of shard-0")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> status(dc.backup())
                            .contains("\"lastRejection\":\"CLUSTER_MISMATCH shard shard-0 != shard-1: dc-main is the"
                                    + " primary of another shard\""));
            assertThat(status(dc.backup())).contains("\"keyChannelConnected\":false");
        }
    }

    @Test
    void membersOfTheSameShardReplicate() throws Exception {
        try (TestingServer zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, 100), true);
                TwoDc dc = TwoDc.builder()
                        .primary(b -> b.cluster("shards").coordination(shard(zk, "shard-0")))
                        .backup(b -> b.cluster("shards").coordination(shard(zk, "shard-0")))
                        .start()) {
            await("the backup's key channel is connected")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> status(dc.backup()).contains("\"keyChannelConnected\":true"));
            assertThat(status(dc.backup())).contains("\"lastRejection\":\"\"");
        }
    }
}
