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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The kill -9 acceptance on a real three-server ZooKeeper ensemble ({@link Ensemble}, 1.5 s
 * sessions): a primary that goes silent mid-writes, to ZooKeeper and to its backup at once (every link
 * paused, no connection reset or closed, as a killed machine), is replaced by its backup within the
 * session timeout + 2 s; the shard's epoch in ZooKeeper moves exactly once (one map write, 1 to 2, and
 * still so a session later); and in id-first and sync every acknowledged write is complete or fenced on
 * the new primary, never missing.
 */
class KillAcceptanceTest {
    private static final Duration SESSION = Ensemble.SESSION;
    /** 4 Mbit/s: 8 KB values lag behind their key packets, so id-first has values in flight to fence */
    private static final long LINK_BITS_PER_SECOND = 4_000_000;

    private static final String VALUE_PAD = "x".repeat(8 * 1024);

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
        if (observer != null) observer.close();
        if (ensemble != null) ensemble.close();
    }

    @AfterEach
    void stop() {
        if (shard != null) shard.close();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = ReplicationMode.class,
            names = {"ID_FIRST", "SYNC"})
    void aKilledPrimaryIsReplacedOnceAndEveryAcknowledgedWriteIsCompleteOrFenced(ReplicationMode mode)
            throws Exception {
        shard = new EnsembleShard(ensemble, observer, "kill-" + mode.label(), mode, LINK_BITS_PER_SECOND);
        shard.awaitServing();
        ClusterMapStore.Versioned before = shard.maps.read().orElseThrow();
        List<String> acknowledged = new CopyOnWriteArrayList<>();
        Thread writer = new Thread(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", shard.dc.primary().port(), 1000)) {
                for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                    String key = EnsembleShard.key("key-" + i);
                    if ("OK".equals(jedis.set(key, key + VALUE_PAD))) acknowledged.add(key);
                }
            } catch (JedisConnectionException | JedisDataException stoppedAnswering) {
                // the primary went silent or stopped serving: its in-flight write is not acknowledged
            }
        });
        writer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.size() > 100);
        List<WanLink> everything = new ArrayList<>(shard.links(Cut.PRIMARY_ZK));
        everything.addAll(shard.links(Cut.REPLICATION));
        long killedAt = System.nanoTime();
        everything.forEach(WanLink::pause);

        await("the backup is promoted and acknowledges writes")
                .pollInterval(Duration.ofMillis(10))
                .atMost(SESSION.plusSeconds(5))
                .until(() -> "OK".equals(EnsembleShard.set(shard.dc.backup(), EnsembleShard.key("probe"), "p")));
        long promotedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        writer.interrupt();
        writer.join(10_000);
        assertThat(promotedMs).isLessThanOrEqualTo(SESSION.toMillis() + 2000);

        await("the map written once, and still so for a session: no second promotion")
                .during(SESSION)
                .atMost(SESSION.plusSeconds(2))
                .until(() -> shard.maps.read().orElseThrow().version() == before.version() + 1);
        ClusterMapStore.Versioned after = shard.maps.read().orElseThrow();
        assertThat(after.version()).as("the map was written once").isEqualTo(before.version() + 1);
        assertThat(shard.epoch())
                .as("the epoch moved exactly once")
                .isEqualTo(before.map().shard("shard-0").orElseThrow().epoch() + 1);
        assertThat(after.map().shard("shard-0").orElseThrow().primary()).isEqualTo(EnsembleShard.id(shard.dc.backup()));

        int complete = 0;
        int fenced = 0;
        try (Jedis jedis = new Jedis("127.0.0.1", shard.dc.backup().port(), 1000)) {
            for (String key : acknowledged) {
                String got;
                try {
                    got = jedis.get(key);
                } catch (JedisDataException refused) {
                    got = "-" + refused.getMessage();
                }
                if ((key + VALUE_PAD).equals(got)) {
                    complete++;
                } else {
                    assertThat(got)
                            .as("%s: acknowledged %s is complete or fenced, never missing", mode.label(), key)
                            .startsWith("-UNFINISHED " + key + " ");
                    fenced++;
                }
            }
        }
        System.out.printf(
                "KillAcceptanceTest %s: promoted %d ms after the kill; %d acknowledged writes: %d complete, %d fenced%n",
                mode.label(), promotedMs, acknowledged.size(), complete, fenced);
        if (mode == ReplicationMode.SYNC) {
            assertThat(fenced)
                    .as("sync: every acknowledged value was on the backup")
                    .isZero();
        }
    }
}
