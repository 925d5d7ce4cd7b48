package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;

/**
 * A pair whose keys are written and then deleted or expired, many times over the size of its stores
 * (sessions, carts, tokens): both stores stay near their live keys, so the backup keeps storing every
 * new value and the primary's queue of values to ship drains.
 */
class TombstoneCollectionTest {
    private static final int MAX_ENTRIES = 2_000;
    private static final int ROUNDS = 5 * MAX_ENTRIES;

    @ParameterizedTest
    @EnumSource(
            value = ReplicationMode.class,
            names = {"ID_FIRST", "ASYNC"})
    void keysWrittenAndDeletedManyTimesTheStoreSizeLeaveNoTombstones(ReplicationMode mode) {
        try (TwoDc dc = start(mode);
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            Pipeline pipe = p.pipelined();
            for (int i = 0; i < ROUNDS; i++) {
                pipe.set("session:" + i, "v" + i);
                pipe.del("session:" + i);
            }
            List<Object> replies = pipe.syncAndReturnAll();
            assertThat(replies)
                    .hasSize(2 * ROUNDS)
                    .allMatch(r -> "OK".equals(r) || Long.valueOf(1).equals(r));

            awaitDrainedAndSmall(p, bk);
            assertNewWritesLandWhole(p, bk);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = ReplicationMode.class,
            names = {"ID_FIRST", "ASYNC"})
    void keysThatExpireManyTimesTheStoreSizeLeaveNoTombstones(ReplicationMode mode) {
        try (TwoDc dc = start(mode);
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            // in bursts that each fit the stores, so that expiry keeps up and no write is refused
            for (int burst = 0; burst < 5; burst++) {
                Pipeline pipe = p.pipelined();
                for (int i = 0; i < MAX_ENTRIES / 2; i++) {
                    pipe.set(
                            "token:" + burst + ":" + i,
                            "v",
                            SetParams.setParams().px(20));
                }
                assertThat(pipe.syncAndReturnAll()).allMatch("OK"::equals);
                await().atMost(Duration.ofSeconds(30)).until(() -> entries(p) < MAX_ENTRIES / 10);
            }
            awaitDrainedAndSmall(p, bk);
            assertNewWritesLandWhole(p, bk);
        }
    }

    private static TwoDc start(ReplicationMode mode) {
        return TwoDc.builder()
                .mode(mode)
                .link(Duration.ofMillis(1), 0)
                .replication(TwoDc.replication().build())
                .store(StoreConfig.builder()
                        .maxEntries(MAX_ENTRIES)
                        .maxBytes(64L << 20)
                        .build())
                .start();
    }

    /** Every value shipped and the backup's store at most a tenth full: tombstones were collected. */
    private static void awaitDrainedAndSmall(Jedis p, Jedis bk) {
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(JedisAccess.info(p, "kvs_value_lag_count"))
                    .as("values left to ship")
                    .isEqualTo("0");
            assertThat(entries(bk)).as("backup entries").isLessThanOrEqualTo(MAX_ENTRIES / 10);
            assertThat(entries(p)).as("primary entries").isLessThanOrEqualTo(MAX_ENTRIES / 10);
        });
        assertThat(memoryField(bk, "kvs_tombstones")).isLessThanOrEqualTo(MAX_ENTRIES / 10);
    }

    /** A new write reaches the backup complete: it still stores values. */
    private static void assertNewWritesLandWhole(Jedis p, Jedis bk) {
        assertThat(p.set("after", "still protected")).isEqualTo("OK");
        bk.sendCommand(() -> "READONLY".getBytes());
        await().atMost(Duration.ofSeconds(30)).until(() -> "still protected".equals(bk.get("after")));
    }

    private static long entries(Jedis j) {
        return memoryField(j, "kvs_entries");
    }

    private static long memoryField(Jedis j, String field) {
        for (String line : j.info("memory").split("\r\n")) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1));
        }
        throw new AssertionError("no " + field + " in INFO memory");
    }
}
