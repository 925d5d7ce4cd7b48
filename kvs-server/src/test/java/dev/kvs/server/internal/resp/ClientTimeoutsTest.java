package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Silent connections cannot hold the client port: an unauthenticated one is closed after
 * authTimeoutSeconds (only with requirepass), and any idle one after timeoutSeconds if set.
 */
class ClientTimeoutsTest {
    private static NodeConfig.Builder config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder().maxBytes(16 << 20).build());
    }

    private static RespChannel frozen(NodeConfig config) {
        return new RespChannel(config, null, null, true);
    }

    @Test
    void anUnauthenticatedConnectionIsClosedAfterTheAuthTimeout() {
        try (RespChannel resp =
                frozen(config().requirepass("s3cret").authTimeoutSeconds(10).build())) {
            resp.advanceTime(9, TimeUnit.SECONDS);
            assertThat(resp.command("GET", "k")).startsWith("-NOAUTH");
            assertThat(resp.channel.isActive()).isTrue();

            resp.advanceTime(1, TimeUnit.SECONDS);

            assertThat(resp.drain()).startsWith("-ERR authentication timeout");
            assertThat(resp.channel.isActive()).isFalse();
            assertThat(resp.server.stats().authTimeouts.sum()).isEqualTo(1);
        }
    }

    @Test
    void anAuthenticatedConnectionOutlivesTheAuthTimeout() {
        try (RespChannel resp =
                frozen(config().requirepass("s3cret").authTimeoutSeconds(10).build())) {
            assertThat(resp.command("AUTH", "s3cret")).isEqualTo("+OK\r\n");

            resp.advanceTime(1, TimeUnit.HOURS);

            assertThat(resp.channel.isActive()).isTrue();
            assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void withoutRequirepassThereIsNoAuthTimeout() {
        try (RespChannel resp = frozen(config().authTimeoutSeconds(10).build())) {
            resp.advanceTime(1, TimeUnit.HOURS);

            assertThat(resp.channel.isActive()).isTrue();
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheTimeoutCountedFromItsLastCommand() {
        try (RespChannel resp = frozen(config().timeoutSeconds(60).build())) {
            resp.advanceTime(50, TimeUnit.SECONDS);
            assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
            resp.advanceTime(50, TimeUnit.SECONDS);
            assertThat(resp.channel.isActive())
                    .as("50 s after its last command")
                    .isTrue();

            resp.advanceTime(10, TimeUnit.SECONDS);

            assertThat(resp.channel.isActive()).isFalse();
            assertThat(resp.server.stats().idleTimeouts.sum()).isEqualTo(1);
        }
    }

    @Test
    void aConnectionOwedAReplyIsNotIdle() {
        AckOnDemandReplication backup = new AckOnDemandReplication();
        try (RespChannel resp = new RespChannel(config().timeoutSeconds(60).build(), backup, null, true)) {
            assertThat(resp.command("SET", "k", "v"))
                    .as("waits for the backup's ack")
                    .isEmpty();

            resp.advanceTime(5, TimeUnit.MINUTES);
            assertThat(resp.channel.isActive()).isTrue();

            backup.ackAll();
            resp.channel.runPendingTasks();
            assertThat(resp.drain()).isEqualTo("+OK\r\n");
            resp.advanceTime(59, TimeUnit.SECONDS);
            assertThat(resp.channel.isActive()).as("59 s after its reply").isTrue();
            resp.advanceTime(1, TimeUnit.SECONDS);
            assertThat(resp.channel.isActive()).isFalse();
        }
    }

    @Test
    void noTimeoutByDefault() {
        assertThat(NodeConfig.builder().build().timeoutSeconds()).isZero();
        try (RespChannel resp = frozen(config().build())) {
            resp.advanceTime(1, TimeUnit.DAYS);

            assertThat(resp.channel.isActive()).isTrue();
        }
    }

    /** The review's lock-out: maxClients silent unauthenticated sockets kept every real client out. */
    @Test
    void silentSocketsHoldMaxClientsOnlyUntilTheAuthTimeout() throws Exception {
        NodeConfig c = config().port(0)
                .requirepass("s3cret")
                .maxClients(3)
                .authTimeoutSeconds(1)
                .build();
        try (LiveRespServer live = new LiveRespServer(c)) {
            for (int i = 0; i < 3; i++) live.connect();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> live.stats().connected.get() == 3);
            Socket refused = live.connect();
            assertThat(LiveRespServer.readLine(refused)).isEqualTo("-ERR max number of clients reached");

            await().atMost(Duration.ofSeconds(20)).until(() -> authenticates(live));
        }
    }

    private static boolean authenticates(LiveRespServer live) {
        Socket s = live.connect();
        LiveRespServer.send(s, "AUTH s3cret\r\n");
        return "+OK".equals(LiveRespServer.readLine(s));
    }
}
