package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.TxId;
import dev.kvs.replication.ReplicationBusyException;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class KeyLogTest {
    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theKeyPacketsOfAUnitCarryItsFirstTxIdAndSize() {
        KeyLog log = new KeyLog(1, 0, 16);
        TxId a = log.reserve(Op.PUT, "a".getBytes(StandardCharsets.UTF_8), 1, 2);
        TxId alone = log.reserve(Op.PUT, "x".getBytes(StandardCharsets.UTF_8), 1, 2);
        TxId b = log.reserve(Op.HASH, "b".getBytes(StandardCharsets.UTF_8), 0, 0);
        log.markUnit(List.of(a, b));
        log.commit(a);
        log.commit(alone);
        log.commit(b);

        List<KeyPacket> sent = log.drainSendable(10);
        Frame.Unit unit = new Frame.Unit(a, 2);
        assertThat(sent).extracting(KeyPacket::unit).containsExactly(unit, null, unit);
    }

    @Test
    void seqsAreGapFreeAndContinueAfterTheLastSeqGiven() {
        KeyLog log = new KeyLog(3, 41, 16);
        assertThat(log.reserve(Op.PUT, key("a"), 1, 7)).isEqualTo(TxId.of(3, 42));
        assertThat(log.reserve(Op.DELETE, key("b"), 0, 0)).isEqualTo(TxId.of(3, 43));
        assertThat(log.lastTxId()).isEqualTo(TxId.of(3, 43));
    }

    @Test
    void aRenameCarriesItsSourceAndAFlushNoKey() {
        KeyLog log = new KeyLog(1, 0, 16);
        TxId r = log.reserve(Op.RENAME, key("new"), 5, 9, 0, key("old"));
        TxId f = log.reserve(Op.FLUSH, null, 0, 0);
        TxId a = log.reserve(Op.RENAME, key("x"), 1, 2, 0, key("y"));
        log.commit(r);
        log.commit(f);
        log.abort(a);
        assertThat(log.drainSendable(10))
                .containsExactly(
                        KeyPacket.rename(r, key("old"), key("new"), 5, 9),
                        KeyPacket.flush(f),
                        new KeyPacket(a, Op.SKIP, new byte[0], 0, 0));
    }

    @Test
    void theOldestUnackedAgeCountsFromSendingUntilTheAck() {
        KeyLog log = new KeyLog(1, 0, 16);
        TxId a = log.reserve(Op.PUT, key("a"), 1, 7);
        log.commit(a);
        assertThat(log.oldestUnackedAgeNanos()).as("not sent yet").isZero();
        long before = System.nanoTime();
        assertThat(log.drainSendable(10)).hasSize(1);
        while (System.nanoTime() - before < 2_000_000) Thread.onSpinWait(); // 2 ms pass
        assertThat(log.oldestUnackedAgeNanos()).isGreaterThanOrEqualTo(1_000_000);
        log.ack(a);
        assertThat(log.oldestUnackedAgeNanos()).isZero();
    }

    @Test
    void onlyTheCommittedPrefixIsSentAndAbortsBecomeSkips() {
        KeyLog log = new KeyLog(1, 0, 16);
        TxId a = log.reserve(Op.PUT, key("a"), 1, 7);
        TxId b = log.reserve(Op.PUT, key("b"), 2, 8);
        TxId c = log.reserve(Op.PUT, key("c"), 3, 9);
        log.commit(b);
        assertThat(log.drainSendable(10)).isEmpty(); // a is still being written
        log.abort(a);
        List<KeyPacket> sent = log.drainSendable(10);
        assertThat(sent)
                .containsExactly(
                        new KeyPacket(a, Op.SKIP, new byte[0], 0, 0), new KeyPacket(b, Op.PUT, key("b"), 2, 8));
        assertThat(log.sendablePrefix()).isEqualTo(2);
        log.commit(c);
        assertThat(log.drainSendable(10)).containsExactly(new KeyPacket(c, Op.PUT, key("c"), 3, 9));
        assertThat(log.drainSendable(10)).isEmpty();
    }

    @Test
    void cumulativeAckCompletesWaitersAndFreesRoom() throws Exception {
        KeyLog log = new KeyLog(1, 0, 2);
        TxId a = log.reserve(Op.PUT, key("a"), 1, 1);
        TxId b = log.reserve(Op.PUT, key("b"), 1, 1);
        assertThat(log.awaitRoom(1_000_000)).isFalse();
        assertThatThrownBy(() -> log.reserve(Op.PUT, key("c"), 1, 1))
                .isInstanceOf(ReplicationBusyException.class)
                .hasMessageContaining("key log full");
        CompletableFuture<Void> fa = log.whenAcked(a);
        CompletableFuture<Void> fb = log.whenAcked(b);
        log.commit(a);
        log.commit(b);
        log.drainSendable(10);
        log.ack(a);
        assertThat(fa).isDone();
        assertThat(fb).isNotDone();
        assertThat(log.awaitRoom(0)).isTrue();
        log.ack(b);
        assertThat(fb).isDone();
        assertThat(log.whenAcked(a)).isDone();
        assertThat(log.unacked()).isZero();
        assertThat(log.ackedTxId()).isEqualTo(b);
    }

    @Test
    void rewindResendsEverythingNotAcknowledged() {
        KeyLog log = new KeyLog(1, 0, 16);
        for (int i = 0; i < 4; i++) log.commit(log.reserve(Op.PUT, key("k" + i), 1, i));
        assertThat(log.drainSendable(10)).hasSize(4);
        log.ack(TxId.of(1, 2));
        log.rewind(TxId.ZERO); // a reconnect: resend after the acked point
        assertThat(log.drainSendable(10)).extracting(KeyPacket::txId).containsExactly(TxId.of(1, 3), TxId.of(1, 4));
        log.rewind(TxId.of(1, 3)); // the backup asked for everything after 3
        assertThat(log.drainSendable(10)).extracting(KeyPacket::txId).containsExactly(TxId.of(1, 4));
    }

    @Test
    void acksOfAnotherEpochAreIgnored() {
        KeyLog log = new KeyLog(2, 0, 16);
        TxId a = log.reserve(Op.PUT, key("a"), 1, 1);
        log.commit(a);
        log.ack(TxId.of(1, 99));
        assertThat(log.unacked()).isEqualTo(1);
    }

    @Test
    void theRingWrapsAroundItsCapacity() {
        KeyLog log = new KeyLog(1, 0, 3);
        for (int i = 1; i <= 10; i++) {
            TxId t = log.reserve(Op.PUT, key("k" + i), i, i);
            log.commit(t);
            List<KeyPacket> sent = log.drainSendable(10);
            assertThat(sent).containsExactly(new KeyPacket(t, Op.PUT, key("k" + i), i, i));
            log.ack(t);
        }
        assertThat(log.lastTxId()).isEqualTo(TxId.of(1, 10));
    }

    @Test
    void whatWaitsForAnAckRunsOutsideTheLogsLock() {
        KeyLog log = new KeyLog(1, 0, 16);
        TxId t = log.reserve(Op.PUT, "k".getBytes(), 1, 0);
        log.commit(t);
        boolean[] heldLock = {true};
        CompletableFuture<Void> done = log.whenAcked(t).thenRun(() -> heldLock[0] = Thread.holdsLock(log));

        log.ack(t);

        assertThat(done).isDone();
        assertThat(heldLock[0])
                .as("the ack's dependents ran holding the key log's lock")
                .isFalse();
    }

    @Test
    void writesWaitingForAcksFailAtOnceWhenReplicationStops() {
        KeyLog log = new KeyLog(1, 0, 16);
        TxId a = log.reserve(Op.PUT, "a".getBytes(), 1, 0);
        TxId b = log.reserve(Op.PUT, "b".getBytes(), 1, 0);
        log.commit(a);
        log.commit(b);
        log.ack(a);
        CompletableFuture<Void> acked = log.whenAcked(a);
        CompletableFuture<Void> waiting = log.whenAcked(b);

        log.failAll(new IllegalStateException("demoted"));

        assertThat(acked).isCompleted();
        assertThat(waiting).isCompletedExceptionally();
    }
}
