package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import dev.kvs.replication.BackupCannotStoreException;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class RefusedValuesTest {
    private static final String FULL = "store full: 2 entries (maxEntries 2)";

    private final PendingValues pending = new PendingValues(100, 1 << 20);
    private final RefusedValues refusals = new RefusedValues(pending);

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Writes {@code k} at {@code seq} and ships it: its value is in flight. */
    private TxId shipped(String k, long seq) throws InterruptedException {
        TxId t = TxId.of(1, seq);
        pending.add(key(k), t, 10);
        assertThat(pending.poll(0)).isEqualTo(key(k));
        pending.shipped(key(k), t);
        return t;
    }

    /** Every key queued to ship now, in order. */
    private List<String> queued() throws InterruptedException {
        List<String> keys = new ArrayList<>();
        for (byte[] k; (k = pending.poll(0)) != null; ) keys.add(new String(k, StandardCharsets.UTF_8));
        return keys;
    }

    private void acked(TxId t) {
        ByteKey k = pending.acked(t);
        if (k != null) refusals.landed(k, t);
    }

    @Test
    void aRefusedValueStaysPendingButIsNotShippedAgainAtOnce() throws Exception {
        TxId a = shipped("a", 1);

        refusals.refused(a, StoreRefusal.STORE_FULL, FULL);

        assertThat(pending.count()).isEqualTo(1);
        assertThat(pending.inFlight()).isZero();
        assertThat(queued()).isEmpty();
        assertThat(refusals.refusing()).isEqualTo(1);
    }

    @Test
    void whileAValueIsRefusedWritesGetTheReasonAndWhatTheBackupSaid() throws Exception {
        assertThat(refusals.refusal(TxId.of(1, 9))).isNull();
        refusals.refused(shipped("a", 1), StoreRefusal.STORE_FULL, FULL);

        BackupCannotStoreException e = refusals.refusal(TxId.of(1, 9));

        assertThat(e.txId()).isEqualTo(TxId.of(1, 9));
        assertThat(e.getMessage())
                .startsWith("backup cannot store values: store full; write 1:9 is on the primary only")
                .contains(FULL);
    }

    @Test
    void eachRetryShipsOneRefusedValueTheOneRefusedLongestAgo() throws Exception {
        TxId a = shipped("a", 1);
        TxId b = shipped("b", 2);
        TxId c = shipped("c", 3);
        refusals.refused(a, StoreRefusal.STORE_FULL, FULL);
        refusals.refused(b, StoreRefusal.STORE_FULL, FULL);
        refusals.refused(c, StoreRefusal.STORE_FULL, FULL);

        refusals.retry();
        assertThat(queued()).containsExactly("a");
        pending.shipped(key("a"), a);
        refusals.refused(a, StoreRefusal.STORE_FULL, FULL); // still full: a goes to the back

        refusals.retry();
        assertThat(queued()).containsExactly("b");
        refusals.retry();
        assertThat(queued()).containsExactly("c");
        refusals.retry();
        assertThat(queued()).containsExactly("a");
        refusals.retry();
        assertThat(queued())
                .as("b and c are out as probes; a is not refused again yet")
                .isEmpty();
    }

    @Test
    void aValueRefusedAsTooLargeIsNoProbeButShipsAgainOnceAValueChannelReconnects() throws Exception {
        TxId big = shipped("big", 1);
        TxId b = shipped("b", 2);
        refusals.refused(big, StoreRefusal.VALUE_TOO_LARGE, "value of 2000 bytes > maxValueBytes 1000");
        refusals.refused(b, StoreRefusal.STORE_FULL, FULL);

        refusals.retry();
        assertThat(queued()).containsExactly("b");
        pending.shipped(key("b"), b);
        refusals.refused(b, StoreRefusal.STORE_FULL, FULL);
        refusals.retry();
        assertThat(queued()).containsExactly("b");
        pending.shipped(key("b"), b);

        refusals.reconnected(); // the backup restarted, perhaps with a larger maxValueBytes
        assertThat(queued()).as("not at once: at the next retry").isEmpty();
        refusals.retry();
        assertThat(queued()).containsExactly("big");
    }

    @Test
    void onceARefusedValueLandsEveryOneHeldShipsAtTheNextRetryAndTheAlarmClearsWhenAllHaveLanded() throws Exception {
        TxId a = shipped("a", 1);
        TxId b = shipped("b", 2);
        TxId c = shipped("c", 3);
        for (TxId t : List.of(a, b, c)) refusals.refused(t, StoreRefusal.STORE_FULL, FULL);
        refusals.retry();
        assertThat(queued()).containsExactly("a");
        pending.shipped(key("a"), a);

        acked(a); // the probe landed: the backup has room again

        assertThat(refusals.refusing()).isEqualTo(2);
        assertThat(refusals.refusal(TxId.of(1, 9))).isNotNull();
        refusals.retry();
        assertThat(queued()).containsExactly("b", "c");
        pending.shipped(key("b"), b);
        pending.shipped(key("c"), c);
        acked(b);
        assertThat(refusals.refusal(TxId.of(1, 9))).isNotNull();
        acked(c);
        assertThat(refusals.refusing()).isZero();
        assertThat(refusals.refusal(TxId.of(1, 9))).isNull();
        assertThat(pending.count()).isZero();
    }

    @Test
    void theAckOfAnOlderValueOfARefusedKeyDoesNotClearTheAlarm() throws Exception {
        TxId a1 = shipped("a", 1);
        TxId a2 = shipped("a", 2); // written again and shipped while the first was on its way
        refusals.refused(a2, StoreRefusal.STORE_FULL, FULL);

        acked(a1);

        assertThat(refusals.refusing()).isEqualTo(1);
        assertThat(pending.newest(key("a"))).isEqualTo(a2);
    }

    @Test
    void aNewerValueOfARefusedKeyThatLandsClearsIt() throws Exception {
        TxId a1 = shipped("a", 1);
        refusals.refused(a1, StoreRefusal.VALUE_TOO_LARGE, "value of 2000 bytes > maxValueBytes 1000");
        TxId a2 = shipped("a", 2); // rewritten smaller: ships with its write, not held

        acked(a2);

        assertThat(refusals.refusing()).isZero();
        assertThat(refusals.refusal(TxId.of(1, 9))).isNull();
    }

    @Test
    void aSyncWriteWaitingForARefusedValueFailsAtOnce() throws Exception {
        TxId t = TxId.of(1, 1);
        CompletableFuture<Void> applied = pending.addAwaited(key("a"), t, 10);
        pending.poll(0);
        pending.shipped(key("a"), t);

        refusals.refused(t, StoreRefusal.STORE_FULL, FULL);

        assertThat(applied).isCompletedExceptionally();
        assertThat(applied.handle((v, e) -> e instanceof CompletionException c ? c.getCause() : e)
                        .join())
                .isInstanceOf(BackupCannotStoreException.class)
                .hasMessageStartingWith("backup cannot store values: store full; write 1:1");
    }

    @Test
    void aRefusalOfAValueNoLongerInFlightIsCountedButHoldsNothing() {
        refusals.refused(TxId.of(1, 7), StoreRefusal.STORE_ERROR, "store closed");

        assertThat(refusals.refusing()).isZero();
        assertThat(refusals.refusal(TxId.of(1, 9))).isNull();
        assertThat(refusals.snapshot().byReason()).containsEntry("store error", 1L);
    }

    @Test
    void aRefusedKeyNoLongerPendingIsForgottenAtItsRetry() throws Exception {
        TxId a = shipped("a", 1);
        refusals.refused(a, StoreRefusal.STORE_FULL, FULL);
        pending.requeue(key("a"));
        pending.poll(0);
        pending.shipped(key("a"), a);
        pending.acked(a); // acknowledged on a path that did not tell the refusals

        refusals.retry();

        assertThat(refusals.refusing()).isZero();
        assertThat(refusals.refusal(TxId.of(1, 9))).isNull();
    }

    @Test
    void theSnapshotCountsEveryRefusalByReasonAndKeepsTheLast() throws Exception {
        assertThat(refusals.snapshot().reason()).isEmpty();
        assertThat(refusals.snapshot().byReason())
                .containsExactly(
                        java.util.Map.entry("store full", 0L),
                        java.util.Map.entry("value too large", 0L),
                        java.util.Map.entry("store error", 0L));
        refusals.refused(shipped("a", 1), StoreRefusal.STORE_FULL, FULL);
        refusals.refused(shipped("b", 2), StoreRefusal.STORE_FULL, FULL);
        refusals.refused(shipped("c", 3), StoreRefusal.VALUE_TOO_LARGE, "value of 2000 bytes > maxValueBytes 1000");

        var s = refusals.snapshot();

        assertThat(s.reason()).isEqualTo("value too large");
        assertThat(s.detail()).isEqualTo("value of 2000 bytes > maxValueBytes 1000");
        assertThat(s.byReason()).containsEntry("store full", 2L).containsEntry("value too large", 1L);
        assertThat(s.total()).isEqualTo(3);
    }
}
