package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A node whose port is taken fails with one line naming the address and which port, and releases the
 * ports it had already bound.
 */
class PortInUseTest {
    private static final String LOOPBACK = "127.0.0.1";

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK))) {
            return s.getLocalPort();
        }
    }

    private static ServerSocket occupy() throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(LOOPBACK, 0));
        return s;
    }

    private static NodeConfig.Builder backup(int port, int replPort, int adminPort) {
        return NodeConfig.builder()
                .role(Role.BACKUP)
                .bind(LOOPBACK)
                .port(port)
                .replPort(replPort)
                .adminPort(adminPort)
                .store(StoreConfig.builder()
                        .maxEntries(1_000)
                        .maxBytes(16L << 20)
                        .build());
    }

    /** Waits until {@code port} can be bound again: the failed node closed it. */
    private static void assertReleased(int port) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(LOOPBACK, port));
                assertThat(s.getLocalPort()).isEqualTo(port);
            }
        });
    }

    @Test
    void clientPortInUseIsNamedAndTheReplicationPortIsReleased() throws IOException {
        int repl = freePort();
        int admin = freePort();
        try (ServerSocket taken = occupy()) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> KvsNode.start(backup(port, repl, admin).build()))
                    .isInstanceOf(NodeStartException.class)
                    .hasMessage("cannot listen on 127.0.0.1:" + port + " (client port): address already in use");
        }
        assertReleased(repl); // the backup had bound it before the client port failed
        assertReleased(admin);
    }

    @Test
    void adminPortInUseIsNamedAndTheOtherPortsAreReleased() throws IOException {
        int port = freePort();
        int repl = freePort();
        try (ServerSocket taken = occupy()) {
            int admin = taken.getLocalPort();
            assertThatThrownBy(() -> KvsNode.start(backup(port, repl, admin).build()))
                    .isInstanceOf(NodeStartException.class)
                    .hasMessage("cannot listen on 127.0.0.1:" + admin + " (admin port): address already in use");
        }
        assertReleased(port);
        assertReleased(repl);
    }

    @Test
    void replicationPortInUseIsNamed() throws IOException {
        int port = freePort();
        int admin = freePort();
        try (ServerSocket taken = occupy()) {
            int repl = taken.getLocalPort();
            assertThatThrownBy(() -> KvsNode.start(backup(port, repl, admin).build()))
                    .isInstanceOf(NodeStartException.class)
                    .hasMessage("cannot listen on 127.0.0.1:" + repl + " (replication port): address already in use");
        }
        assertReleased(port);
        assertReleased(admin);
    }
}
