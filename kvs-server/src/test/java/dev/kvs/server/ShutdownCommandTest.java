package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.config.UserConfig.Role;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/** SHUTDOWN on a real node: the same clean stop as SIGTERM, for admin users only. */
class ShutdownCommandTest {
    private static NodeConfig.Builder config() {
        return NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .store(StoreConfig.builder().maxEntries(1000).maxBytes(16 << 20).build());
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void shutdownStopsTheNodeAndClosesTheConnectionWithoutAReply() throws Exception {
        KvsNode node = KvsNode.start(config().build());
        try (Jedis j = new Jedis("127.0.0.1", node.port());
                Socket s = new Socket("127.0.0.1", node.port())) {
            j.set("k", "v");
            s.setSoTimeout(30_000);
            s.getOutputStream().write("*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n".getBytes());
            s.getOutputStream().flush();
            assertThat(s.getInputStream().read()).as("end of stream, no reply").isEqualTo(-1);
            node.awaitTermination(); // the node stopped as with SIGTERM
            assertThat(accepts(node.port())).isFalse();
        } finally {
            node.close();
        }
    }

    @Test
    void refusalsLeaveTheNodeServing() throws Exception {
        try (KvsNode node = KvsNode.start(config().build());
                Jedis j = new Jedis("127.0.0.1", node.port())) {
            assertThatThrownBy(() -> j.sendCommand(() -> "SHUTDOWN".getBytes(), "SAVE"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR Errors trying to SHUTDOWN. SAVE: this node's store is in memory only");
            assertThatThrownBy(() -> j.sendCommand(() -> "SHUTDOWN".getBytes(), "SAVE", "NOSAVE"))
                    .hasMessage("ERR syntax error");
            assertThatThrownBy(() -> j.sendCommand(() -> "SHUTDOWN".getBytes(), "LATER"))
                    .hasMessage("ERR syntax error");
            assertThatThrownBy(() -> j.sendCommand(() -> "SHUTDOWN".getBytes(), "ABORT"))
                    .hasMessage("ERR No shutdown in progress.");
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void onlyAdminsMayShutDown() throws Exception {
        NodeConfig c = config().user(UserConfig.withPassword("writer", "w-pass", Role.READWRITE))
                .user(UserConfig.withPassword("ops", "o-pass", Role.ADMIN))
                .admin(AdminConfig.defaults().withTrustLoopback(true))
                .build();
        KvsNode node = KvsNode.start(c);
        try {
            try (Jedis j = new Jedis("127.0.0.1", node.port())) {
                j.auth("writer", "w-pass");
                assertThatThrownBy(() -> j.sendCommand(() -> "SHUTDOWN".getBytes(), "NOW"))
                        .isInstanceOf(JedisDataException.class)
                        .hasMessage("NOPERM this user has no permissions to run the 'shutdown' command");
                assertThat(j.ping()).isEqualTo("PONG");
            }
            try (Socket s = new Socket("127.0.0.1", node.port())) {
                s.setSoTimeout(30_000);
                s.getOutputStream()
                        .write(("*3\r\n$4\r\nAUTH\r\n$3\r\nops\r\n$6\r\no-pass\r\n"
                                        + "*2\r\n$8\r\nSHUTDOWN\r\n$3\r\nNOW\r\n")
                                .getBytes());
                byte[] reply = s.getInputStream().readAllBytes(); // until the node closes the connection
                assertThat(new String(reply)).isEqualTo("+OK\r\n"); // AUTH's; SHUTDOWN has none
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> !accepts(node.port()));
            node.awaitTermination();
        } finally {
            node.close();
        }
    }
}
