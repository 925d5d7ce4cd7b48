package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.server.config.NodeConfig;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** Each port listens on its own address: the admin port can stay on an address clients cannot reach. */
class PortAddressesTest {
    @Test
    void theAdminPortListensOnlyOnItsOwnAddress() throws Exception {
        try (KvsNode node = KvsNode.start(NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .bind("127.0.0.1")
                .adminBind("127.0.0.2")
                .build())) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.2", node.adminPort()), 5_000);
                assertThat(s.isConnected()).isTrue();
            }
            assertThatThrownBy(() -> {
                        try (Socket s = new Socket()) {
                            s.connect(new InetSocketAddress("127.0.0.1", node.adminPort()), 5_000);
                        }
                    })
                    .isInstanceOf(ConnectException.class);
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", node.port()), 5_000);
                assertThat(s.isConnected()).isTrue();
            }
        }
    }
}
