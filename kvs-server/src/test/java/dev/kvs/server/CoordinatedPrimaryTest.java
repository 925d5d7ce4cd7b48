package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.wan.WanLink;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A primary/backup pair coordinated on a real ZooKeeper ({@link TestingServer}, 100 ms tick so a 1.5 s
 * session is granted), the primary's ZooKeeper traffic through a {@link WanLink} that a test pauses: a
 * silent partition, no connection reset. The primary serves only under its lease.
 */
class CoordinatedPrimaryTest {
    private static final Duration SESSION = Duration.ofMillis(1500);
    private static final long REFUSED_WITHIN_MS = SESSION.toMillis() * 2 / 3 + 200;
    private static final String CLUSTER = "lease-test";

    private TestingServer zookeeper;
    private CuratorFramework observer;
    private WanLink primaryToZk;
    private TwoDc dc;
    private ClusterMapStore maps;

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, 100), true);
        observer = CuratorFrameworkFactory.builder()
                .connectString(zookeeper.getConnectString())
                .sessionTimeoutMs(10_000)
                .retryPolicy(new RetryOneTime(50))
                .build();
        observer.start();
        assertThat(observer.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        maps = new ClusterMapStore(observer, new ZkPaths(CLUSTER));
        primaryToZk = WanLink.builder().target("127.0.0.1", zookeeper.getPort()).build();
        String direct = zookeeper.getConnectString();
        String throughLink = "127.0.0.1:" + primaryToZk.port();
        dc = TwoDc.builder()
                .primary(b -> b.cluster(CLUSTER).coordination(coordination(throughLink)))
                .backup(b -> b.cluster(CLUSTER).coordination(coordination(direct)))
                .start();
        maps.create(ClusterMap.evenly(List.of(List.of(id(dc.primary()), id(dc.backup())))));
    }

    private static CoordinationConfig coordination(String zk) {
        return new CoordinationConfig(zk, Optional.empty(), SESSION, "shard-0");
    }

    private static String id(KvsNode node) {
        return node.config().nodeId();
    }

    @AfterEach
    void stop() throws Exception {
        // heals what a test left paused: a node cut off from ZooKeeper waits a second for it on closing
        // before it gives up (aPrimaryCutOffFromZooKeeperClosesPromptly), time that tests nothing here
        if (primaryToZk != null) primaryToZk.resume();
        if (dc != null) {
            dc.link().resume();
            dc.close();
        }
        if (primaryToZk != null) primaryToZk.close();
        if (observer != null) observer.close();
        if (zookeeper != null) zookeeper.close();
    }

    /** The body of {@code GET path} on the primary's admin port. */
    private String admin(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + dc.primary().adminPort() + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s: %s", path, r.body()).isEqualTo(200);
        return r.body();
    }

    /** The reply to {@code SET k v} (or its error), then to {@code GET k}, on the primary. */
    private String[] setAndGet(Jedis jedis) {
        return new String[] {reply(() -> jedis.set("k", "v")), reply(() -> jedis.get("k"))};
    }

    private static String reply(Callable<String> command) {
        try {
            return String.valueOf(command.call());
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** {@code -MOVED} of key {@code k} to the backup: what the old primary answers once the map names the backup. */
    private String movedToBackup() {
        return "-MOVED " + HashSlots.slot("k".getBytes(StandardCharsets.UTF_8)) + " 127.0.0.1:"
                + dc.backup().port();
    }

    private static boolean serves(String[] replies) {
        return replies[0].equals("OK") && replies[1].equals("v");
    }

    private static boolean refusesBoth(String[] replies) {
        return replies[0].startsWith("-CLUSTERDOWN") && replies[1].startsWith("-CLUSTERDOWN");
    }

    @Test
    void theCoordinatedPrimaryServesUnderItsLeaseAndPublishesItself() throws Exception {
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));
        }
        ZkPaths paths = new ZkPaths(CLUSTER);
        String primaryMember = new String(observer.getData().forPath(paths.member(id(dc.primary()))));
        assertThat(primaryMember).contains("\"role\":\"primary\"").contains("\"shard\":\"shard-0\"");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> new String(observer.getData().forPath(paths.member(id(dc.backup()))))
                        .contains("\"streaming\":true"));
    }

    @Test
    void aPrimaryCutOffFromZooKeeperRefusesWritesAndReadsOnItsOwnClockThenServesAgain() throws Exception {
        // the backup serves its shard's slots to READONLY reads first: a node the map then leaves out keeps the
        // layout it had, but one that had none yet (its first layout waits for every member's address) would
        // keep none, and answer CLUSTERDOWN below
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port());
                Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));
            backup.readonly();
            await("the backup reads k before the map leaves it out")
                    .atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .until(() -> "v".equals(backup.get("k")));
        }
        // the primary alone in its shard: no backup for the coordinator to promote while the primary's session
        // expires, so that this test sees the lease alone (MapFollowingTest sees the replacement)
        ClusterMapStore.Versioned before = maps.read().orElseThrow();
        assertThat(maps.compareAndSet(before, ClusterMap.evenly(List.of(List.of(id(dc.primary()))))))
                .isTrue();
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));

            long pausedAt = System.nanoTime();
            primaryToZk.pause();
            await("SET and GET refused with -CLUSTERDOWN")
                    .pollInterval(Duration.ofMillis(1))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> refusesBoth(setAndGet(jedis)));
            long refusedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
            System.out.println("CoordinatedPrimaryTest: refused " + refusedAfterMs + " ms after the pause");
            assertThat(refusedAfterMs).isLessThanOrEqualTo(REFUSED_WITHIN_MS);
            assertThat(setAndGet(jedis))
                    .containsExactly("-CLUSTERDOWN The cluster is down", "-CLUSTERDOWN The cluster is down");
            assertThat(jedis.info("replication")).contains("kvs_lease_held:0").contains("kvs_lease_alarm:1");
            assertThat(admin("/status"))
                    .contains("\"coordination\":{\"node\":\"" + id(dc.primary()) + "\"")
                    .contains("\"alarm\":true")
                    .containsPattern("\"lease\":\\{\"held\":false,\"millisLeft\":0,");
            assertThat(admin("/metrics"))
                    .contains("kvs_coordination_lease_held 0.0")
                    .contains("kvs_coordination_lease_alarm 1.0");
            try (Jedis backup = new Jedis(TwoDc.HOST, dc.backup().port())) {
                backup.readonly(); // a backup serves READONLY reads whatever its lease: it has none to lose
                await("the backup reads k").atMost(Duration.ofSeconds(5)).until(() -> "v".equals(backup.get("k")));
            }

            primaryToZk.resume();
            await("SET and GET served again").atMost(Duration.ofSeconds(15)).until(() -> serves(setAndGet(jedis)));
            assertThat(jedis.info("replication")).contains("kvs_lease_held:1").contains("kvs_lease_alarm:0");
            assertThat(admin("/metrics")).contains("kvs_coordination_lease_held 1.0");
        }
    }

    /**
     * A write waiting for its backup (the replication link paused) is answered {@code -NOREPLICA} when the
     * primary's lease lapses, not at the end of its write timeout (20 s here): a cluster client then goes on
     * to the backup, which the coordinator may promote.
     */
    @Test
    void aWriteWaitingForTheBackupIsAnsweredWhenTheLeaseLapses() throws Exception {
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port());
                Jedis writer = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));
            dc.link().pause();
            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(() -> reply(() -> writer.set("w", "1")));
            await("the write waits for its key packet's acknowledgement")
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> jedis.info("replication").contains("kvs_unacked_keys:1"));
            assertThat(waiting).isNotDone();

            long pausedAt = System.nanoTime();
            primaryToZk.pause();
            String answer = waiting.get(10, TimeUnit.SECONDS);
            long answeredAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
            System.out.println("CoordinatedPrimaryTest: a waiting write answered " + answeredAfterMs
                    + " ms after the pause: " + answer);
            assertThat(answer).startsWith("-NOREPLICA write ").contains("its lease lapsed");
            assertThat(answeredAfterMs)
                    .as("answered within the lease and a sweep, not at the 20 s write timeout")
                    .isLessThan(5_000);
            dc.link().resume();
        }
    }

    /**
     * Closing a node cut off from ZooKeeper takes at most about {@code NodeCoordination}'s second of
     * grace, not its ZooKeeper client's retries and connection timeouts (several seconds): the node gives
     * up deleting its member znode, which ZooKeeper deletes when the session expires, as for a node that
     * died.
     */
    @Test
    void aPrimaryCutOffFromZooKeeperClosesPromptly() throws Exception {
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));
        }
        String member = new ZkPaths(CLUSTER).member(id(dc.primary()));
        primaryToZk.pause();

        long closing = System.nanoTime();
        dc.primary().close();
        long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing);
        System.out.println("CoordinatedPrimaryTest: closed " + closedAfterMs + " ms after the pause");
        assertThat(closedAfterMs)
                .as("closed %d ms after the pause", closedAfterMs)
                .isLessThan(3_000);
        await("the member znode goes with the session")
                .atMost(Duration.ofSeconds(10))
                .until(() -> observer.checkExists().forPath(member) == null);
    }

    @Test
    void aPrimaryThatTheMapNoLongerNamesDoesNotServeAgainAfterItsPartition() throws Exception {
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));
            primaryToZk.pause();
            await("SET and GET refused with -CLUSTERDOWN")
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> refusesBoth(setAndGet(jedis)));

            ClusterMapStore.Versioned before = maps.read().orElseThrow();
            Shard shard = before.map().shard("shard-0").orElseThrow();
            assertThat(maps.compareAndSet(before, before.map().with(shard.promote(id(dc.backup())))))
                    .isTrue();
            primaryToZk.resume();

            // a clustered node sends clients to the primary the map names, as a Redis Cluster replica does
            await().atMost(Duration.ofSeconds(15)).until(() -> setAndGet(jedis)[0].equals(movedToBackup()));
            assertThat(setAndGet(jedis)[1]).isEqualTo(movedToBackup());
        }
    }

    @Test
    void aMapNamingTheBackupPrimaryAtTheNextEpochDeposesTheOldPrimary() throws Exception {
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> serves(setAndGet(jedis)));

            ClusterMapStore.Versioned before = maps.read().orElseThrow();
            Shard shard = before.map().shard("shard-0").orElseThrow();
            assertThat(maps.compareAndSet(before, before.map().with(shard.promote(id(dc.backup())))))
                    .isTrue();

            await("the old primary stops serving").atMost(Duration.ofSeconds(5)).until(() -> !serves(setAndGet(jedis)));
            await("the old primary sends clients to the new one")
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> setAndGet(jedis)[0].equals(movedToBackup()));
            assertThat(setAndGet(jedis)[1]).isEqualTo(movedToBackup());
            assertThatThrownBy(() -> jedis.set("k2", "v")).isInstanceOf(JedisDataException.class);
        }
    }
}
