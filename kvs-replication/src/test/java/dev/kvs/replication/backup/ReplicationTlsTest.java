package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.KvStore;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.TlsFiles;
import dev.kvs.replication.auth.ClusterSecret;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.auth.ReplicationTls;
import dev.kvs.replication.primary.Replicator;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.ChannelKind;
import dev.kvs.replication.wire.Frame.Hello;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replication over mutual TLS with throwaway certificates: peers whose certificates one CA signed
 * replicate; a peer of another CA, a peer whose certificate does not carry the expected name, and a
 * plain-TCP client are turned away before any frame is read.
 */
class ReplicationTlsTest {
    private static EventLoopGroup group;
    private static X509Bundle ca;
    private static X509Bundle otherCa;

    private final ReplicationServerTest.TestNode node = new ReplicationServerTest.TestNode("dc", "backup-1", 1);
    private final KvStore store = HeapKvStore.open();
    private final KvStore primaryStore = HeapKvStore.open();
    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(4, NioIoHandler.newFactory());
        ca = authority("CN=kvs test CA");
        otherCa = authority("CN=someone else's CA");
    }

    @AfterAll
    static void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) resources.get(i).close();
        store.close();
        primaryStore.close();
    }

    private static X509Bundle authority(String subject) throws Exception {
        return new CertificateBuilder()
                .subject(subject)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
    }

    /** A node certificate naming {@code name}, 127.0.0.1 and localhost, signed by {@code issuer}. */
    private static TlsFiles node(X509Bundle issuer, String name, Optional<String> peerName) throws Exception {
        X509Bundle leaf = new CertificateBuilder()
                .subject("CN=" + name)
                .notBefore(Instant.now().minusSeconds(60))
                .notAfter(Instant.now().plus(Duration.ofDays(1)))
                .addSanDnsName(name)
                .addSanDnsName("localhost")
                .addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth()
                .addExtendedKeyUsageClientAuth()
                .ecp256()
                .buildIssuedBy(issuer);
        return new TlsFiles(
                leaf.toTempCertChainPem().toPath(),
                leaf.toTempPrivateKeyPem().toPath(),
                ca.toTempRootCertPem().toPath(),
                peerName);
    }

    private ReplicationServer listen(LinkSecurity security) {
        ReplicationServer s = ReplicationServer.builder()
                .store(store)
                .node(node)
                .group(group)
                .security(security)
                .start();
        resources.add(s);
        return s;
    }

    private Replicator replicate(ReplicationServer server, LinkSecurity security) {
        Replicator r = Replicator.builder()
                .config(ReplicatorConfig.builder()
                        .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                        .build())
                .store(primaryStore)
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(group)
                .security(security)
                .start();
        resources.add(r);
        return r;
    }

    private static LinkSecurity tls(TlsFiles files) {
        return new LinkSecurity(null, ReplicationTls.of(files));
    }

    @Test
    void peersOfOneCaReplicateAndTheSecretWorksOverTls() throws Exception {
        ClusterSecret secret = ClusterSecret.of("tls and a secret, both", "dc");
        ReplicationServer server =
                listen(new LinkSecurity(secret, ReplicationTls.of(node(ca, "backup-1", Optional.of("primary-1")))));
        Replicator r = replicate(
                server, new LinkSecurity(secret, ReplicationTls.of(node(ca, "primary-1", Optional.of("backup-1")))));

        SyncWrite.reachesTheBackup(r, primaryStore, store, "over TLS");
    }

    @Test
    void aPrimaryWhoseCertificateAnotherCaSignedIsRefused() throws Exception {
        ReplicationServer server = listen(tls(node(ca, "backup-1", Optional.empty())));
        Replicator r = replicate(server, tls(node(otherCa, "primary-1", Optional.empty())));

        await().atMost(Duration.ofSeconds(20)).until(() -> server.status().refusedConnections() >= 3);
        assertThat(r.status().streaming()).isFalse();
        assertThat(server.status().keyChannelConnected()).isFalse();
    }

    @Test
    void aPeerWithoutTheExpectedNameIsRefused() throws Exception {
        ReplicationServer server = listen(tls(node(ca, "backup-1", Optional.of("primary-1"))));
        Replicator r = replicate(server, tls(node(ca, "impostor", Optional.of("backup-1"))));

        await().atMost(Duration.ofSeconds(20)).until(() -> server.status().refusedConnections() >= 3);
        assertThat(r.status().streaming()).isFalse();
    }

    @Test
    void aPlainTcpClientIsClosedBeforeAnyFrameIsRead() throws Exception {
        ReplicationServer server = listen(tls(node(ca, "backup-1", Optional.empty())));
        TestPrimary plain = TestPrimary.connect(group, server.port());
        resources.add(plain);

        plain.send(new Hello("dc", "attacker", "primary", 99, ChannelKind.KEY, 0));

        plain.awaitClosed();
        assertThat(plain.received()).noneMatch(f -> f instanceof Frame.Welcome);
        assertThat(node.epoch()).isEqualTo(1);
    }

    @Test
    void aConnectionWithAVerifiedCertificateIsNotPushedOutByStrangers() throws Exception {
        // no peer host: only the certificate can tell the peer from the strangers
        ReplicationServer server = ReplicationServer.builder()
                .store(store)
                .node(node)
                .group(group)
                .security(tls(node(ca, "backup-1", Optional.of("primary-1"))))
                .config(BackupConfig.builder()
                        .maxHandshakes(2)
                        .maxHandshakesPerSource(1)
                        .build())
                .start();
        resources.add(server);
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
        ReplicationTls primaryTls = ReplicationTls.of(node(ca, "primary-1", Optional.of("backup-1")));
        BlockingQueue<Frame> received = new LinkedBlockingQueue<>();
        Channel peer = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(primaryTls.clientHandler(ch, address));
                        FrameCodec.install(ch.pipeline(), 1 << 20);
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<Frame>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Frame f) {
                                received.add(f);
                            }
                        });
                    }
                })
                .connect(address)
                .syncUninterruptibly()
                .channel();
        resources.add(() -> peer.close().syncUninterruptibly());
        assertThat(peer.pipeline().get(SslHandler.class).handshakeFuture().awaitUninterruptibly(10_000))
                .isTrue();
        for (int i = 1; i <= 4; i++) {
            TestPrimary stranger = TestPrimary.connectFrom(group, server.port(), "127.0.0." + (1 + i));
            resources.add(stranger);
            int admitted = 1 + i;
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                BackupStatus st = server.status();
                return st.connectionsInHandshake() + st.droppedConnections() == admitted;
            });
        }

        peer.writeAndFlush(new Hello("dc", "primary-1", "primary", 1, ChannelKind.KEY, 0));

        assertThat(received.poll(10, TimeUnit.SECONDS)).isInstanceOf(Frame.Welcome.class);
        assertThat(server.status().droppedConnections())
                .as("strangers pushed out by strangers")
                .isEqualTo(2);
    }
}
