package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.flush;
import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.renameKey;
import static dev.kvs.replication.backup.Packets.tombstone;
import static dev.kvs.replication.backup.Packets.tx;
import static dev.kvs.replication.backup.Packets.whole;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.backup.BackupApplier.KeyResult;
import dev.kvs.replication.backup.BackupApplier.Outcome;
import dev.kvs.replication.wire.Frame.KeyPacket;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The backup's side of FLUSH and RENAME key packets (wire v4). */
class BackupApplierReplicatedOpsTest {
    private final KvStore store =
            HeapKvStore.open(StoreConfig.builder().maxValueBytes(1024).build());
    private final UnfinishedKeys unfinished = new UnfinishedKeys();
    private final BackupCounters counters = new BackupCounters();
    private final BackupApplier applier = new BackupApplier(store, unfinished, counters, 1000);

    private static final byte[] V1 = bytes("one");
    private static final byte[] V2 = bytes("two");
    private static final byte[] V3 = bytes("three");

    @AfterEach
    void closeStore() {
        store.close();
    }

    private KeyResult keys(KeyPacket... packets) {
        return applier.onKeyBatch(List.of(packets));
    }

    private StoredValue stored(String key) {
        return store.get(bytes(key));
    }

    @Test
    void aFlushClearsOlderKeysAndQueueEntriesAtOnceAndKeepsLaterWrites() {
        keys(putKey(tx(1), "done", V1), putKey(tx(2), "pending", V2));
        assertThat(applier.apply(whole(tx(1), "done", V1))).isEqualTo(Outcome.APPLIED);
        // a value written after the flush may arrive first, on another value stream
        assertThat(applier.apply(whole(tx(5), "early", V3))).isEqualTo(Outcome.APPLIED);

        // the flush and writes after it in one batch
        KeyResult r = keys(flush(tx(3)), putKey(tx(4), "after", V1), putKey(tx(5), "early", V3));

        assertThat(r.ack()).isEqualTo(tx(5));
        assertThat(r.walk()).as("the store sweep, for off the event loop").isNotNull();
        assertThat(applier.resyncing()).as("acks do not wait for the sweep").isFalse();
        // at once: the older keys are gone for readers, the older queue entry too
        assertThat(stored("done")).isNull();
        assertThat(unfinished.contains(bytes("pending"))).isFalse();
        assertThat(unfinished.newest(bytes("after")).txId()).isEqualTo(tx(4));
        assertThat(unfinished.contains(bytes("early"))).isFalse();
        assertThat(stored("early")).isEqualTo(StoredValue.complete(tx(5), V3));

        // the pending pre-flush value arrives late: discarded, not resurrected (and acked)
        assertThat(applier.apply(whole(tx(2), "pending", V2))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("pending")).isNull();
        // so is a tombstone of a pre-flush delete
        assertThat(applier.apply(tombstone(tx(1), "done"))).isEqualTo(Outcome.SUPERSEDED);

        assertThat(store.stats().entries()).as("hidden, not removed yet").isEqualTo(2);
        r.walk().run();
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.stats().entries())
                .as("the old records are removed, not only hidden")
                .isEqualTo(1);
        assertThat(counters.keysRemovedByFlush.sum()).isEqualTo(1);

        assertThat(applier.apply(whole(tx(4), "after", V1))).isEqualTo(Outcome.APPLIED);
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(stored("after")).isEqualTo(StoredValue.complete(tx(4), V1));
    }

    @Test
    void aFlushHeldBehindAGapTakesEffectOnlyInItsTurn() {
        keys(putKey(tx(1), "a", V1));
        applier.apply(whole(tx(1), "a", V1));
        // the flush at 3 arrives before the write at 2
        KeyResult held = keys(flush(tx(3)));
        assertThat(held.walk()).isNull();
        assertThat(stored("a")).isNotNull();

        KeyResult r = keys(putKey(tx(2), "b", V2));
        assertThat(r.ack()).isEqualTo(tx(3));
        assertThat(r.walk()).isNotNull();
        assertThat(stored("a")).isNull();
        assertThat(unfinished.contains(bytes("b")))
                .as("b was written before the flush")
                .isFalse();
        r.walk().run();
        assertThat(store.stats().entries()).isZero();
    }

    @Test
    void aFlushHeldBehindAResyncIsAppliedAndSweptWhenTheResyncEnds() {
        assertThat(keys(flush(tx(7))).walk()).as("held behind a gap").isNull();
        applier.onResyncBegin(tx(6));
        keys(putKey(tx(3), "listed", V1));
        applier.apply(whole(tx(3), "listed", V1));
        BackupApplier.ResyncWalk walk = applier.endListing(tx(6));

        assertThat(applier.contiguous()).isEqualTo(tx(7));
        assertThat(stored("listed"))
                .as("flushed by the packet released at the end")
                .isNull();
        walk.run();
        assertThat(store.stats().entries()).isZero();
        assertThat(applier.apply(whole(tx(5), "late", V2))).isEqualTo(Outcome.SUPERSEDED);
    }

    @Test
    void aRenameOfAValueThisBackupHoldsIsAppliedAtOnceFromItsCopy() {
        keys(putKey(tx(1), "src", V1), putKey(tx(2), "dst", V2));
        applier.apply(whole(tx(1), "src", V1));
        // dst's own older value never arrived: the rename overwrites it anyway

        keys(renameKey(tx(3), "src", "dst", V1));

        assertThat(stored("dst")).isEqualTo(StoredValue.complete(tx(3), V1));
        assertThat(stored("src").state()).isEqualTo(RecordState.TOMBSTONE);
        assertThat(stored("src").txId()).isEqualTo(tx(3));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(counters.renamesFromCopy.sum()).isEqualTo(1);

        // the primary re-ships both under their names: they arrive superseded
        assertThat(applier.apply(whole(tx(3), "dst", V1))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(applier.apply(tombstone(tx(3), "src"))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(applier.apply(whole(tx(2), "dst", V2))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("dst")).isEqualTo(StoredValue.complete(tx(3), V1));
    }

    /** A hash this backup holds complete at {@code txId} under {@code key}, its key packet announced. */
    private void heldHash(TxId txId, String key, String... fieldsAndValues) {
        keys(putKey(txId, key, new byte[0]));
        applier.apply(whole(txId, key, new byte[0]));
        store.delete(bytes(key)); // the value shipping of structures is another step: the store makes it here
        List<Member> ms = new java.util.ArrayList<>();
        for (int i = 0; i < fieldsAndValues.length; i += 2) {
            ms.add(new Member(bytes(fieldsAndValues[i]), bytes(fieldsAndValues[i + 1])));
        }
        store.putMembers(bytes(key), ValueType.HASH, ms, false, () -> txId);
    }

    @Test
    void aRenameOfAHashThisBackupHoldsMovesItsMembersAtOnce() {
        heldHash(tx(1), "src", "f", "v", "g", "w");
        keys(putKey(tx(2), "dst", V2));
        applier.apply(whole(tx(2), "dst", V2));

        keys(KeyPacket.rename(tx(3), bytes("src"), bytes("dst"), 0, 0, 4_000_000_000_000L));

        RecordHeader h = store.header(bytes("dst"));
        assertThat(h)
                .isEqualTo(RecordHeader.structure(RecordState.COMPLETE, tx(3), ValueType.HASH, 4_000_000_000_000L));
        assertThat(store.getMembers(bytes("dst"), ValueType.HASH, List.of(bytes("f"), bytes("g"))))
                .containsExactly(bytes("v"), bytes("w"));
        assertThat(stored("src")).isEqualTo(StoredValue.tombstone(tx(3)));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(counters.renamesFromCopy.sum()).isEqualTo(1);
        store.delete(bytes("dst"));
        store.delete(bytes("src"));
        assertThat(store.stats().valueBytes())
                .as("the members were moved, not copied")
                .isZero();
    }

    @Test
    void aRenameOfAHashOntoANewerDestinationOnlyDeletesTheSource() {
        heldHash(tx(1), "src", "f", "v");
        assertThat(applier.apply(whole(tx(3), "dst", V3))).isEqualTo(Outcome.APPLIED);
        keys(KeyPacket.rename(tx(2), bytes("src"), bytes("dst"), 0, 0), putKey(tx(3), "dst", V3));
        assertThat(stored("dst")).isEqualTo(StoredValue.complete(tx(3), V3));
        assertThat(stored("src")).isEqualTo(StoredValue.tombstone(tx(2)));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(store.stats().valueBytes()).isEqualTo(V3.length);
    }

    @Test
    void aRenameOfAnUnfinishedValueDeletesTheSourceAtOnceAndLeavesTheNewNameUnfinished() {
        keys(putKey(tx(1), "src", V1));

        keys(renameKey(tx(2), "src", "dst", V1));

        // after a failover now the rename has happened: src gone, dst fenced (never an old value)
        assertThat(stored("src")).isEqualTo(StoredValue.tombstone(tx(2)));
        assertThat(unfinished.contains(bytes("src"))).isFalse();
        assertThat(unfinished.newest(bytes("dst")).txId()).isEqualTo(tx(2));
        assertThat(unfinished.newest(bytes("dst")).valueLength()).isEqualTo(V1.length);
        assertThat(stored("dst")).isNull();
        assertThat(counters.renamesFromCopy.sum()).isZero();

        // the old name's value arrives late: superseded by the tombstone
        assertThat(applier.apply(whole(tx(1), "src", V1))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("src")).isEqualTo(StoredValue.tombstone(tx(2)));
        // the value re-shipped under the new name resolves it
        assertThat(applier.apply(whole(tx(2), "dst", V1))).isEqualTo(Outcome.APPLIED);
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(stored("dst")).isEqualTo(StoredValue.complete(tx(2), V1));
    }

    @Test
    void aRenameOntoANewerDestinationOnlyDeletesTheSource() {
        keys(putKey(tx(1), "src", V1));
        applier.apply(whole(tx(1), "src", V1));
        // dst's value from after the rename arrived first
        assertThat(applier.apply(whole(tx(3), "dst", V3))).isEqualTo(Outcome.APPLIED);
        keys(renameKey(tx(2), "src", "dst", V1), putKey(tx(3), "dst", V3));
        assertThat(stored("dst")).isEqualTo(StoredValue.complete(tx(3), V3));
        assertThat(stored("src")).isEqualTo(StoredValue.tombstone(tx(2)));
        assertThat(unfinished.isEmpty()).isTrue();
    }

    @Test
    void aRenameWhoseSourceCopyDiffersFromTheAnnouncedValueWaitsForTheValues() {
        keys(putKey(tx(1), "src", V2));
        applier.apply(whole(tx(1), "src", V2));
        // announced with another checksum (e.g. a newer write of src this backup has not seen whole)
        keys(renameKey(tx(2), "src", "dst", V3));
        assertThat(unfinished.contains(bytes("dst"))).isTrue();
        assertThat(stored("dst")).isNull();
        assertThat(counters.renamesFromCopy.sum()).isZero();
    }

    @Test
    void aRenameAfterAFlushDoesNotUseAFlushedCopy() {
        keys(putKey(tx(1), "src", V1));
        applier.apply(whole(tx(1), "src", V1));
        KeyResult r = keys(flush(tx(2)), putKey(tx(3), "src", V1), renameKey(tx(4), "src", "dst", V1));
        // src was written again after the flush with the same bytes, not arrived yet: no copy to use
        assertThat(unfinished.newest(bytes("dst")).txId()).isEqualTo(tx(4));
        assertThat(stored("dst")).isNull();
        r.walk().run();
        assertThat(stored("src")).isEqualTo(StoredValue.tombstone(tx(4)));
        assertThat(unfinished.contains(bytes("src"))).isFalse();
    }
}
