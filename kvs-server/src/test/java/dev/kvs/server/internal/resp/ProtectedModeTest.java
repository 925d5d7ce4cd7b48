package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.server.config.NodeConfig;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.junit.jupiter.api.Test;

/**
 * Redis's protected mode: a node without requirepass whose client port listens beyond loopback
 * serves only loopback clients; others get -DENIED and are closed, unless protectedMode is false.
 * (Remote addresses are simulated: no traffic leaves the machine.)
 */
class ProtectedModeTest {
    /** A documentation address (TEST-NET-3): another host. */
    private static final SocketAddress OTHER_HOST = new InetSocketAddress("203.0.113.7", 50_000);

    private static final SocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 50_000);
    private static final SocketAddress LOOPBACK_V6 = new InetSocketAddress("::1", 50_000);

    private static NodeConfig.Builder everyInterface() {
        return NodeConfig.builder().bind("0.0.0.0");
    }

    private static RespChannel client(NodeConfig config, SocketAddress remote) {
        return new RespChannel(config, null, remote, false);
    }

    @Test
    void anotherHostIsDeniedAndClosed() {
        try (RespChannel resp = client(everyInterface().build(), OTHER_HOST)) {
            String reply = resp.drain();

            assertThat(reply).startsWith("-DENIED ").contains("protected mode").endsWith("\r\n");
            assertThat(reply.indexOf('\n')).as("one line").isEqualTo(reply.length() - 1);
            assertThat(resp.channel.isActive()).isFalse();
            assertThat(resp.server.stats().protectedModeDenials.sum()).isEqualTo(1);
        }
    }

    @Test
    void loopbackClientsAreServed() {
        for (SocketAddress local : new SocketAddress[] {LOOPBACK, LOOPBACK_V6}) {
            try (RespChannel resp = client(everyInterface().build(), local)) {
                assertThat(resp.drain()).isEmpty();
                assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
            }
        }
    }

    @Test
    void offServesAnotherHost() {
        try (RespChannel resp = client(everyInterface().protectedMode(false).build(), OTHER_HOST)) {
            assertThat(resp.drain()).isEmpty();
            assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void aPasswordLiftsIt() {
        try (RespChannel resp = client(everyInterface().requirepass("s3cret").build(), OTHER_HOST)) {
            assertThat(resp.drain()).isEmpty();
            assertThat(resp.command("GET", "k")).startsWith("-NOAUTH");
            assertThat(resp.command("AUTH", "s3cret")).isEqualTo("+OK\r\n");
        }
    }

    @Test
    void aLoopbackBindNeedsNoProtection() {
        try (RespChannel resp = client(NodeConfig.builder().bind("127.0.0.1").build(), OTHER_HOST)) {
            assertThat(resp.drain()).isEmpty();
            assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
        }
    }
}
