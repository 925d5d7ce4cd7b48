package dev.kvs.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.testing.zookeeper.Ensemble;
import dev.kvs.wan.WanLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ZkClientsTest {
    private static Ensemble ensemble;

    @BeforeAll
    static void start() throws Exception {
        ensemble = new Ensemble();
    }

    @AfterAll
    static void stop() throws Exception {
        if (ensemble != null) ensemble.close();
    }

    private static CuratorFramework connect(Optional<String> credentials) throws InterruptedException {
        CuratorFramework zk =
                ZkClients.start(new ZkClients.Settings(ensemble.connectString(), Duration.ofMillis(1500), credentials));
        assertThat(zk.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return zk;
    }

    @Test
    void aClusterWithCredentialsIsClosedToSessionsWithoutThem() throws Exception {
        ZkPaths paths = new ZkPaths("closed");
        try (CuratorFramework node = connect(Optional.of("kvs:s3cret"));
                CuratorFramework stranger = connect(Optional.empty());
                CuratorFramework guesser = connect(Optional.of("kvs:guess"));
                CuratorFramework peer = connect(Optional.of("kvs:s3cret"))) {
            new ClusterMapStore(node, paths).create(ClusterMap.evenly(List.of(List.of("a", "b"))));
            // each session may be on another server of the ensemble, whose reads lag the write: a read there
            // before it has the map finds no map (no error) instead of a map it may not read
            for (CuratorFramework c : List.of(stranger, guesser, peer)) awaitVisible(c, paths.map());

            assertThatThrownBy(() -> new ClusterMapStore(stranger, paths).read())
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> new ClusterMapStore(guesser, paths).read())
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> stranger.setData().forPath(paths.map(), "{}".getBytes()))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> stranger.create().forPath(paths.root() + "/squat"))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(new ClusterMapStore(peer, paths)
                            .read()
                            .orElseThrow()
                            .map()
                            .shards())
                    .hasSize(1);
        }
    }

    /**
     * Waits until {@code zk}'s server holds {@code path}: its {@code exists} answers the node, or refuses
     * it for want of read permission (a server checks a node's ACL only if it holds the node).
     */
    private static void awaitVisible(CuratorFramework zk, String path) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                return zk.checkExists().forPath(path) != null;
            } catch (KeeperException.NoAuthException e) {
                return true;
            }
        });
    }

    /** A client through links of its own to every server, with its member znode created. */
    private record Member(CuratorFramework zk, List<WanLink> links, MemberNode znode) implements AutoCloseable {
        static Member start(String name) throws Exception {
            List<WanLink> links = new ArrayList<>();
            List<String> addresses = new ArrayList<>();
            for (int port : ensemble.clientPorts()) {
                WanLink link = WanLink.builder().target("127.0.0.1", port).build();
                links.add(link);
                addresses.add("127.0.0.1:" + link.port());
            }
            CuratorFramework zk = ZkClients.start(
                    new ZkClients.Settings(String.join(",", addresses), Ensemble.SESSION, Optional.empty()));
            assertThat(zk.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            MemberNode znode = new MemberNode(
                    zk, new ZkPaths("close"), new MemberStatus(name, "s", "primary", 1, false, false, 0, "h:1", "h:2"));
            assertThat(znode.start(10_000)).isTrue();
            return new Member(zk, links, znode);
        }

        @Override
        public void close() {
            links.forEach(WanLink::close);
            zk.close();
        }
    }

    @Test
    void closingWithinAGraceDeletesTheMemberZnodeWhenZooKeeperAnswers() throws Exception {
        try (CuratorFramework observer = connect(Optional.empty());
                Member member = Member.start("answered")) {
            awaitVisible(observer, member.znode().path());

            assertThat(ZkClients.closeWithin(member.zk(), Duration.ofSeconds(5), member.znode()::close))
                    .isTrue();

            assertThat(member.zk().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
            // deleted by the member, not expired: long before a session timeout
            await().atMost(Duration.ofSeconds(1))
                    .until(() -> observer.checkExists().forPath(member.znode().path()) == null);
        }
    }

    @Test
    void closingWithinAGraceGivesUpOnZooKeeperThatDoesNotAnswer() throws Exception {
        try (CuratorFramework observer = connect(Optional.empty());
                Member member = Member.start("cut-off")) {
            awaitVisible(observer, member.znode().path());
            member.links().forEach(WanLink::pause);

            long closing = System.nanoTime();
            boolean answered = ZkClients.closeWithin(member.zk(), Duration.ofMillis(500), member.znode()::close);
            long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);

            System.out.println("ZkClientsTest: closed " + closedAfterMs + " ms after the pause");
            // without the grace: several seconds of the client's retries and connection timeouts (5.3 s once)
            assertThat(closedAfterMs)
                    .as("closed %d ms after the pause", closedAfterMs)
                    .isLessThan(2_000);
            assertThat(answered).isFalse();
            assertThat(member.zk().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
            await("the member znode goes with the session")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> observer.checkExists().forPath(member.znode().path()) == null);
        }
    }

    @Test
    void badSettingsAreRefusedWithTheirValue() {
        assertThatThrownBy(() -> new ZkClients.Settings("", Duration.ofSeconds(6), Optional.empty()))
                .hasMessage("zookeeper connect string is empty");
        assertThatThrownBy(() -> new ZkClients.Settings("h:1", Duration.ofMillis(50), Optional.empty()))
                .hasMessage("zookeeper session timeout out of 200 ms..10 min: 50 ms");
        assertThatThrownBy(() -> new ZkClients.Settings("h:1", Duration.ofSeconds(6), Optional.of("nopassword")))
                .hasMessage("zookeeper credentials must be user:password");
    }
}
