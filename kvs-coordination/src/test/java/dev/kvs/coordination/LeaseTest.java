package dev.kvs.coordination;

import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.testing.zookeeper.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lease on a real three-server ZooKeeper ensemble ({@link Ensemble}), with the holder's ZooKeeper
 * traffic going through WAN links that can pause it: a silent partition, where
 * no connection is reset and the holder learns nothing until its own clock says so.
 */
class LeaseTest {
    private static final Duration SESSION = Ensemble.SESSION;
    private static final long LEASE_NANOS = TimeUnit.MILLISECONDS.toNanos(SESSION.toMillis()) * 2 / 3;
    private static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private static Ensemble ensemble;
    private static CuratorFramework observer;

    private final List<AutoCloseable> closeLast = new ArrayList<>();
    private final List<Ensemble.Holder> holders = new ArrayList<>();

    @BeforeAll
    static void startEnsemble() throws Exception {
        ensemble = new Ensemble();
        observer = ensemble.client();
        observer.create().creatingParentsIfNeeded().forPath("/kvs/lease-test");
    }

    @AfterAll
    static void stopEnsemble() throws Exception {
        if (observer != null) observer.close();
        if (ensemble != null) ensemble.close();
    }

    @AfterEach
    void closeHolders() throws Exception {
        for (AutoCloseable c : closeLast) c.close();
        for (Ensemble.Holder h : holders) h.close();
        closeLast.clear();
        holders.clear();
    }

    private Ensemble.Holder holder() throws InterruptedException {
        Ensemble.Holder h = ensemble.clientThroughLinks();
        holders.add(h);
        return h;
    }

    private Lease lease(CuratorFramework zk, String path, Lease.Entitlement entitlement) throws Exception {
        zk.create().withMode(CreateMode.EPHEMERAL).forPath(path);
        Lease lease = new Lease(zk, path, SESSION, entitlement);
        closeLast.add(0, lease);
        lease.start();
        return lease;
    }

    /** Completes with the nanoTime at which the observer saw {@code path} deleted. */
    private static CompletableFuture<Long> deletion(String path) throws Exception {
        CompletableFuture<Long> deleted = new CompletableFuture<>();
        Watcher watcher = event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) deleted.complete(System.nanoTime());
        };
        assertThat(observer.checkExists().usingWatcher(watcher).forPath(path)).isNotNull();
        return deleted;
    }

    @Test
    void silentlyPartitionedHolderStopsOnItsOwnClockBeforeItsSessionExpires() throws Exception {
        long seed = Long.getLong("kvs.seed", System.nanoTime());
        System.out.println("LeaseTest seed " + seed);
        Random rnd = new Random(seed);
        List<Long> marginsMs = new ArrayList<>();
        for (int run = 0; run < 20; run++) {
            Ensemble.Holder holder = holder();
            CuratorFramework zk = holder.zk();
            String path = "/kvs/lease-test/partitioned-" + run;
            Lease lease = lease(zk, path, () -> true);
            await().atMost(Duration.ofSeconds(10)).until(lease::held);
            CompletableFuture<Long> deleted = deletion(path);
            // Chooses where in the renewal cycle the partition falls; waits for nothing.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(rnd.nextInt((int) SESSION.toMillis() / 6 + 1)));

            long pausedAt = System.nanoTime();
            holder.pause();
            await().pollInterval(Duration.ofMillis(1))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> !lease.held());
            long stoppedAt = System.nanoTime();
            long expiredAt = deleted.get(10, TimeUnit.SECONDS);

            String at = "seed " + seed + " run " + run;
            assertThat(stoppedAt - pausedAt)
                    .as("%s: stopped %d ms after the pause", at, NANOSECONDS.toMillis(stoppedAt - pausedAt))
                    .isLessThanOrEqualTo(LEASE_NANOS + SLACK_NANOS);
            assertThat(stoppedAt)
                    .as("%s: stopped after ZooKeeper expired the session", at)
                    .isLessThan(expiredAt);
            marginsMs.add(NANOSECONDS.toMillis(expiredAt - stoppedAt));

            closeHolders();
        }
        System.out.println("LeaseTest seed " + seed + ": stopped before expiry by (ms) "
                + marginsMs.stream().sorted().map(String::valueOf).collect(Collectors.joining(" "))
                + "; smallest margin " + marginsMs.stream().min(Long::compare).orElseThrow() + " ms");
    }

    /** @param outliveSession whether the pause lasts until the ensemble has expired the holder's session */
    @ParameterizedTest(name = "pause outlives the session: {0}")
    @ValueSource(booleans = {false, true})
    void aLeaseThatLapsedHoldsAgainOnlyAfterTheEntitlementIsRechecked(boolean outliveSession) throws Exception {
        Ensemble.Holder holder = holder();
        CuratorFramework zk = holder.zk();
        AtomicBoolean entitled = new AtomicBoolean(true);
        // As a node's MemberNode does: the znode is re-created under a new session if the pause outlived
        // the old one (Curator may start the new session before the server has deleted the old znode).
        PersistentNode znode =
                new PersistentNode(zk, CreateMode.EPHEMERAL, false, "/kvs/lease-test/recheck", new byte[0]);
        closeLast.add(znode);
        znode.start();
        assertThat(znode.waitForInitialCreate(10, TimeUnit.SECONDS)).isTrue();
        Lease lease = new Lease(zk, "/kvs/lease-test/recheck", SESSION, entitled::get);
        closeLast.add(0, lease);
        lease.start();
        await().atMost(Duration.ofSeconds(10)).until(lease::held);

        entitled.set(false);
        CompletableFuture<Long> expired = deletion("/kvs/lease-test/recheck");
        holder.pause();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.held());
        if (outliveSession) expired.get(10, TimeUnit.SECONDS);
        holder.resume();
        // The session survives a pause shorter than its timeout only by luck; either way the lease must
        // wait for the entitlement: several renewals after the link is back, it still does not hold. (A
        // renewal is refused by the entitlement if the session survived, or revokes again if it expired
        // and took the znode with it: count both.)
        long refusedBefore = refused(lease);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> refused(lease) >= refusedBefore + 3
                        && zk.getZookeeperClient().isConnected());
        assertThat(lease.held()).isFalse();

        entitled.set(true);
        await().atMost(Duration.ofSeconds(10)).until(lease::held);
    }

    /** Renewals that did not grant: refused (entitlement, errors) or revoking (the znode not ours). */
    private static long refused(Lease lease) {
        Lease.Status s = lease.status();
        return s.failedRenewals() + s.revocations();
    }

    @Test
    void aZnodeThatIsNoLongerTheSessionsRevokesTheLease() throws Exception {
        CuratorFramework zk = holder().zk();
        Lease lease = lease(zk, "/kvs/lease-test/taken", () -> true);
        await().atMost(Duration.ofSeconds(10)).until(lease::held);

        observer.delete().forPath("/kvs/lease-test/taken");

        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.held());
        assertThat(lease.status().lastRevocation()).isEqualTo("/kvs/lease-test/taken is gone");
        long renewalsAfter = lease.status().renewals();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> lease.status().failedRenewals() + lease.status().revocations() >= 3);
        assertThat(lease.held()).isFalse();
        assertThat(lease.status().renewals()).isEqualTo(renewalsAfter);
    }

    @Test
    void neverHeldWithoutTheEntitlement() throws Exception {
        CuratorFramework zk = holder().zk();
        Lease lease = lease(zk, "/kvs/lease-test/unentitled", () -> false);
        await().atMost(Duration.ofSeconds(10)).until(() -> lease.status().failedRenewals() >= 3);
        assertThat(lease.held()).isFalse();
        assertThat(lease.status().renewals()).isZero();
    }
}
