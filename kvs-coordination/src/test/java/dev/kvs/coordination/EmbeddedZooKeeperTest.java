package dev.kvs.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.cluster.ClusterMap;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedZooKeeperTest {

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aMapWrittenBeforeARestartIsReadAfterIt(@TempDir Path dir) throws Exception {
        int port = freePort();
        ZkPaths paths = new ZkPaths("embedded");
        ZkClients.Settings settings =
                new ZkClients.Settings("127.0.0.1:" + port, Duration.ofSeconds(2), Optional.empty());
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir, port, 100);
                CuratorFramework client = ZkClients.start(settings)) {
            assertThat(zk.connectString()).isEqualTo("127.0.0.1:" + port);
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            new ClusterMapStore(client, paths).create(ClusterMap.evenly(List.of(List.of("a", "b"))));
        }
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir, port, 100);
                CuratorFramework client = ZkClients.start(settings)) {
            assertThat(client.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            assertThat(new ClusterMapStore(client, paths)
                            .read()
                            .orElseThrow()
                            .map()
                            .shard("shard-0")
                            .orElseThrow()
                            .members())
                    .containsExactly("a", "b");
        }
    }

    @Test
    void badSettingsAreRefused(@TempDir Path dir) {
        assertThatThrownBy(() -> EmbeddedZooKeeper.start(dir, 0, 100)).hasMessage("zookeeper port out of 1..65535: 0");
        assertThatThrownBy(() -> EmbeddedZooKeeper.start(dir, 2181, 1)).hasMessage("zookeeper tick < 10 ms: 1");
    }
}
