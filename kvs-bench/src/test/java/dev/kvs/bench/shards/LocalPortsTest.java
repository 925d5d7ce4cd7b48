package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LocalPortsTest {

    @Test
    void threeShardsFrom7000UseOneBlockWithNoPortTwice() {
        LocalPorts ports = new LocalPorts(7000, 3);
        Set<Integer> all = new HashSet<>();
        for (int k = 0; k < 6; k++) {
            assertThat(all.add(ports.client(k))).isTrue();
            assertThat(all.add(ports.admin(k))).isTrue();
            assertThat(all.add(ports.replication(k))).isTrue();
        }
        for (int i = 0; i < 3; i++) assertThat(all.add(ports.link(i))).isTrue();
        assertThat(all.add(ports.zookeeper())).isTrue();
        assertThat(all).hasSize(ports.count()).allMatch(p -> p >= 7000 && p <= 7021);
        assertThat(ports.client(0)).isEqualTo(7000);
        assertThat(ports.client(5)).isEqualTo(7005);
        assertThat(ports.zookeeper()).isEqualTo(7021);
        assertThat(ports.use(7003)).isEqualTo("client port of shard-1-b");
        assertThat(ports.use(7006)).isEqualTo("admin port of shard-0-a");
        assertThat(ports.use(7017)).isEqualTo("replication port of shard-2-b");
        assertThat(ports.use(7019)).isEqualTo("the WAN link port of shard-1");
        assertThat(ports.use(7021)).isEqualTo("ZooKeeper's port");
    }

    @Test
    void boundsAreQuotedWhenBroken() {
        assertThatThrownBy(() -> new LocalPorts(7000, 0)).hasMessage("--shards is not in 1..16: 0");
        assertThatThrownBy(() -> new LocalPorts(7000, 17)).hasMessage("--shards is not in 1..16: 17");
        assertThatThrownBy(() -> new LocalPorts(80, 3))
                .hasMessage("--port is not in 1024..65514 (3 shards use 22 ports from it): 80");
        assertThatThrownBy(() -> new LocalPorts(65_515, 3))
                .hasMessage("--port is not in 1024..65514 (3 shards use 22 ports from it): 65515");
    }

    @Test
    void aTakenPortIsNamedWithWhatItWasFor() throws Exception {
        LocalPorts ports = LocalPorts.freeBlock(3);
        try (ServerSocket squatter = new ServerSocket(ports.client(3), 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(ports::checkFree)
                    .hasMessageStartingWith("port " + ports.client(3) + " (client port of shard-1-b) is taken")
                    .hasMessageEndingWith("the cluster needs ports " + ports.base() + "-" + ports.last()
                            + " free: choose another --port");
        }
    }
}
