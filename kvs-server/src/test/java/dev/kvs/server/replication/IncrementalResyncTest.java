package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.TornFiles;
import dev.kvs.testing.cluster.TwoDc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * A backup restarted with its data ({@code --data-dir}) gets a full resync, keys first; it answers the
 * listing with the values it lacks, and only what changed while it was away crosses the link.
 */
class IncrementalResyncTest {
    private static final int KEYS = 1000;
    private static final int VALUE_BYTES = 1024;

    @TempDir
    Path dataDir;

    @Test
    void aBackupRestartedWithItsDataGetsOnlyTheValuesWrittenWhileItWasAway() {
        try (TwoDc dc = startPair()) {
            List<byte[]> keys = new ArrayList<>();
            try (Jedis p = JedisAccess.primary(dc)) {
                Pipeline pipe = p.pipelined();
                for (int i = 0; i < KEYS; i++) {
                    byte[] key = ("k" + i).getBytes();
                    keys.add(key);
                    pipe.set(key, value(i, 0));
                }
                pipe.sync();
            }
            ReplicationTest.awaitConverged(dc, keys);
            long shippedBefore = resyncField(dc, "kvs_values_shipped");
            long listedBefore = resyncField(dc, "kvs_resync_keys_listed"); // the first resync's, if any

            dc.restartBackup(() -> {
                try (Jedis p = JedisAccess.primary(dc)) {
                    for (int i = 0; i < 10; i++) p.set(keys.get(i), value(i, 1)); // changed
                    for (int i = 10; i < 15; i++) p.del(keys.get(i)); // deleted
                    for (int i = KEYS; i < KEYS + 5; i++) { // new
                        keys.add(("k" + i).getBytes());
                        p.set(keys.get(i), value(i, 1));
                    }
                }
            });

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> resyncField(dc, "kvs_resyncs") >= 2 && resyncField(dc, "kvs_value_lag_count") == 0);
            ReplicationTest.awaitConverged(dc, keys);
            // the 20 writes made while it was away ship as any pending value (the 5 deletes as
            // tombstones; a send to the stopped backup counts, and is sent again); the listing of
            // 1,005 keys adds nothing the backup held already
            long shipped = resyncField(dc, "kvs_values_shipped") - shippedBefore;
            assertThat(shipped).as("values shipped after the restart").isBetween(20L, (long) KEYS / 5);
            assertThat(resyncField(dc, "kvs_resync_keys_listed") - listedBefore).isEqualTo(KEYS);
            assertThat(resyncField(dc, "kvs_resync_value_bytes_saved"))
                    .as("value bytes listed and not shipped")
                    .isGreaterThanOrEqualTo((long) (KEYS - 15) * VALUE_BYTES);
            try (Jedis bk = JedisAccess.backup(dc)) {
                bk.sendCommand(() -> "READONLY".getBytes());
                assertThat(bk.get(keys.get(3))).isEqualTo(value(3, 1));
                assertThat(bk.get(keys.get(12))).isNull();
                assertThat(bk.dbSize()).isEqualTo(KEYS);
            }
        }
    }

    @Test
    void aBackupWhoseValueACrashToreGetsItAgainInTheResyncAfterItsRestart() {
        byte[] torn = "the value a crash tears on the backup, in one place in its files".getBytes();
        try (TwoDc dc = startPair()) {
            List<byte[]> keys = new ArrayList<>();
            try (Jedis p = JedisAccess.primary(dc)) {
                for (int i = 0; i < 100; i++) {
                    keys.add(("k" + i).getBytes());
                    p.set(keys.get(i), value(i, 0));
                }
                keys.add("torn".getBytes());
                p.set("torn".getBytes(), torn);
            }
            ReplicationTest.awaitConverged(dc, keys);
            dc.restartBackup(() -> {
                try {
                    TornFiles.tear(dataDir, torn);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            // the backup's store fences the torn key (LOST, at the TxId the primary lists it at), and the
            // listing of the resync after the restart wants its value again
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> resyncField(dc, "kvs_resyncs") >= 2 && resyncField(dc, "kvs_value_lag_count") == 0);
            ReplicationTest.awaitConverged(dc, keys);
            try (Jedis bk = JedisAccess.backup(dc)) {
                bk.sendCommand(() -> "READONLY".getBytes());
                assertThat(bk.get("torn".getBytes())).isEqualTo(torn);
            }
        }
    }

    /** An async pair whose backup keeps its store in {@link #dataDir}. */
    private TwoDc startPair() {
        StoreConfig primaryStore =
                StoreConfig.builder().maxEntries(10_000).maxBytes(64L << 20).build();
        StoreConfig backupStore = StoreConfig.builder()
                .maxEntries(10_000)
                .maxBytes(64L << 20)
                .dataDir(dataDir)
                .build();
        return TwoDc.builder()
                .mode(ReplicationMode.ASYNC)
                .replication(TwoDc.replication().build())
                .stores(primaryStore, backupStore)
                .start();
    }

    private static byte[] value(int key, int version) {
        byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte) ('a' + (key + version) % 26));
        return v;
    }

    private static long resyncField(TwoDc dc, String field) {
        try (Jedis p = JedisAccess.primary(dc)) {
            return Long.parseLong(JedisAccess.info(p, field));
        }
    }
}
