package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.FailoverConfig.ReadPolicy;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Promotion with a value still in flight: the key whose value arrived is served, the one whose value
 * did not is fenced ({@code -UNFINISHED}, then {@code -LOST} once declared), listed in the manifest,
 * and writable again once an operator resolves it.
 */
class FailoverTest {

    @ParameterizedTest
    @EnumSource(ReadPolicy.class)
    void promotionFencesTheKeyWhoseValueWasInFlight(ReadPolicy policy) throws Exception {
        FailoverConfig failover = new FailoverConfig(policy, Duration.ofMillis(300), Duration.ZERO);
        // 2 Mbit/s: a 2 MiB value needs 8 s on the wire
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(5), 2_000_000)
                        .replication(TwoDc.replication().build())
                        .failover(failover)
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(p.set("whole", "arrived")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(20)).until(() -> JedisAccess.peek(bk, "whole".getBytes()) != null);
            byte[] big = new byte[2 << 20];
            new Random(3).nextBytes(big);
            assertThat(p.set("big".getBytes(), big)).isEqualTo("OK"); // id-first: its key packet is on the backup
            dc.link().cut(); // the disaster: the value never arrives

            assertThatThrownBy(() -> bk.get("whole")).hasMessageStartingWith("NOTPRIMARY");
            String promoted = Admin.post(dc.backup().adminPort(), "/promote");
            assertThat(promoted).contains("\"epoch\":2", "\"unfinishedCount\":1");

            assertThat(bk.get("whole")).isEqualTo("arrived");
            assertThatThrownBy(() -> bk.get("big"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("UNFINISHED big 1:2");
            assertThatThrownBy(() -> bk.set("big", "overwrite"))
                    .as("a write would hide the conflict")
                    .hasMessage("UNFINISHED big 1:2");
            assertThat(Admin.get(dc.backup().adminPort(), "/lost")).contains("\"key\":\"big\"", "\"txId\":\"1:2\"");

            assertThat(Admin.post(dc.backup().adminPort(), "/declare-lost")).contains("\"declaredLost\":1");
            assertThatThrownBy(() -> bk.get("big")).hasMessage("LOST big 1:2");
            assertThatThrownBy(() -> bk.del("big")).hasMessage("LOST big 1:2");
            String manifest = Admin.get(dc.backup().adminPort(), "/lost");
            assertThat(manifest).contains("\"lostCount\":1", "\"valueLength\":" + big.length, "\"keyBase64\":\"Ymln\"");

            assertThat(Admin.post(dc.backup().adminPort(), "/resolve?key=big")).contains("\"resolved\":1");
            assertThat(bk.get("big")).isNull();
            assertThat(bk.set("big", "new")).isEqualTo("OK");
            assertThat(bk.get("big")).isEqualTo("new");
            assertThat(bk.info("replication")).contains("kvs_epoch:2", "kvs_last_txid:2:1");
            assertThat(Admin.get(dc.backup().adminPort(), "/lost"))
                    .contains("\"lostCount\":0", "\"unfinishedCount\":0");
        }
    }

    @ParameterizedTest
    @EnumSource(ReadPolicy.class)
    void promotingTwiceAndDeclaringLossOnABackupAreRefused(ReadPolicy policy) throws Exception {
        FailoverConfig failover = new FailoverConfig(policy, Duration.ofMillis(100), Duration.ZERO);
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(1), 0)
                        .replication(TwoDc.replication().build())
                        .failover(failover)
                        .start();
                Jedis bk = JedisAccess.backup(dc)) {
            assertThat(Admin.post(dc.backup().adminPort(), "/declare-lost")).contains("needs a promoted node");
            // off by default on the RESP port: the client password must not be enough to promote
            assertThatThrownBy(() -> bk.sendCommand(() -> "KVS.PROMOTE".getBytes(StandardCharsets.US_ASCII)))
                    .hasMessageStartingWith("NOPERM");
            assertThat(bk.info("replication")).contains("kvs_role:backup");
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("\"epoch\":2");
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("already the primary");
        }
    }

    @org.junit.jupiter.api.Test
    void theOldPrimaryLearnsItIsStaleWhenTheLinkHealsAndStopsTakingWrites() throws Exception {
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ASYNC)
                        .link(Duration.ofMillis(1), 0)
                        .replication(TwoDc.replication().build())
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            assertThat(p.set("k", "1")).isEqualTo("OK");
            dc.link().cut();
            assertThat(Admin.post(dc.backup().adminPort(), "/promote")).contains("\"epoch\":2");
            assertThat(p.set("k", "written during the partition")).isEqualTo("OK"); // async: the baseline's risk
            dc.link().heal();
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(
                            () -> assertThatThrownBy(() -> p.set("k", "2")).hasMessageStartingWith("NOTPRIMARY"));
            assertThat(p.info("replication")).contains("kvs_role:backup", "kvs_epoch:2");
        }
    }

    @org.junit.jupiter.api.Test
    void aRestartedPrimaryTakesNoWriteUntilItsBackupConfirmsAndThenNoneIfItWasReplaced(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        dev.kvs.server.KvsNode backup = dev.kvs.server.KvsNode.start(dev.kvs.server.config.NodeConfig.builder()
                .name("b")
                .role(dev.kvs.replication.Role.BACKUP)
                .port(0)
                .adminPort(0)
                .replPort(0)
                .build());
        dev.kvs.wan.WanLink link = dev.kvs.wan.WanLink.builder()
                .target("127.0.0.1", backup.replPort())
                .build();
        dev.kvs.server.config.NodeConfig primaryConfig = dev.kvs.server.config.NodeConfig.builder()
                .name("p")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .mode(ReplicationMode.ASYNC)
                .peer("127.0.0.1:" + link.port())
                .replication(TwoDc.replication().build())
                .dataDir(dir)
                .build();
        try (backup;
                link) {
            try (dev.kvs.server.KvsNode primary = dev.kvs.server.KvsNode.start(primaryConfig);
                    Jedis p = new Jedis("127.0.0.1", primary.port())) {
                assertThat(p.set("k", "1")).isEqualTo("OK"); // a fresh cluster: no fence
            }
            // while the primary is down, its link is cut and the backup is promoted
            link.cut();
            try (Jedis bk = new Jedis("127.0.0.1", backup.port())) {
                assertThat(Admin.post(backup.adminPort(), "/promote")).contains("\"epoch\":2");
            }
            try (dev.kvs.server.KvsNode primary = dev.kvs.server.KvsNode.start(primaryConfig);
                    Jedis p = new Jedis("127.0.0.1", primary.port())) {
                assertThatThrownBy(() -> p.set("k", "2")).hasMessageStartingWith("FENCED");
                assertThat(p.get("k")).isEqualTo("1");
                link.heal();
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThat(p.info("replication")).contains("kvs_role:backup"));
                assertThatThrownBy(() -> p.set("k", "3")).hasMessageStartingWith("NOTPRIMARY");
            }
        }
    }
}
