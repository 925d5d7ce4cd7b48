package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.KvStore;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.auth.ClusterSecret;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.primary.Replicator;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.ChannelKind;
import dev.kvs.replication.wire.Frame.Hello;
import io.netty.buffer.Unpooled;
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
import org.junit.jupiter.api.Test;

/**
 * The replication port with a cluster secret: only a peer that proves it gets its {@code Hello} read;
 * a peer without it, with another one, replaying or forging a proof, idling, or announcing a huge
 * frame before its handshake is turned away, and the node's epoch does not move.
 */
class ReplicationAuthTest {
    private static final ClusterSecret SECRET = ClusterSecret.of("correct horse battery staple", "dc");
    private static final ClusterSecret OTHER = ClusterSecret.of("another secret, 24 bytes!", "dc");
    private static EventLoopGroup group;

    private final ReplicationServerTest.TestNode node = new ReplicationServerTest.TestNode("dc", "backup-1", 1);
    private final KvStore store = HeapKvStore.open();
    private final KvStore primaryStore = HeapKvStore.open();
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void startLoops() {
        group = new MultiThreadIoEventLoopGroup(4, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) resources.get(i).close();
        store.close();
        primaryStore.close();
    }

    private ReplicationServer listen(ClusterSecret secret, BackupConfig config) {
        ReplicationServer.Builder b =
                ReplicationServer.builder().store(store).node(node).group(group).config(config);
        if (secret != null) b.security(new LinkSecurity(secret, null));
        ReplicationServer s = b.start();
        resources.add(s);
        return s;
    }

    private ReplicationServer listen(ClusterSecret secret) {
        return listen(secret, BackupConfig.defaults());
    }

    private Replicator replicate(ReplicationServer server, ClusterSecret secret, long epoch) {
        Replicator.Builder b = Replicator.builder()
                .config(ReplicatorConfig.builder()
                        .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                        .build())
                .store(primaryStore)
                .identity("dc", "primary-1")
                .startAfter(epoch, 0)
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(group);
        if (secret != null) b.security(new LinkSecurity(secret, null));
        Replicator r = b.start();
        resources.add(r);
        return r;
    }

    private TestPrimary connect(ReplicationServer server) {
        TestPrimary p = TestPrimary.connect(group, server.port());
        resources.add(p);
        return p;
    }

    @Test
    void peersWithTheSameSecretReplicate() {
        ReplicationServer server = listen(SECRET);
        Replicator r = replicate(server, SECRET, 1);

        SyncWrite.reachesTheBackup(r, primaryStore, store, "v");
    }

    @Test
    void aPrimaryWithAnotherSecretOrNoneNeverStreamsAndItsEpochIsNotAdopted() {
        ReplicationServer server = listen(SECRET);
        Replicator wrong = replicate(server, OTHER, 7);
        Replicator none = replicate(server, null, 8);

        // both keep redialling: let the listener turn away several attempts of each
        await().atMost(Duration.ofSeconds(20)).until(() -> server.status().refusedConnections() >= 6);
        assertThat(wrong.status().streaming()).isFalse();
        assertThat(none.status().streaming()).isFalse();
        assertThat(node.epoch()).isEqualTo(1);
        assertThat(server.status().keyChannelConnected()).isFalse();
    }

    @Test
    void aPrimaryWithASecretRefusesABackupWithout() {
        ReplicationServer server = listen(null);
        Replicator r = replicate(server, SECRET, 1);

        await().atMost(Duration.ofSeconds(20)).until(() -> server.status().refusedConnections() >= 3);
        assertThat(r.status().streaming()).isFalse();
        assertThat(server.status().keyChannelConnected()).isFalse();
    }

    @Test
    void aHelloWithoutProofIsRefusedBeforeItIsRead() {
        ReplicationServer server = listen(SECRET);
        TestPrimary attacker = connect(server);

        attacker.send(new Hello("dc", "attacker", "primary", 99, ChannelKind.KEY, 0));

        Frame.Reject r = attacker.next(Frame.Reject.class);
        assertThat(r.reason()).isEqualTo(Frame.RejectReason.AUTH);
        attacker.awaitClosed();
        assertThat(node.epoch()).as("the forged epoch is not adopted").isEqualTo(1);
    }

    @Test
    void aForgedOrReplayedProofIsRefused() {
        ReplicationServer server = listen(SECRET);
        TestPrimary attacker = connect(server);

        attacker.send(new Frame.AuthInit(new byte[Frame.NONCE_BYTES]));
        Frame.AuthChallenge c = attacker.next(Frame.AuthChallenge.class);
        // a proof made for another listener nonce (as a replay would be) or just guessed
        attacker.send(new Frame.AuthProof(c.proof()));

        assertThat(attacker.next(Frame.Reject.class).reason()).isEqualTo(Frame.RejectReason.AUTH);
        attacker.awaitClosed();
        assertThat(server.status().keyChannelConnected()).isFalse();
    }

    @Test
    void aListenerWithoutASecretRefusesAPeerThatAuthenticates() {
        ReplicationServer server = listen(null);
        TestPrimary p = connect(server);

        p.send(new Frame.AuthInit(new byte[Frame.NONCE_BYTES]));

        assertThat(p.next(Frame.Reject.class).reason()).isEqualTo(Frame.RejectReason.AUTH);
        p.awaitClosed();
    }

    @Test
    void aConnectionThatSaysNothingIsClosedAfterTheHandshakeTimeout() {
        ReplicationServer server = listen(
                SECRET,
                BackupConfig.builder().authDeadline(Duration.ofMillis(200)).build());

        TestPrimary idle = connect(server);

        idle.awaitClosed();
        // counted when the listener's side has closed too, which may come just after the client sees it
        await().atMost(Duration.ofSeconds(10)).until(() -> server.status().refusedConnections() == 1);
    }

    @Test
    void aHugeFrameAnnouncedBeforeTheHandshakeIsRefusedWithoutBufferingIt() {
        ReplicationServer server = listen(SECRET);
        TestPrimary p = connect(server);

        // length 7 MiB, version, type: within the configured 8 MiB, far above a handshake frame
        p.sendRaw(Unpooled.buffer().writeInt(7 << 20).writeByte(Frame.VERSION).writeByte(1));

        p.awaitClosed();
    }
}
