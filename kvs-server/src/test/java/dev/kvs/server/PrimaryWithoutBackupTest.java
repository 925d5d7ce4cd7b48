package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A primary whose backup is unreachable: each mode answers as its contract says, the bounds refuse
 * writes with BUSY instead of growing, and nothing blocks the node.
 */
class PrimaryWithoutBackupTest {
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static NodeConfig.Builder config(ReplicationMode mode, ReplicatorConfig replication) throws IOException {
        return NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .peer("127.0.0.1:" + closedPort())
                .mode(mode)
                .replication(replication)
                .store(StoreConfig.builder()
                        .maxEntries(10_000)
                        .maxBytes(64L << 20)
                        .build());
    }

    private static ReplicatorConfig.Builder replication() {
        return ReplicatorConfig.builder()
                .writeTimeout(Duration.ofMillis(300))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(100));
    }

    @Test
    void idFirstWriteIsAppliedButNotConfirmedWithoutABackup() throws Exception {
        try (KvsNode node = KvsNode.start(
                        config(ReplicationMode.ID_FIRST, replication().build()).build());
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThatThrownBy(() -> jedis.set("k", "v"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("NOREPLICA write 1:1 is on the primary");
            assertThat(jedis.get("k")).isEqualTo("v");
            String info = jedis.info("replication");
            assertThat(info).contains("kvs_link_state:connecting", "kvs_unacked_keys:1", "kvs_value_lag_count:1");
        }
    }

    @Test
    void asyncAnswersAtOnce() throws Exception {
        try (KvsNode node = KvsNode.start(
                        config(ReplicationMode.ASYNC, replication().build()).build());
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThat(jedis.set("a", "1")).isEqualTo("OK");
            assertThat(jedis.set("b", "2")).isEqualTo("OK");
            assertThat(jedis.mset("c", "3", "d", "4")).isEqualTo("OK");
            assertThat(jedis.del("a", "b")).isEqualTo(2);
            assertThat(jedis.info("replication")).contains("kvs_last_txid:1:6");
        }
    }

    @Test
    void idFirstAfterReplyWaitsLikeIdFirstWhileTheLinkIsDown() throws Exception {
        try (KvsNode node = KvsNode.start(
                        config(ReplicationMode.ASYNC, replication().build()).build());
                Jedis jedis = new Jedis("127.0.0.1", node.port())) {
            assertThat(jedis.sendCommand(() -> "KVS.MODE".getBytes(), "id-first-after-reply"))
                    .isNotNull();
            // answering at once would let the undetected-loss window last as long as the outage
            assertThatThrownBy(() -> jedis.set("b", "2")).hasMessageStartingWith("NOREPLICA write 1:1");
            assertThat(jedis.get("b")).isEqualTo("2");
        }
    }

    @Test
    void aFullKeyLogRefusesWritesWithBusyAfterTheTimeoutAndKeepsServingReads() throws Exception {
        ReplicatorConfig small = replication().maxUnackedKeys(2).build();
        try (KvsNode node = KvsNode.start(config(ReplicationMode.ASYNC, small).build());
                Jedis writer = new Jedis("127.0.0.1", node.port());
                Jedis reader = new Jedis("127.0.0.1", node.port())) {
            writer.set("a", "1");
            writer.set("b", "2");
            assertThatThrownBy(() -> writer.set("c", "3"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("BUSY replication to the backup is behind its bounds");
            assertThat(reader.get("a")).isEqualTo("1");
            assertThat(reader.exists("c")).isFalse();
            // the held connection is usable again: reads pass, writes are still refused
            assertThat(writer.get("b")).isEqualTo("2");
            assertThatThrownBy(() -> writer.del("a")).hasMessageStartingWith("BUSY");
            assertThat(reader.get("a")).isEqualTo("1");
        }
    }
}
