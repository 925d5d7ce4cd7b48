package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.StoredValue;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.WriteOrder;
import dev.kvs.replication.primary.Replicator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** A real replicator's write, in sync mode, checked on the backup's store. */
final class SyncWrite {
    private SyncWrite() {}

    /** Waits until {@code r} streams, writes {@code value} to key {@code k} and checks the backup has it. */
    static void reachesTheBackup(Replicator r, KvStore primary, KvStore backup, String value) {
        await().atMost(Duration.ofSeconds(20)).until(() -> r.status().streaming());
        byte[] key = "k".getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        WriteOrder order = r.begin(ReplicationMode.SYNC);
        primary.put(key, StoredValue.complete(order.put(key, v.length, Checksums.crc32c(v), 0), v));
        order.commit().orTimeout(20, TimeUnit.SECONDS).join();

        assertThat(backup.get(key).value()).isEqualTo(v);
    }
}
