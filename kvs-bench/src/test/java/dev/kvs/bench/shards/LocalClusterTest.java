package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.NodeIds;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvs cluster}'s core on this machine: 3 shards, 6 node processes, an embedded ZooKeeper. It
 * checks what the nodes say on their admin ports and what ZooKeeper holds; whether the nodes answer
 * {@code CLUSTER SLOTS} from the live map is the node's business (not wired yet), not checked here.
 */
class LocalClusterTest {

    @Test
    void threeShardsComeUpEachPrimaryUnderItsLeaseAndNothingOutlivesTheStop(@TempDir Path dir) throws Exception {
        LocalPorts ports = LocalPorts.freeBlock(3);
        LocalCluster.Settings settings = new LocalCluster.Settings(
                "launch-test",
                3,
                ports.base(),
                Duration.ofMillis(1),
                Duration.ofSeconds(6),
                "256m",
                Duration.ofSeconds(120));
        List<Long> pids;
        try (ChildProcesses children = new ChildProcesses();
                LocalCluster cluster = LocalCluster.start(settings, dir, JavaCommand.current(), children)) {
            assertThat(cluster.nodes()).hasSize(6);
            pids = cluster.nodes().stream().map(n -> n.process().pid()).toList();
            for (int k = 0; k < 6; k++) {
                LocalCluster.Node n = cluster.nodes().get(k);
                assertThat(n.process().isAlive()).isTrue();
                assertThat(n.ports().client()).isEqualTo(ports.client(k));
                assertThat(n.ports().admin()).isEqualTo(ports.admin(k));
                assertThat(n.ports().repl()).isEqualTo(ports.replication(k));
                JsonNode status = cluster.admin(n, "/status");
                JsonNode coordination = status.path("coordination");
                assertThat(coordination.path("node").asText()).isEqualTo(NodeIds.of("launch-test", n.name()));
                assertThat(coordination.path("shard").asText()).isEqualTo("shard-" + k / 2);
                assertThat(coordination.path("connected").asBoolean())
                        .as(n.name())
                        .isTrue();
                if (k % 2 == 0) {
                    assertThat(status.path("role").asText()).as(n.name()).isEqualTo("primary");
                    assertThat(coordination.path("lease").path("held").asBoolean())
                            .as(n.name() + " " + coordination)
                            .isTrue();
                    assertThat(status.path("replication").path("state").asText())
                            .isEqualTo("streaming");
                } else {
                    assertThat(status.path("role").asText()).as(n.name()).isEqualTo("backup");
                    assertThat(status.path("backup").path("keyChannelConnected").asBoolean())
                            .as(n.name())
                            .isTrue();
                }
            }
            assertThat(ports.use(ports.client(0))).isEqualTo("client port of shard-0-a");

            ClusterMap stored = readMap(cluster.zookeeper(), dir.resolve("zookeeper.credentials"), "launch-test");
            assertThat(stored).isEqualTo(cluster.map());
            // every slot owned by exactly one shard, each shard's primary its DC-a node
            int[] owners = new int[HashSlots.SLOTS];
            for (Shard s : stored.shards()) {
                s.slots().forEach(r -> {
                    for (int slot = r.first(); slot <= r.last(); slot++) owners[slot]++;
                });
                assertThat(s.epoch()).isEqualTo(1);
                assertThat(s.primary()).isEqualTo(NodeIds.of("launch-test", s.id() + "-a"));
            }
            for (int slot = 0; slot < HashSlots.SLOTS; slot++)
                assertThat(owners[slot]).as("slot %d", slot).isOne();
        }
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("node process %d after the stop", pid)
                    .isFalse();
        }
        ports.checkFree(); // ZooKeeper's port and the links' are released too
    }

    private static ClusterMap readMap(String zookeeper, Path credentialsFile, String cluster) throws Exception {
        String credentials = Files.readString(credentialsFile).strip();
        try (CuratorFramework zk =
                ZkClients.start(new ZkClients.Settings(zookeeper, Duration.ofSeconds(6), Optional.of(credentials)))) {
            assertThat(zk.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            return new ClusterMapStore(zk, new ZkPaths(cluster))
                    .read()
                    .orElseThrow()
                    .map();
        }
    }
}
