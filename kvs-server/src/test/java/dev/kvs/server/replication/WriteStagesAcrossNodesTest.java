package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The stages a benchmark records ({@code ./kvs bench jmh --stages}) are marked by the parts the two nodes
 * were given one recording through: the primary's client port and replication, and the backup's.
 */
class WriteStagesAcrossNodesTest {
    @Test
    void aRecordingGivenToBothNodesSeesASyncWriteOnEachSide() {
        WriteStages stages = WriteStages.recording(10);
        try (KvsNode backup = KvsNode.start(
                        NodeConfig.builder()
                                .name("stages-backup")
                                .role(Role.BACKUP)
                                .port(0)
                                .adminPort(0)
                                .replPort(0)
                                .build(),
                        stages);
                KvsNode primary = KvsNode.start(
                        NodeConfig.builder()
                                .name("stages-primary")
                                .role(Role.PRIMARY)
                                .port(0)
                                .adminPort(0)
                                .replPort(0)
                                .peer("127.0.0.1:" + backup.replPort())
                                .mode(ReplicationMode.SYNC)
                                .replication(TwoDc.replication().build())
                                .build(),
                        stages);
                Jedis client = new Jedis("127.0.0.1", primary.port(), 30_000)) {
            assertThat(client.set("k", "first")).isEqualTo("OK"); // answered once the link is up and it applied
            stages.restart();

            stages.begin();
            assertThat(client.set("k", "traced")).isEqualTo("OK");
            stages.end();

            assertThat(stages.writes()).isEqualTo(1);
            assertThat(stages.table())
                    .contains("| the command is dispatched (all of it received) |")
                    .contains("| the write commits on the primary |")
                    .contains("| the replication event loop's task runs |")
                    .contains("| the value's first frame is written |")
                    .contains("| the value's first frame is read on the backup |")
                    .contains("| the value is applied on the backup |")
                    .contains("| the value's ack reaches the primary |")
                    .contains("| the reply is written on the client loop |");
        }
    }
}
