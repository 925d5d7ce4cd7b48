package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.asyncKey;
import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.deleteKey;
import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.skip;
import static dev.kvs.replication.backup.Packets.tombstone;
import static dev.kvs.replication.backup.Packets.tx;
import static dev.kvs.replication.backup.Packets.whole;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.Checksums;
import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.core.ValueType;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.backup.BackupApplier.KeyResult;
import dev.kvs.replication.backup.BackupApplier.Outcome;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BackupApplierTest {
    private final KvStore store =
            HeapKvStore.open(StoreConfig.builder().maxValueBytes(1024).build());
    private final UnfinishedKeys unfinished = new UnfinishedKeys();
    private final BackupCounters counters = new BackupCounters();
    private BackupApplier applier = new BackupApplier(store, unfinished, counters, 1000);

    private static final byte[] V1 = bytes("one");
    private static final byte[] V2 = bytes("two");

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

    /** {@code value} staged whole in {@code s}, as the assembler hands it over. */
    private static ValueAssembler.Whole staged(KvStore s, TxId txId, String key, byte[] value) {
        ValueStage stage = s.stage(value.length);
        stage.write(value, 0, value.length);
        return new ValueAssembler.Whole(txId, Op.PUT, bytes(key), null, stage, Checksums.crc32c(value), 0);
    }

    @Test
    void aStagedValueIsCommittedIfNewestAndItsStageIsClosedWhateverBecomesOfIt() {
        byte[] big = new byte[300_000];
        java.util.Arrays.fill(big, (byte) 7);
        try (KvStore s = KvStore.builder().maxBytes(16 << 20).open()) {
            BackupApplier a = new BackupApplier(s, unfinished, counters, 1000);
            a.onKeyBatch(List.of(skip(tx(1)), putKey(tx(2), "k", big)));
            assertThat(unfinished.newest(bytes("k")).txId()).isEqualTo(tx(2));

            assertThat(a.apply(staged(s, tx(2), "k", big))).isEqualTo(Outcome.APPLIED);
            assertThat(s.get(bytes("k"))).isEqualTo(StoredValue.complete(tx(2), big));
            assertThat(unfinished.isEmpty()).isTrue();

            assertThat(a.apply(staged(s, tx(1), "k", big))).isEqualTo(Outcome.SUPERSEDED);
            a.onKeyBatch(List.of(putKey(tx(3), "k", big)));
            assertThat(a.apply(staged(s, tx(3), "k", new byte[300_001]))).isEqualTo(Outcome.MISMATCH);

            assertThat(s.get(bytes("k"))).isEqualTo(StoredValue.complete(tx(2), big));
            assertThat(s.stats().valueBytes()).as("no stage holds room").isEqualTo(big.length);
        }
    }

    @Test
    void aKeyPacketMakesItsKeyUnfinishedUntilItsValueArrives() {
        KeyResult r = keys(putKey(tx(1), "k", V1));

        assertThat(r).isEqualTo(new KeyResult(tx(1), null));
        assertThat(unfinished.newest(bytes("k")).txId()).isEqualTo(tx(1));

        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.APPLIED);

        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(counters.valuesApplied.sum()).isEqualTo(1);
    }

    @Test
    void theAbsoluteExpiryOfAKeyPacketStaysWithTheFencedKeyAndThatOfItsValueWithTheRecord() {
        KeyPacket p = new KeyPacket(tx(1), Op.PUT, bytes("k"), V1.length, Checksums.crc32c(V1), 1_700_000_000_500L);
        keys(p);
        assertThat(unfinished.newest(bytes("k")).expireAtMillis()).isEqualTo(1_700_000_000_500L);

        Outcome o = applier.apply(
                new ValueAssembler.Whole(tx(1), Op.PUT, bytes("k"), V1, Checksums.crc32c(V1), 1_700_000_000_500L));

        assertThat(o).isEqualTo(Outcome.APPLIED);
        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(1), V1, 1_700_000_000_500L));
        assertThat(unfinished.isEmpty()).isTrue();
    }

    @Test
    void aValueArrivingBeforeItsKeyPacketMakesThePacketSuperseded() {
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.APPLIED);

        KeyResult r = keys(putKey(tx(1), "k", V1));

        assertThat(r.ack()).isEqualTo(tx(1));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(1), V1));
    }

    @Test
    void anOlderValueArrivingAfterANewerOneIsSupersededNotApplied() {
        keys(putKey(tx(1), "k", V1), putKey(tx(2), "k", V2));

        assertThat(applier.apply(whole(tx(2), "k", V2))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED);

        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(2), V2));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(counters.valuesSuperseded.sum()).isEqualTo(1);
    }

    @Test
    void theSameValueTwiceIsAppliedOnce() {
        keys(putKey(tx(1), "k", V1));

        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED);
    }

    @Test
    void aDeleteBehindTheKeyChannelLeavesNoTombstoneAndALatePutFindsNothingAwaitingIt() {
        keys(putKey(tx(1), "k", V1), deleteKey(tx(2), "k"));
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.APPLIED);

        assertThat(applier.apply(tombstone(tx(2), "k"))).isEqualTo(Outcome.APPLIED);
        assertThat(stored("k")).isNull();
        assertThat(store.stats().entries()).isZero();
        // the same value again (a duplicate, or one resent on another stream) must not bring it back
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED);

        assertThat(stored("k")).isNull();
        assertThat(store.stats().entries()).isZero();
        assertThat(counters.valuesNotAwaited.sum()).isEqualTo(1);
        assertThat(unfinished.isEmpty()).isTrue();
    }

    @Test
    void aDeleteWhoseValueOvertookItsKeyPacketLeavesATombstoneUntilTheKeyChannelPassesIt() {
        keys(putKey(tx(1), "k", V1));

        assertThat(applier.apply(tombstone(tx(2), "k"))).isEqualTo(Outcome.APPLIED);
        assertThat(stored("k")).isEqualTo(StoredValue.tombstone(tx(2)));
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED); // the tombstone's work
        assertThat(applier.collectTombstones()).isZero(); // tx 2 is beyond the key channel: still needed

        keys(deleteKey(tx(2), "k"));
        assertThat(applier.collectTombstones()).isEqualTo(1);

        assertThat(stored("k")).isNull();
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("k")).isNull();
        assertThat(counters.tombstonesCollected.sum()).isEqualTo(1);
        assertThat(unfinished.isEmpty()).isTrue();
    }

    @Test
    void anOlderValueStillAwaitedIsNotStoppedByACollectedTombstoneOfAnotherKey() {
        keys(putKey(tx(1), "a", V1), putKey(tx(2), "b", V1), deleteKey(tx(3), "b"));
        applier.apply(tombstone(tx(3), "b"));

        assertThat(applier.apply(whole(tx(1), "a", V1))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(whole(tx(2), "b", V1))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("a").txId()).isEqualTo(tx(1));
        assertThat(stored("b")).isNull();
    }

    @Test
    void aDeleteOfAKeyWhoseValueNeverCameLeavesNothingAndTakesNoRoom() {
        keys(putKey(tx(1), "k", V1), deleteKey(tx(2), "k"));

        assertThat(applier.apply(tombstone(tx(2), "k"))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED);

        assertThat(stored("k")).isNull();
        assertThat(store.stats().entries()).isZero();
        assertThat(unfinished.isEmpty()).isTrue();
    }

    @Test
    void onlyTheLatestValueOfAConflatedKeyArrivingResolvesEveryEarlierPacket() {
        keys(skip(tx(1)), skip(tx(2)), skip(tx(3)), skip(tx(4)));
        keys(putKey(tx(5), "k", V1));
        keys(putKey(tx(6), "other", V1), skip(tx(7)), putKey(tx(8), "other", V2));
        keys(putKey(tx(9), "k", V2));
        assertThat(unfinished.entries(bytes("k")))
                .extracting(UnfinishedKeys.Pending::txId)
                .containsExactly(tx(5), tx(9));

        assertThat(applier.apply(whole(tx(9), "k", V2))).isEqualTo(Outcome.APPLIED);

        assertThat(unfinished.contains(bytes("k"))).isFalse();
        assertThat(unfinished.entries(bytes("other"))).hasSize(2);
    }

    @Test
    void aValueOfAnOlderTxIdResolvesOnlyUpToTheStoredTxId() {
        keys(putKey(tx(1), "k", V1), putKey(tx(2), "k", V2));

        applier.apply(whole(tx(1), "k", V1));

        assertThat(unfinished.entries(bytes("k")))
                .extracting(UnfinishedKeys.Pending::txId)
                .containsExactly(tx(2));
    }

    @Test
    void aKeyPacketOlderThanTheStoredRecordIsNotQueued() {
        applier.apply(whole(tx(5), "k", V2));

        keys(putKey(tx(1), "k", V1), putKey(tx(2), "j", V1));

        assertThat(unfinished.contains(bytes("k"))).isFalse();
        assertThat(unfinished.contains(bytes("j"))).isTrue();
    }

    @Test
    void aValueThatDiffersFromItsKeyPacketIsNotApplied() {
        keys(putKey(tx(1), "k", V1));

        assertThat(applier.apply(whole(tx(1), "k", V2))).isEqualTo(Outcome.MISMATCH);

        assertThat(stored("k")).isNull();
        assertThat(unfinished.contains(bytes("k"))).isTrue();
    }

    @Test
    void skipPacketsOnlyAdvanceTheSequence() {
        KeyResult r = keys(skip(tx(1)), skip(tx(2)));

        assertThat(r.ack()).isEqualTo(tx(2));
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(store.stats().entries()).isZero();
    }

    @Test
    void anAsyncWriteIsAwaitedWithoutFencingItsKeyAndItsValueApplied() {
        keys(asyncKey(tx(1), "k"), asyncKey(tx(2), "gone"), asyncKey(tx(3), "gone"));

        assertThat(unfinished.isEmpty()).isTrue(); // nothing fenced: losing it silently is async's risk
        assertThat(applier.asyncValues().size()).isEqualTo(2);
        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(tombstone(tx(3), "gone"))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(whole(tx(2), "gone", V1))).isEqualTo(Outcome.SUPERSEDED); // a late, older value

        assertThat(stored("k").txId()).isEqualTo(tx(1));
        assertThat(stored("gone")).isNull();
        assertThat(applier.asyncValues().isEmpty()).isTrue();
    }

    @Test
    void aValueOfAFailedWritesSeqIsDiscarded() {
        keys(skip(tx(1)));

        assertThat(applier.apply(whole(tx(1), "k", V1))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("k")).isNull();
    }

    @Test
    void aGapIsHeldAndAsksForAResendThenFillsIn() {
        KeyResult gap = keys(putKey(tx(1), "a", V1), putKey(tx(3), "c", V1));

        assertThat(gap).isEqualTo(new KeyResult(tx(1), tx(1)));
        assertThat(unfinished.contains(bytes("c"))).isFalse(); // held, not guessed
        assertThat(counters.resendsRequested.sum()).isEqualTo(1);

        KeyResult filled = keys(putKey(tx(2), "b", V1), putKey(tx(3), "c", V1));

        assertThat(filled).isEqualTo(new KeyResult(tx(3), null));
        assertThat(unfinished.size()).isEqualTo(3);
        assertThat(counters.duplicateKeyPackets.sum()).isEqualTo(1);
    }

    @Test
    void duplicatesAreCountedAndStillAcked() {
        keys(putKey(tx(1), "a", V1));

        KeyResult r = keys(putKey(tx(1), "a", V1));

        assertThat(r).isEqualTo(new KeyResult(tx(1), null));
        assertThat(counters.duplicateKeyPackets.sum()).isEqualTo(1);
        assertThat(unfinished.entryCount()).isEqualTo(1);
    }

    @Test
    void aFullResyncQueuesWhatIsNewerRemovesWhatItDidNotListAndSetsContiguous() {
        TxId upTo = tx(20);
        applier.apply(whole(tx(3), "same", V1));
        applier.apply(whole(tx(2), "older", V1));
        applier.apply(whole(tx(4), "gone", V1));
        applier.apply(whole(tx(21), "newer", V1)); // a value that overtook the listing
        unfinished.add(bytes("goneToo"), tx(6), 3, 0);

        applier.onResyncBegin(upTo);
        assertThat(applier.resyncing()).isTrue();
        KeyResult during = keys(putKey(tx(9), "older", V2), putKey(tx(3), "same", V1), putKey(tx(15), "fresh", V2));
        assertThat(during.resend()).isNull(); // listings are not contiguous: no gap
        assertThat(during.wants()) // only the values this backup lacks are shipped
                .extracting(p -> new String(p.key()) + "@" + p.txId())
                .containsExactly("older@1:9", "fresh@1:15");
        KeyResult end = applier.onResyncEnd(upTo);

        assertThat(end).isEqualTo(new KeyResult(upTo, null));
        assertThat(applier.contiguous()).isEqualTo(upTo);
        assertThat(applier.resyncing()).isFalse();
        assertThat(unfinished.snapshot())
                .extracting(p -> new String(p.key()) + "@" + p.txId())
                .containsExactlyInAnyOrder("older@1:9", "fresh@1:15");
        assertThat(stored("same")).isEqualTo(StoredValue.complete(tx(3), V1));
        assertThat(stored("gone")).isEqualTo(StoredValue.tombstone(upTo));
        assertThat(stored("newer")).isEqualTo(StoredValue.complete(tx(21), V1));
        assertThat(store.size()).isEqualTo(3); // same, older, newer
        assertThat(counters.resyncs.sum()).isEqualTo(1);
        assertThat(counters.keysRemovedByResync.sum()).isEqualTo(1);

        assertThat(keys(putKey(tx(21), "newer", V1)).ack()).isEqualTo(tx(21));
        assertThat(unfinished.contains(bytes("newer"))).isFalse();
    }

    @Test
    void aResyncWantsAListedValueItHoldsOnlyWhenItsLengthOrChecksumDiffers() {
        store.put(bytes("same"), StoredValue.complete(tx(3), V1));
        store.put(bytes("differs"), StoredValue.complete(tx(4), V1));
        store.put(bytes("tomb"), StoredValue.tombstone(tx(5)));
        applier = new BackupApplier(store, unfinished, counters, 1000); // a backup restarted with them

        applier.onResyncBegin(tx(9));
        KeyResult r = keys(putKey(tx(3), "same", V1), putKey(tx(4), "differs", V2), putKey(tx(5), "tomb", V1));

        assertThat(r.wants()).extracting(p -> new String(p.key())).containsExactly("differs", "tomb");
        assertThat(keys(putKey(tx(6), "after", V1)).wants()).hasSize(1);
        applier.onResyncEnd(tx(9));
        assertThat(keys(putKey(tx(10), "streaming", V1)).wants()).isEmpty(); // only a listing is answered
        assertThat(counters.resyncKeysListed.sum()).isEqualTo(4);
        assertThat(counters.resyncValuesWanted.sum()).isEqualTo(3);
    }

    /**
     * A value a resync wanted because the record of its TxId here is not the listed one replaces that record
     * (before, it was dropped as no newer than the store's, and the key stayed as it was, unfenced). Only once:
     * a second value of the TxId is no newer.
     */
    @Test
    void aValueAResyncWantedAtTheTxIdHeldReplacesTheRecordOnce() {
        store.put(bytes("differs"), StoredValue.complete(tx(4), V1));
        store.put(bytes("same"), StoredValue.complete(tx(3), V1));
        applier = new BackupApplier(store, unfinished, counters, 1000); // a backup restarted with them
        applier.onResyncBegin(tx(9));
        KeyPacket hash = new KeyPacket(tx(5), Op.writing(ValueType.HASH), bytes("hash"), 0, 0x5eed);
        assertThat(keys(putKey(tx(4), "differs", V2), putKey(tx(3), "same", V1), hash)
                        .wants())
                .extracting(p -> new String(p.key()))
                .containsExactly("differs", "hash");
        // a structure's listed fingerprint is not its value's checksum: its fenced entry has none, as a key
        // packet's (a failback's take-back compares a structure by TxId alone)
        assertThat(unfinished.newest(bytes("hash")).checksum()).isZero();
        applier.onResyncEnd(tx(9));

        assertThat(applier.apply(whole(tx(4), "differs", V2))).isEqualTo(Outcome.APPLIED);
        assertThat(stored("differs")).isEqualTo(StoredValue.complete(tx(4), V2));
        assertThat(unfinished.newest(bytes("differs"))).isNull();
        assertThat(applier.apply(whole(tx(4), "differs", V1))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("differs")).isEqualTo(StoredValue.complete(tx(4), V2));
        // a value of the TxId of a record held as listed is no newer, as before
        assertThat(applier.apply(whole(tx(3), "same", V2))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(stored("same")).isEqualTo(StoredValue.complete(tx(3), V1));
    }

    @Test
    void aDeleteThatCameBeforeItsKeyPacketIsHeldThenAppliedWithoutATombstone() {
        keys(putKey(tx(1), "k", V1));
        applier.apply(whole(tx(1), "k", V1));
        List<Outcome> later = new java.util.concurrent.CopyOnWriteArrayList<>();

        assertThat(applier.apply(tombstone(tx(2), "k"), (o, refused) -> later.add(o)))
                .isEqualTo(Outcome.HELD);
        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(1), V1)); // as if it were still on its way
        assertThat(applier.heldDeletes()).isEqualTo(1);
        assertThat(applier.heldDue()).isFalse();
        assertThat(applier.releaseHeld()).isZero();

        keys(deleteKey(tx(2), "k"));
        assertThat(applier.heldDue()).isTrue();
        assertThat(applier.releaseHeld()).isEqualTo(1);

        assertThat(later).containsExactly(Outcome.APPLIED);
        assertThat(stored("k")).isNull();
        assertThat(store.stats().entries()).isZero(); // no tombstone was ever written
        assertThat(unfinished.isEmpty()).isTrue();
        // a delete behind the key channel is applied at once, as before
        keys(putKey(tx(3), "j", V1), deleteKey(tx(4), "j"));
        assertThat(applier.apply(tombstone(tx(4), "j"), (o, refused) -> later.add(o)))
                .isEqualTo(Outcome.APPLIED);
        assertThat(later).hasSize(1);
    }

    @Test
    void theHeldDeletesOfAPrimaryThatIsGoneAreDropped() {
        List<Outcome> later = new java.util.concurrent.CopyOnWriteArrayList<>();
        applier.apply(tombstone(tx(2), "k"), (o, refused) -> later.add(o));

        applier.dropHeld();
        keys(putKey(tx(1), "k", V1), deleteKey(tx(2), "k"));

        assertThat(applier.releaseHeld()).isZero();
        assertThat(later).isEmpty();
        assertThat(applier.heldDeletes()).isZero();
    }

    @Test
    void aRecordTheStoreHeldWhenTheBackupStartedKeepsAnOlderKeyPacketOutOfTheQueue() {
        store.put(bytes("k"), StoredValue.complete(tx(5), V1)); // a persisted backup restarted, say
        BackupApplier restarted = new BackupApplier(store, unfinished, counters, 1000);

        restarted.onKeyBatch(List.of(skip(tx(1)), skip(tx(2)), skip(tx(3)), putKey(tx(4), "k", V2)));
        assertThat(unfinished.contains(bytes("k")))
                .as("the store's record is newer")
                .isFalse();
        restarted.onKeyBatch(List.of(putKey(tx(5), "k", V1), putKey(tx(6), "k", V2)));

        assertThat(unfinished.snapshot())
                .extracting(p -> new String(p.key()) + "@" + p.txId())
                .containsExactly("k@1:6");
    }

    @Test
    void aTombstoneTheStoreHeldWhenTheBackupStartedKeepsAnOlderKeyPacketOutOfTheQueue() {
        store.put(bytes("d"), StoredValue.tombstone(tx(2))); // the store's only record: no live key
        BackupApplier restarted = new BackupApplier(store, unfinished, counters, 1000);

        restarted.onKeyBatch(List.of(putKey(tx(1), "d", V1)));

        assertThat(unfinished.contains(bytes("d")))
                .as("the store's tombstone is newer")
                .isFalse();
    }

    @Test
    void aValueThatOvertookItsKeyPacketKeepsItOutOfTheQueueAndLaterOnesGoIn() {
        assertThat(applier.apply(whole(tx(2), "k", V1))).isEqualTo(Outcome.APPLIED);

        keys(putKey(tx(1), "j", V1), putKey(tx(2), "k", V1), putKey(tx(3), "k", V2));

        assertThat(unfinished.snapshot())
                .extracting(p -> new String(p.key()) + "@" + p.txId())
                .containsExactlyInAnyOrder("j@1:1", "k@1:3");
    }

    @Test
    void aValueThatLandsBetweenTheWatermarksReadAndItsKeysQueueingIsFoundAtTheSecondLook() {
        AtomicReference<BackupApplier> backup = new AtomicReference<>();
        AtomicBoolean landed = new AtomicBoolean();
        // the queue reads its clock as it adds an entry, after the applier read the watermark: a value
        // thread applies the key's value right then, and finds no entry to resolve
        UnfinishedKeys queue = new UnfinishedKeys(1000, () -> {
            if (landed.compareAndSet(false, true)) {
                CompletableFuture.runAsync(() -> backup.get().apply(whole(tx(1), "k", V1)))
                        .join();
            }
            return 0L;
        });
        backup.set(new BackupApplier(store, queue, counters, 1000));

        backup.get().onKeyBatch(List.of(putKey(tx(1), "k", V1)));

        assertThat(landed).isTrue();
        assertThat(stored("k")).isEqualTo(StoredValue.complete(tx(1), V1));
        assertThat(queue.contains(bytes("k"))).as("the key's value is stored").isFalse();
    }

    @Test
    void aResyncListingWantsEachValueOnceEvenWhenAValueLandsBetweenItsTwoLooks() {
        AtomicReference<BackupApplier> backup = new AtomicReference<>();
        AtomicBoolean landed = new AtomicBoolean();
        UnfinishedKeys queue = new UnfinishedKeys(1000, () -> {
            if (landed.compareAndSet(false, true)) { // a newer value of another key lands meanwhile
                CompletableFuture.runAsync(() -> backup.get().apply(whole(tx(5), "z", V1)))
                        .join();
            }
            return 0L;
        });
        backup.set(new BackupApplier(store, queue, counters, 1000));
        backup.get().onResyncBegin(tx(9));

        KeyResult r = backup.get().onKeyBatch(List.of(putKey(tx(3), "k", V2), putKey(tx(4), "j", V1)));

        assertThat(landed).isTrue();
        assertThat(r.wants())
                .extracting(p -> new String(p.key()) + "@" + p.txId())
                .containsExactly("k@1:3", "j@1:4");
    }

    @Test
    void aResyncListingDoesNotWantAValueThatLandedBetweenItsTwoLooks() {
        AtomicReference<BackupApplier> backup = new AtomicReference<>();
        AtomicBoolean landed = new AtomicBoolean();
        UnfinishedKeys queue = new UnfinishedKeys(1000, () -> {
            if (landed.compareAndSet(false, true)) { // k@3 itself lands while it is queued
                CompletableFuture.runAsync(() -> backup.get().apply(whole(tx(3), "k", V2)))
                        .join();
            }
            return 0L;
        });
        backup.set(new BackupApplier(store, queue, counters, 1000));
        backup.get().onResyncBegin(tx(9));

        KeyResult r = backup.get().onKeyBatch(List.of(putKey(tx(3), "k", V2), putKey(tx(4), "j", V1)));

        assertThat(landed).isTrue();
        assertThat(r.wants()).extracting(p -> new String(p.key())).containsExactly("j");
    }

    @Test
    void aLateValueOfAKeyTheResyncRemovedCannotBringItBack() {
        store.put(bytes("gone"), StoredValue.complete(tx(4), V1));
        applier.onResyncBegin(tx(20));
        applier.onResyncEnd(tx(20));

        assertThat(applier.apply(whole(tx(5), "gone", V2))).isEqualTo(Outcome.SUPERSEDED);
        assertThat(store.exists(bytes("gone"))).isFalse();
    }

    @Test
    void aResyncEndWithoutBeginIsAProtocolError() {
        assertThatThrownBy(() -> applier.onResyncEnd(tx(3)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ResyncEnd 1:3 without ResyncBegin");
    }

    @Test
    void aNewKeyChannelAbandonsAnUnfinishedResyncListing() {
        store.put(bytes("kept"), StoredValue.complete(tx(4), V1));
        applier.onResyncBegin(tx(20));

        applier.keyChannelReset();

        assertThat(applier.resyncing()).isFalse();
        assertThatThrownBy(() -> applier.onResyncEnd(tx(20))).isInstanceOf(IllegalStateException.class);
        assertThat(store.exists(bytes("kept"))).isTrue();
    }

    @Test
    void aValueTheStoreRefusesLeavesItsKeyUnfinished() {
        byte[] big = new byte[2000];
        keys(putKey(tx(1), "k", big));

        assertThatThrownBy(() -> applier.apply(whole(tx(1), "k", big))).isInstanceOf(EntryTooLargeException.class);

        assertThat(unfinished.contains(bytes("k"))).isTrue();
        assertThat(stored("k")).isNull();
    }
}
