package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.primary.Replicator;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.Transport;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A write of more keys than the replication key log has room for is refused with -BUSY, nothing
 * written, and the connection stays usable (it used to be dropped on "key log full").
 */
class FullKeyLogTest {
    private final EventLoopGroup group = Transport.NIO.group(1, "test-repl");
    /** Where the replicator would read values to ship: it never ships any here. */
    private final KvStore unshipped =
            KvStore.builder().maxEntries(10).maxBytes(1 << 16).open();

    private final Replicator replicator;
    private final RespChannel resp;

    FullKeyLogTest() throws Exception {
        NodeConfig config = NodeConfig.builder()
                .mode(ReplicationMode.ASYNC) // answered at once: only the key log's room matters here
                .store(StoreConfig.builder().maxEntries(1000).maxBytes(1 << 20).build())
                .build();
        // a backup that is never there: no key packet is ever acknowledged, so the log only fills
        replicator = Replicator.builder()
                .config(ReplicatorConfig.builder()
                        .maxUnackedKeys(2)
                        .writeTimeout(Duration.ofMillis(50))
                        .build())
                .store(unshipped)
                .peer(new InetSocketAddress("127.0.0.1", closedPort()))
                .group(group)
                .start();
        resp = new RespChannel(config, replicator);
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @AfterEach
    void close() {
        resp.close();
        replicator.close();
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        unshipped.close();
    }

    @Test
    void msetOfMoreKeysThanTheLogHasRoomForIsBusyAndWritesNothing() {
        assertThat(resp.command("SET", "a", "1")).isEqualTo("+OK\r\n"); // one of the two slots left

        assertThat(resp.command("MSET", "x", "1", "y", "2", "z", "3"))
                .startsWith("-BUSY ")
                .endsWith("nothing was written\r\n");

        assertThat(resp.channel.isActive()).isTrue();
        assertThat(resp.command("EXISTS", "x", "y", "z")).isEqualTo(":0\r\n");
        assertThat(resp.command("GET", "a")).isEqualTo("$1\r\n1\r\n");
        assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
    }
}
