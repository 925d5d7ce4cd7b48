package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.deleteKey;
import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.renameKey;
import static dev.kvs.replication.backup.Packets.tombstone;
import static dev.kvs.replication.backup.Packets.tx;
import static dev.kvs.replication.backup.Packets.whole;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.WriteStages;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.backup.BackupApplier.Outcome;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An EXEC is one unit on the backup: {@link BackupApplier} holds a unit's values until all can apply. */
class BackupApplierUnitTest {
    private final KvStore store =
            HeapKvStore.open(StoreConfig.builder().maxValueBytes(1024).build());
    private final UnfinishedKeys unfinished = new UnfinishedKeys();
    private final BackupCounters counters = new BackupCounters();
    /** What each guarded step found in the store when it ended: every unit applied alone. */
    private final List<String> alone = new ArrayList<>();

    private BackupApplier applier = applier(BackupApplier.DEFAULT_MAX_UNIT_BYTES);
    private final List<String> settled = new CopyOnWriteArrayList<>();

    private static final byte[] V1 = bytes("one");
    private static final byte[] V2 = bytes("two");
    private static final byte[] V3 = bytes("three");

    private BackupApplier applier(long maxUnitBytes) {
        return new BackupApplier(
                store, unfinished, new UnfinishedKeys(), counters, 1000, WriteStages.OFF, maxUnitBytes, step -> {
                    step.run();
                    alone.add("unit");
                });
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** {@code packets} as one unit starting at the first of them. */
    private static List<KeyPacket> unit(KeyPacket... packets) {
        Frame.Unit u = new Frame.Unit(packets[0].txId(), packets.length);
        List<KeyPacket> out = new ArrayList<>();
        for (KeyPacket p : packets) out.add(p.inUnit(u));
        return out;
    }

    private void keys(List<KeyPacket> packets) {
        applier.onKeyBatch(packets);
    }

    private Outcome value(ValueAssembler.Whole v) {
        return applier.apply(
                v,
                (o, refused) -> settled.add(new String(v.key()) + "@" + v.txId().seq() + "=" + o));
    }

    private StoredValue stored(String key) {
        return store.get(bytes(key));
    }

    @Test
    void aUnitsFirstValueIsNotVisibleUntilItsSecondArrives() {
        keys(unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2)));

        assertThat(value(whole(tx(1), "a", V1))).isEqualTo(Outcome.HELD);
        assertThat(stored("a")).isNull();
        assertThat(applier.heldUnits()).isEqualTo(1);
        assertThat(applier.heldUnitBytes()).isEqualTo(V1.length);
        assertThat(settled).isEmpty(); // its ack waits too

        assertThat(value(whole(tx(2), "b", V2))).isEqualTo(Outcome.HELD);
        assertThat(stored("a")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(stored("b")).isEqualTo(StoredValue.complete(tx(2), V2));
        assertThat(settled).containsExactly("a@1=APPLIED", "b@2=APPLIED");
        assertThat(alone).containsExactly("unit");
        assertThat(applier.heldUnits()).isZero();
        assertThat(applier.heldUnitBytes()).isZero();
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(counters.unitsApplied.sum()).isEqualTo(1);
    }

    @Test
    void aMemberOverwrittenByANewerWriteNeedsNoValue() {
        keys(unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2)));
        keys(List.of(putKey(tx(3), "b", V3)));
        assertThat(value(whole(tx(1), "a", V1))).isEqualTo(Outcome.HELD);

        // b's newer value lands (it is no member): b no longer awaits the unit's write, a may apply
        assertThat(value(whole(tx(3), "b", V3))).isEqualTo(Outcome.APPLIED);
        assertThat(stored("a")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(settled).containsExactly("a@1=APPLIED");
        // the unit's own value of b, shipped late, changes nothing
        assertThat(value(whole(tx(2), "b", V2))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("b")).isEqualTo(StoredValue.complete(tx(3), V3));
    }

    @Test
    void aUnitWritingAKeyTwiceNeedsOnlyItsLastValue() {
        keys(unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2), deleteKey(tx(3), "a")));
        value(whole(tx(2), "b", V2)); // the primary ships a's newest value only: its delete

        assertThat(value(tombstone(tx(3), "a"))).isEqualTo(Outcome.HELD);

        assertThat(stored("b")).isEqualTo(StoredValue.complete(tx(2), V2));
        assertThat(stored("a")).isNull();
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(applier.heldUnits()).isZero();
    }

    @Test
    void aDeleteInAUnitWaitsForTheUnit() {
        keys(List.of(putKey(tx(1), "k", V1)));
        value(whole(tx(1), "k", V1));
        keys(unit(deleteKey(tx(2), "k"), putKey(tx(3), "j", V2)));

        assertThat(value(tombstone(tx(2), "k"))).isEqualTo(Outcome.HELD);
        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(1), V1));

        value(whole(tx(3), "j", V2));
        assertThat(stored("k")).isNull();
        assertThat(stored("j")).isEqualTo(StoredValue.complete(tx(3), V2));
    }

    @Test
    void aRenameInAUnitMovesNothingUntilTheUnitApplies() {
        keys(List.of(putKey(tx(1), "a", V1)));
        value(whole(tx(1), "a", V1));
        keys(unit(renameKey(tx(2), "a", "b", V1), putKey(tx(3), "c", V2)));

        assertThat(stored("a")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(stored("b")).isNull();
        assertThat(value(whole(tx(2), "b", V1))).isEqualTo(Outcome.HELD);
        assertThat(stored("b")).isNull();

        value(whole(tx(3), "c", V2));
        assertThat(stored("a").state()).isEqualTo(dev.kvs.core.RecordState.TOMBSTONE);
        assertThat(stored("b")).isEqualTo(StoredValue.complete(tx(2), V1));
        assertThat(stored("c")).isEqualTo(StoredValue.complete(tx(3), V2));
        assertThat(unfinished.isEmpty()).isTrue();
    }

    @Test
    void aPromotionWithAUnitHalfArrivedFencesAllItsKeys() {
        keys(List.of(putKey(tx(1), "a", V1)));
        value(whole(tx(1), "a", V1));
        keys(unit(putKey(tx(2), "a", V2), putKey(tx(3), "b", V2), renameKey(tx(4), "c", "d", V3)));
        value(whole(tx(2), "a", V2));

        applier.dropHeld();

        assertThat(applier.heldUnits()).isZero();
        assertThat(settled).isEmpty(); // never acknowledged
        assertThat(stored("a")).isEqualTo(StoredValue.complete(tx(1), V1)); // the old value, fenced
        for (String k : List.of("a", "b", "c", "d")) {
            assertThat(unfinished.contains(bytes(k))).as(k).isTrue();
        }
        // a value of the gone primary arriving now is applied as any other (the node fences it anyway)
        assertThat(value(whole(tx(3), "b", V2))).isEqualTo(Outcome.APPLIED);
    }

    @Test
    void aFullResyncReleasesHeldUnitsAsPlainValues() {
        keys(unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2)));
        value(whole(tx(1), "a", V1));

        applier.onResyncBegin(tx(2));

        assertThat(stored("a")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(settled).containsExactly("a@1=APPLIED");
        assertThat(applier.heldUnits()).isZero();
        assertThat(alone).isEmpty();
    }

    @Test
    void aUnitBegunBeforeAFullResyncsPointIsNotHeld() {
        List<KeyPacket> u = unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2));
        applier.onResyncBegin(tx(1));
        keys(List.of(putKey(tx(1), "a", V1))); // the listing names a, without its unit
        applier.onResyncEnd(tx(1));

        keys(List.of(u.get(1))); // the rest of the unit follows the resync's point

        assertThat(value(whole(tx(2), "b", V2))).isEqualTo(Outcome.APPLIED); // held, it would wait forever
        assertThat(applier.heldUnits()).isZero();
    }

    @Test
    void aUnitPastTheHeldBytesBoundIsBrokenAndItsValuesApplyAsTheyCome() {
        applier = applier(V1.length + 1);
        keys(unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2), putKey(tx(3), "c", V3)));
        assertThat(value(whole(tx(1), "a", V1))).isEqualTo(Outcome.HELD);

        assertThat(value(whole(tx(2), "b", V2))).isEqualTo(Outcome.APPLIED);

        assertThat(stored("a")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(counters.unitsBroken.sum()).isEqualTo(1);
        assertThat(value(whole(tx(3), "c", V3))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.heldUnits()).isZero();
    }

    @Test
    void valuesOfNoUnitApplyAtOnceWhileAUnitIsHeld() {
        keys(unit(putKey(tx(1), "a", V1), putKey(tx(2), "b", V2)));
        keys(List.of(putKey(tx(3), "x", V3)));
        value(whole(tx(1), "a", V1));

        assertThat(value(whole(tx(3), "x", V3))).isEqualTo(Outcome.APPLIED);
        assertThat(stored("a")).isNull();
    }
}
