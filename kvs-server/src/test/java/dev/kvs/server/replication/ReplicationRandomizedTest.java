package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.TxId;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import redis.clients.jedis.Jedis;

/**
 * Random writes in random modes, mixed value sizes, with the link cut and healed along the way: the
 * backup never goes back in time on a key, and converges to the primary byte for byte. Prints its
 * seed; replay with {@code -Dkvs.seed=N}.
 */
class ReplicationRandomizedTest {
    private static final long BASE_SEED = Long.getLong("kvs.seed", System.nanoTime());
    private static final ReplicationMode[] MODES = ReplicationMode.values();

    @RepeatedTest(3)
    void randomWritesWithLinkDropsConverge(RepetitionInfo rep) {
        long seed = BASE_SEED + rep.getCurrentRepetition();
        System.out.println("ReplicationRandomizedTest seed " + seed + " (replay with -Dkvs.seed=" + BASE_SEED + ")");
        Random rnd = new Random(seed);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++) keys.add(("key-" + i).getBytes(StandardCharsets.UTF_8));
        Map<String, TxId> seenOnBackup = new HashMap<>();
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST)
                        .link(Duration.ofMillis(1), 200_000_000)
                        // without the bound in time: it would hold (then refuse) the async writes made while
                        // the link is cut once the values pending could not ship within it
                        .replication(TwoDc.replication()
                                .valueStreams(1 + rnd.nextInt(3))
                                .maxValueLag(Duration.ZERO)
                                .build())
                        .start();
                Jedis p = JedisAccess.primary(dc);
                Jedis bk = JedisAccess.backup(dc)) {
            boolean cut = false;
            for (int op = 0; op < 400; op++) {
                if (op % 50 == 49) {
                    if (cut) dc.link().heal();
                    else dc.link().cut();
                    cut = !cut;
                }
                // while the link is cut only async answers at once (id-first-after-reply waits like
                // id-first while the key channel is down)
                ReplicationMode mode = cut ? ReplicationMode.ASYNC : MODES[rnd.nextInt(MODES.length)];
                p.sendCommand(() -> "KVS.MODE".getBytes(), mode.label());
                byte[] key = keys.get(rnd.nextInt(keys.size()));
                int kind = rnd.nextInt(10);
                if (kind < 6) {
                    byte[] v = new byte[rnd.nextInt(20) == 0 ? 300_000 + rnd.nextInt(300_000) : rnd.nextInt(3000)];
                    rnd.nextBytes(v);
                    assertThat(p.set(key, v)).isEqualTo("OK");
                } else if (kind < 8) {
                    p.del(key);
                } else {
                    byte[] other = keys.get(rnd.nextInt(keys.size()));
                    assertThat(p.mset(key, ("m" + op).getBytes(), other, ("n" + op).getBytes()))
                            .isEqualTo("OK");
                }
                if (op % 20 == 0) checkBackupNeverGoesBack(bk, keys, seenOnBackup);
            }
            if (cut) dc.link().heal();
            ReplicationTest.awaitConverged(dc, keys);
            checkBackupNeverGoesBack(bk, keys, seenOnBackup);
        }
    }

    private static void checkBackupNeverGoesBack(Jedis bk, List<byte[]> keys, Map<String, TxId> seen) {
        for (byte[] k : keys) {
            List<Object> rec = JedisAccess.peek(bk, k);
            if (rec == null) continue;
            TxId now = TxId.parse(new String((byte[]) rec.get(1), StandardCharsets.US_ASCII));
            String name = new String(k, StandardCharsets.UTF_8);
            TxId before = seen.put(name, now);
            if (before != null)
                assertThat(now).as("txid of %s on the backup", name).isGreaterThanOrEqualTo(before);
        }
    }
}
