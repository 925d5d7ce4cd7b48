package dev.kvs.testing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QuietPortsTest {
    @Test
    void portsAreBelowTheEphemeralRangeDistinctAndBindable() throws Exception {
        int low = QuietPorts.ephemeralLow();
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            int port = QuietPorts.free();
            assertThat(port).isLessThan(low);
            assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(port));
                assertThat(socket.getLocalPort()).isEqualTo(port);
            }
        }
    }
}
