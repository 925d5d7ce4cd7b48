package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.EnsembleShard.Cut;
import dev.kvs.testing.zookeeper.Ensemble;
import dev.kvs.wan.WanLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The acceptance on a real three-server ZooKeeper ensemble ({@link Ensemble}, 1.5 s sessions):
 * a coordinated shard (a primary and its backup, each reaching every ZooKeeper server through {@link
 * WanLink}s of its own, replicating through the pair's links) under silent partitions, paused and never
 * reset. A writer per node writes to its node all the time, whatever its role, and records every
 * acknowledged write in an {@link AckLog}, whose Javadoc defines "acknowledging in overlapping time".
 */
class PartitionAcceptanceTest {
    private static final Duration SESSION = Ensemble.SESSION;
    private static final long MIN_SEED = 34_000;
    private static final AtomicLong SMALLEST_GAP_MS = new AtomicLong(Long.MAX_VALUE);

    private static Ensemble ensemble;
    private static CuratorFramework observer;

    private EnsembleShard shard;

    @BeforeAll
    static void startEnsemble() throws Exception {
        ensemble = new Ensemble();
        observer = ensemble.client();
    }

    @AfterAll
    static void stopEnsemble() throws Exception {
        System.out.println("PartitionAcceptanceTest: smallest gap at a switch of acknowledging node: "
                + (SMALLEST_GAP_MS.get() == Long.MAX_VALUE ? "no switch" : SMALLEST_GAP_MS.get() + " ms"));
        if (observer != null) observer.close();
        if (ensemble != null) ensemble.close();
    }

    @AfterEach
    void stop() {
        if (shard != null) shard.close();
    }

    static List<Long> seeds() {
        List<Long> seeds = new ArrayList<>();
        for (long s = MIN_SEED; s < MIN_SEED + 20; s++) seeds.add(s);
        return seeds;
    }

    /**
     * One seeded run: the mode is the seed's (the four in turn); one to three cuts, each at a random time
     * in the first 2 s and for 0.3 to 3.3 s (longer than the 1.5 s session about half the time), while
     * both writers run; then 1 s with every link healed. The shard's epoch moves in the map at most
     * once per sure switch of acknowledging node, and never fewer times than there are such switches.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void neverTwoNodesOfTheShardAcknowledgeInOverlappingTime(long seed) throws Exception {
        Random random = new Random(seed);
        ReplicationMode mode = ReplicationMode.values()[(int) (seed % ReplicationMode.values().length)];
        shard = new EnsembleShard(ensemble, observer, "partition-" + seed, mode);
        shard.awaitServing();
        long epochBefore = shard.epoch();

        AckLog log = new AckLog();
        List<Thread> writers =
                List.of(shard.writer(shard.dc.primary(), "p", log), shard.writer(shard.dc.backup(), "b", log));
        writers.forEach(Thread::start);
        ScheduledExecutorService chaos = Executors.newSingleThreadScheduledExecutor();
        StringBuilder plan = new StringBuilder();
        List<String> leaders = new CopyOnWriteArrayList<>(); // whose coordinator each COORDINATOR_ZK cut hit
        long lastHealMs = 0;
        int cuts = 1 + random.nextInt(3);
        CountDownLatch healed = new CountDownLatch(cuts);
        try {
            for (int i = 0; i < cuts; i++) {
                Cut cut = Cut.values()[random.nextInt(Cut.values().length)];
                long atMs = random.nextInt(2000);
                long spanMs = 300 + random.nextInt(3000);
                lastHealMs = Math.max(lastHealMs, atMs + spanMs);
                plan.append(String.format(" %s@%d+%d", cut, atMs, spanMs));
                chaos.schedule(
                        () -> {
                            if (cut == Cut.COORDINATOR_ZK) leaders.add(shard.coordinatorLeader());
                            List<WanLink> links = shard.links(cut);
                            links.forEach(WanLink::pause);
                            chaos.schedule(
                                    () -> {
                                        links.forEach(WanLink::resume);
                                        healed.countDown();
                                    },
                                    spanMs,
                                    TimeUnit.MILLISECONDS);
                        },
                        atMs,
                        TimeUnit.MILLISECONDS);
            }
            // the chaos ends, then the writers run on the healed shard until a write sent a second after
            // the last heal is acknowledged (the shard serves again, and any overlap after it shows)
            assertThat(healed.await(lastHealMs + 10_000, TimeUnit.MILLISECONDS))
                    .as("seed %d: every cut healed", seed)
                    .isTrue();
            long healedAt = System.nanoTime();
            await("seed " + seed + ": a write sent 1 s after the last heal is acknowledged")
                    .pollInterval(Duration.ofMillis(50))
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> log.anySentSince(healedAt + TimeUnit.SECONDS.toNanos(1)));
        } finally {
            chaos.shutdown();
            assertThat(chaos.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            shard.healAll();
            writers.forEach(Thread::interrupt);
            for (Thread w : writers) w.join(10_000);
        }
        long epochMoves = shard.epoch() - epochBefore;
        long gap = log.smallestSwitchGapMs();
        SMALLEST_GAP_MS.accumulateAndGet(gap, Math::min);
        System.out.printf(
                "PartitionAcceptanceTest seed %d %s:%s (coordinator cuts hit %s) acks p=%d b=%d, epoch moves %d,"
                        + " sure switches %d, gap %s%n",
                seed,
                mode.label(),
                plan,
                leaders,
                log.countBy("p"),
                log.countBy("b"),
                epochMoves,
                log.sureSwitches(),
                gap == Long.MAX_VALUE ? "-" : gap + " ms");
        assertThat(log.size())
                .as("seed %d: some writes were acknowledged", seed)
                .isPositive();
        assertThat(log.overlaps(epochMoves))
                .as(
                        "seed %d (%s,%s): %d sure switches of acknowledging node, epoch moved %d; the first: %s",
                        seed, mode.label(), plan, log.sureSwitches(), epochMoves, log.describeChain(6))
                .isFalse();
    }

    /**
     * The backup's datacenter loses ZooKeeper and the inter-DC link at once, for three session timeouts:
     * nobody is promoted (the primary is alive in ZooKeeper, the backup's znode is gone), and once
     * everything heals the primary acknowledges writes again within 5 s, with no action.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = ReplicationMode.class,
            names = {"ID_FIRST", "SYNC"})
    void theBackupDcLosingZooKeeperAndTheLinkPromotesNobodyAndWritesResumeAfterHealing(ReplicationMode mode)
            throws Exception {
        shard = new EnsembleShard(ensemble, observer, "isolated-" + mode.label(), mode);
        shard.awaitServing();
        ClusterMapStore.Versioned before = shard.maps.read().orElseThrow();
        List<WanLink> backupDc = new ArrayList<>(shard.links(Cut.BACKUP_ZK));
        backupDc.addAll(shard.links(Cut.REPLICATION));
        backupDc.forEach(WanLink::pause);
        long pausedAt = System.nanoTime();
        long until = pausedAt + 3 * SESSION.toNanos();
        while (System.nanoTime() < until) { // checked every 100 ms for three session timeouts
            assertThat(shard.maps.read().orElseThrow().version())
                    .as("the map is unchanged during the isolation")
                    .isEqualTo(before.version());
            assertThat(EnsembleShard.info(shard.dc.backup())).contains("role:slave");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertThat(shard.epoch())
                .isEqualTo(before.map().shard("shard-0").orElseThrow().epoch());
        backupDc.forEach(WanLink::resume);
        long healedAt = System.nanoTime();
        await("the primary acknowledges writes again, with no action")
                .pollInterval(Duration.ofMillis(20))
                .atMost(Duration.ofSeconds(5))
                .until(() -> "OK".equals(EnsembleShard.set(shard.dc.primary(), EnsembleShard.key("after"), "x")));
        long resumedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healedAt);
        System.out.println("PartitionAcceptanceTest " + mode.label() + ": writes resumed " + resumedMs
                + " ms after healing; map version "
                + shard.maps.read().orElseThrow().version());
        assertThat(shard.maps.read().orElseThrow().version()).isEqualTo(before.version());
        assertThat(EnsembleShard.info(shard.dc.backup())).contains("role:slave");
    }
}
