package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.kvs.core.KvStore;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.auth.ClusterSecret;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.primary.Replicator;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.ChannelKind;
import dev.kvs.replication.wire.Frame.Hello;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Strangers against the replication port (issue 32): idle squatters, from one source address or many,
 * cannot keep the configured peer out; a full pool closes its oldest connection rather than refuse the
 * newcomer; a slow authentication is cut at the deadline; a tight loop of refused connections writes a
 * few WARN lines, not one per connection. Strangers connect from other loopback addresses (127.0.0.2
 * and up), the peer from 127.0.0.1.
 */
class ReplicationListenerAbuseTest {
    private static final ClusterSecret SECRET = ClusterSecret.of("correct horse battery staple", "dc");
    private static final Duration LONG = Duration.ofSeconds(60);
    private static EventLoopGroup group;

    private final ReplicationServerTest.TestNode node = new ReplicationServerTest.TestNode("dc", "backup-1", 1);
    private final KvStore store = HeapKvStore.open();
    private final KvStore primaryStore = HeapKvStore.open();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger replicationLogger = (Logger) LoggerFactory.getLogger("dev.kvs.replication");

    @BeforeAll
    static void startLoops() {
        group = new MultiThreadIoEventLoopGroup(4, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void captureLogs() {
        logged.start();
        replicationLogger.addAppender(logged);
    }

    @AfterEach
    void closeEverything() throws Exception {
        replicationLogger.detachAppender(logged);
        for (int i = resources.size() - 1; i >= 0; i--) resources.get(i).close();
        store.close();
        primaryStore.close();
    }

    private ReplicationServer listen(ClusterSecret secret, BackupConfig config, String peerHost) {
        ReplicationServer.Builder b =
                ReplicationServer.builder().store(store).node(node).group(group).config(config);
        if (secret != null) b.security(new LinkSecurity(secret, null));
        if (peerHost != null) b.peerHost(peerHost);
        ReplicationServer s = b.start();
        resources.add(s);
        return s;
    }

    private TestPrimary connectFrom(ReplicationServer server, String from) {
        TestPrimary p = TestPrimary.connectFrom(group, server.port(), from);
        resources.add(p);
        return p;
    }

    /** Connects and starts authenticating: once the challenge is back, the listener has admitted it. */
    private TestPrimary squat(ReplicationServer server, String from) {
        TestPrimary p = connectFrom(server, from);
        p.send(new Frame.AuthInit(new byte[Frame.NONCE_BYTES]));
        p.next(Frame.AuthChallenge.class);
        return p;
    }

    @Test
    void squattersFromOneAddressCannotKeepThePeerOut() {
        // the deadline far away: only the pools can let the peer in
        ReplicationServer server =
                listen(SECRET, BackupConfig.builder().authDeadline(LONG).build(), "127.0.0.1");
        for (int i = 0; i < 20; i++)
            connectFrom(server, "127.0.0.2").send(new Frame.AuthInit(new byte[Frame.NONCE_BYTES]));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            BackupStatus st = server.status();
            return st.connectionsInHandshake() + st.refusedConnections() == 20;
        });

        Replicator r = Replicator.builder()
                .config(ReplicatorConfig.builder()
                        .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                        .build())
                .store(primaryStore)
                .identity("dc", "primary-1")
                .startAfter(1, 0)
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(group)
                .security(new LinkSecurity(SECRET, null))
                .start();
        resources.add(r);

        SyncWrite.reachesTheBackup(r, primaryStore, store, "v");
        assertThat(server.status().droppedConnections())
                .as("squatters beyond 4 from one address")
                .isEqualTo(16);
    }

    @Test
    void strangersCannotPushOutAConnectionFromThePeersAddress() {
        ReplicationServer server = listen(
                null,
                BackupConfig.builder()
                        .maxHandshakes(2)
                        .maxHandshakesPerSource(1)
                        .authDeadline(LONG)
                        .build(),
                "127.0.0.1");
        TestPrimary peer = connectFrom(server, "127.0.0.1");
        await().atMost(Duration.ofSeconds(10)).until(() -> server.status().connectionsInHandshake() == 1);
        for (int i = 1; i <= 6; i++) {
            connectFrom(server, "127.0.0." + (1 + i));
            int admitted = 1 + i;
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                BackupStatus st = server.status();
                return st.connectionsInHandshake() + st.droppedConnections() == admitted;
            });
        }
        assertThat(server.status().droppedConnections())
                .as("strangers pushed out by strangers")
                .isEqualTo(4);

        peer.send(new Hello("dc", "primary-1", "primary", 1, ChannelKind.KEY, 0));

        assertThat(peer.next()).isInstanceOf(Frame.Welcome.class);
        assertThat(server.status().keyChannelConnected()).isTrue();
    }

    @Test
    void whenFullTheOldestConnectionIsClosedToMakeRoom() {
        ReplicationServer server = listen(
                SECRET,
                BackupConfig.builder().maxHandshakes(3).authDeadline(LONG).build(),
                null);
        List<TestPrimary> first = new ArrayList<>();
        for (int i = 2; i <= 4; i++) first.add(squat(server, "127.0.0." + i));

        TestPrimary newcomer = squat(server, "127.0.0.5");

        first.get(0).awaitClosed();
        assertThat(first.subList(1, 3)).allMatch(TestPrimary::isOpen);
        assertThat(newcomer.isOpen()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> server.status().refusedConnections() == 1);
        assertThat(server.status().droppedConnections()).isEqualTo(1);
    }

    @Test
    void aSourceAtItsCapLosesItsOwnOldestConnection() {
        ReplicationServer server = listen(
                SECRET,
                BackupConfig.builder()
                        .maxHandshakesPerSource(2)
                        .authDeadline(LONG)
                        .build(),
                null);
        TestPrimary a1 = squat(server, "127.0.0.2");
        TestPrimary b1 = squat(server, "127.0.0.3");
        TestPrimary a2 = squat(server, "127.0.0.2");

        TestPrimary a3 = squat(server, "127.0.0.2");

        a1.awaitClosed();
        assertThat(List.of(b1, a2, a3)).allMatch(TestPrimary::isOpen);
    }

    @Test
    void theDefaultDeadlineClosesAConnectionThatAuthenticatesTooSlowly() {
        ReplicationServer server = listen(SECRET, BackupConfig.defaults(), null);
        // a slow dialler: it has its challenge, and its proof never comes
        TestPrimary slow = squat(server, "127.0.0.2");

        // the default is 2 s; 10 s before issue 32
        await().atMost(Duration.ofSeconds(5)).until(() -> !slow.isOpen());
        await().atMost(Duration.ofSeconds(5)).until(() -> server.status().refusedConnections() == 1);
        assertThat(logged.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .anyMatch(m -> m.contains("no handshake within 2000 ms"));
    }

    @Test
    void aTightLoopOfRefusedConnectionsWritesAFewWarnLines() {
        ReplicationServer server = listen(SECRET, BackupConfig.defaults(), null);
        int attempts = 600;
        for (int i = 0; i < attempts; i++) {
            TestPrimary p = connectFrom(server, "127.0.0." + (2 + i % 8));
            if (i % 2 == 0) {
                // refused: a Hello without the proof of the secret
                p.send(new Hello("dc", "attacker", "primary", 99, ChannelKind.KEY, 0));
            } else if (i % 4 == 1) {
                // refused: not a frame the handshake knows
                p.send(new Frame.Heartbeat(1, false));
            }
            // else: idle, closed later to make room for newer ones
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> server.status().refusedConnections() >= attempts - 32);
        long warnings =
                logged.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
        // a line per kind of refusal per 10 s: three kinds here
        assertThat(warnings)
                .as("WARN lines for %d refused connections", attempts)
                .isBetween(1L, 9L);
        assertThat(node.epoch()).isEqualTo(1);
    }

    @Test
    void aPrimaryRejectedOnEveryReconnectWritesAFewWarnLines() {
        ReplicationServer server = listen(null, BackupConfig.defaults(), null);
        Replicator r = Replicator.builder()
                .config(ReplicatorConfig.builder()
                        .reconnect(Duration.ofMillis(1), Duration.ofMillis(2))
                        .build())
                .store(primaryStore)
                .identity("another-cluster", "primary-1")
                .startAfter(1, 0)
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(group)
                .start();
        resources.add(r);

        // each attempt is rejected (CLUSTER_MISMATCH) on both sides, and redialled within 2 ms
        await().atMost(Duration.ofSeconds(30)).until(() -> server.status().refusedConnections() >= 300);
        r.close();
        long warnings =
                logged.list.stream().filter(e -> e.getLevel() == Level.WARN).count();
        // a line per kind per 10 s: the backup's reject, the key channel's and the value streams' rejections
        assertThat(warnings).as("WARN lines for 300 rejected connections").isBetween(1L, 9L);
    }
}
