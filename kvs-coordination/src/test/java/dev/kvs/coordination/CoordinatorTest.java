package dev.kvs.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.testing.zookeeper.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The coordinator on a real three-server ZooKeeper ensemble ({@link Ensemble}). */
class CoordinatorTest {
    private static Ensemble ensemble;
    private static CuratorFramework admin;
    private static int clusters;

    private final List<AutoCloseable> opened = new ArrayList<>();
    private ZkPaths paths;

    @BeforeAll
    static void startEnsemble() throws Exception {
        ensemble = new Ensemble();
        admin = ensemble.client();
    }

    @AfterAll
    static void stopEnsemble() throws Exception {
        if (admin != null) admin.close();
        if (ensemble != null) ensemble.close();
    }

    @AfterEach
    void closeOpened() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) opened.get(i).close();
    }

    /** A fresh cluster in the ensemble: one shard, {@code a} primary and {@code b} backup, epoch 1. */
    private ClusterMapStore freshCluster() throws Exception {
        paths = new ZkPaths("test-" + ++clusters);
        ClusterMapStore store = new ClusterMapStore(admin, paths);
        store.create(ClusterMap.evenly(List.of(List.of("a", "b"))));
        return store;
    }

    private static MemberStatus backup(String node, long epoch, boolean resyncing) {
        return new MemberStatus(node, "shard-0", "backup", epoch, true, resyncing, 42, "127.0.0.1:1", "127.0.0.1:2");
    }

    private static MemberStatus primary(String node, long epoch) {
        return new MemberStatus(node, "shard-0", "primary", epoch, false, false, 42, "127.0.0.1:3", "127.0.0.1:4");
    }

    private MemberNode publish(CuratorFramework zk, MemberStatus status) throws Exception {
        MemberNode node = new MemberNode(zk, paths, status);
        opened.add(node);
        assertThat(node.start(5_000)).isTrue();
        return node;
    }

    private Shard shard(ClusterMapStore store) throws Exception {
        return store.read().orElseThrow().map().shard("shard-0").orElseThrow();
    }

    @Test
    void twoCoordinatorsWithOverlappingLeadershipMoveTheEpochOnce() throws Exception {
        ClusterMapStore store = freshCluster();
        publish(admin, backup("b", 1, false)); // a has no member znode: dead
        Coordinator first = new Coordinator(admin, paths, Duration.ofMillis(100));
        Coordinator second = new Coordinator(admin, paths, Duration.ofMillis(100));

        // Both read before either writes, as two leaders during a hand-over can.
        Coordinator.View firstView = first.read().orElseThrow();
        Coordinator.View secondView = second.read().orElseThrow();
        List<Promotion> firstDecision = Promotion.decide(firstView.map().map(), firstView.members());
        List<Promotion> secondDecision = Promotion.decide(secondView.map().map(), secondView.members());
        assertThat(firstDecision).extracting(Promotion::member).containsExactly("b");
        assertThat(secondDecision).extracting(Promotion::member).containsExactly("b");

        assertThat(first.write(firstView, firstDecision)).isTrue();
        assertThat(second.write(secondView, secondDecision)).isFalse();
        // The second reads again and finds nothing to do.
        assertThat(second.round()).isEmpty();

        assertThat(shard(store).primary()).isEqualTo("b");
        assertThat(shard(store).epoch()).isEqualTo(2);
        assertThat(second.conflicts()).isEqualTo(1);
    }

    @Test
    void aSilentlyPartitionedPrimaryIsReplacedOnceItsSessionExpires() throws Exception {
        ClusterMapStore store = freshCluster();
        Ensemble.Holder primarySide = ensemble.clientThroughLinks();
        opened.add(primarySide);
        publish(primarySide.zk(), primary("a", 1));
        publish(admin, backup("b", 1, false));
        CuratorFramework coordinatorSide = ensemble.client();
        opened.add(coordinatorSide);
        Coordinator coordinator = new Coordinator(coordinatorSide, paths, Duration.ofMillis(100));
        opened.add(coordinator);
        coordinator.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> coordinator.rounds() >= 3);
        assertThat(shard(store).epoch()).as("a live primary is left alone").isEqualTo(1);

        long pausedAt = System.nanoTime();
        primarySide.pause();
        await().atMost(Ensemble.SESSION.plusSeconds(2)).until(() -> shard(store).epoch() == 2);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);

        assertThat(shard(store).primary()).isEqualTo("b");
        assertThat(tookMs)
                .as("promoted %d ms after the pause", tookMs)
                .isGreaterThanOrEqualTo(Ensemble.SESSION.toMillis() * 2 / 3);
        assertThat(coordinator.promotions()).isEqualTo(1);
    }

    @Test
    void aResyncingBackupIsNotPromoted() throws Exception {
        ClusterMapStore store = freshCluster();
        publish(admin, backup("b", 1, true));
        Coordinator coordinator = new Coordinator(admin, paths, Duration.ofMillis(50));
        opened.add(coordinator);
        coordinator.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> coordinator.rounds() >= 5);

        assertThat(shard(store).primary()).isEqualTo("a");
        assertThat(shard(store).epoch()).isEqualTo(1);
        assertThat(coordinator.promotions()).isZero();
    }

    @Test
    void aBackupOfAnOlderEpochIsNotPromoted() throws Exception {
        ClusterMapStore store = freshCluster();
        publish(admin, backup("b", 0, false));
        Coordinator coordinator = new Coordinator(admin, paths, Duration.ofMillis(50));

        for (int i = 0; i < 3; i++) assertThat(coordinator.round()).isEmpty();

        assertThat(shard(store).epoch()).isEqualTo(1);
    }
}
