package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.skip;
import static dev.kvs.replication.backup.Packets.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.TxId;
import dev.kvs.replication.backup.KeySequence.Offer;
import dev.kvs.replication.wire.Frame.KeyPacket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeySequenceTest {
    private final KeySequence sequence = new KeySequence(TxId.ZERO, 4);
    private final List<KeyPacket> ready = new ArrayList<>();

    private static KeyPacket packet(TxId txId) {
        return putKey(txId, "k" + txId.seq(), new byte[] {1});
    }

    private List<TxId> readyTxIds() {
        return ready.stream().map(KeyPacket::txId).toList();
    }

    @Test
    void theNextPacketAdvancesContiguous() {
        assertThat(sequence.offer(packet(tx(1)), ready)).isEqualTo(Offer.ACCEPTED);
        assertThat(sequence.offer(skip(tx(2)), ready)).isEqualTo(Offer.ACCEPTED);

        assertThat(sequence.contiguous()).isEqualTo(tx(2));
        assertThat(readyTxIds()).containsExactly(tx(1), tx(2));
        assertThat(sequence.resendNeeded()).isNull();
    }

    @Test
    void aPacketAtOrBelowContiguousIsADuplicate() {
        sequence.offer(packet(tx(1)), ready);
        sequence.offer(packet(tx(2)), ready);
        ready.clear();

        assertThat(sequence.offer(packet(tx(2)), ready)).isEqualTo(Offer.DUPLICATE);
        assertThat(sequence.offer(packet(tx(1)), ready)).isEqualTo(Offer.DUPLICATE);
        assertThat(ready).isEmpty();
        assertThat(sequence.contiguous()).isEqualTo(tx(2));
    }

    @Test
    void aPacketBeyondAGapIsHeldAndAResendIsAskedOnce() {
        sequence.offer(packet(tx(1)), ready);

        assertThat(sequence.offer(packet(tx(3)), ready)).isEqualTo(Offer.HELD);
        assertThat(sequence.offer(packet(tx(4)), ready)).isEqualTo(Offer.HELD);

        assertThat(sequence.contiguous()).isEqualTo(tx(1));
        assertThat(readyTxIds()).containsExactly(tx(1));
        assertThat(sequence.held()).isEqualTo(2);
        assertThat(sequence.resendNeeded()).isEqualTo(tx(1));
        assertThat(sequence.resendNeeded()).isNull(); // the resend covers every later gap too
    }

    @Test
    void fillingTheGapReleasesTheHeldPacketsInOrder() {
        sequence.offer(packet(tx(1)), ready);
        sequence.offer(packet(tx(4)), ready);
        sequence.offer(packet(tx(3)), ready);
        sequence.resendNeeded();

        assertThat(sequence.offer(packet(tx(3)), ready)).isEqualTo(Offer.DUPLICATE); // held already
        assertThat(sequence.offer(packet(tx(2)), ready)).isEqualTo(Offer.ACCEPTED);

        assertThat(readyTxIds()).containsExactly(tx(1), tx(2), tx(3), tx(4));
        assertThat(sequence.contiguous()).isEqualTo(tx(4));
        assertThat(sequence.held()).isZero();
        assertThat(sequence.resendNeeded()).isNull();
    }

    @Test
    void aNewGapAfterTheOldOneClosedAsksAgain() {
        sequence.offer(packet(tx(1)), ready);
        sequence.offer(packet(tx(3)), ready);
        assertThat(sequence.resendNeeded()).isEqualTo(tx(1));
        sequence.offer(packet(tx(2)), ready);
        assertThat(sequence.resendNeeded()).isNull();

        sequence.offer(packet(tx(6)), ready);

        assertThat(sequence.resendNeeded()).isEqualTo(tx(3));
    }

    @Test
    void seqOneOfALaterEpochFollowsAnyPositionOfAnEarlierEpoch() {
        sequence.offer(packet(tx(1)), ready);
        sequence.offer(packet(tx(2)), ready);

        assertThat(sequence.offer(packet(TxId.of(3, 1)), ready)).isEqualTo(Offer.ACCEPTED);
        assertThat(sequence.offer(packet(TxId.of(3, 2)), ready)).isEqualTo(Offer.ACCEPTED);
        assertThat(sequence.contiguous()).isEqualTo(TxId.of(3, 2));
        assertThat(sequence.offer(packet(tx(3)), ready)).isEqualTo(Offer.DUPLICATE);
    }

    @Test
    void aLaterEpochNotStartingAtSeqOneIsAGap() {
        sequence.offer(packet(tx(1)), ready);

        assertThat(sequence.offer(packet(TxId.of(2, 2)), ready)).isEqualTo(Offer.HELD);
        assertThat(sequence.resendNeeded()).isEqualTo(tx(1));
        assertThat(sequence.offer(packet(TxId.of(2, 1)), ready)).isEqualTo(Offer.ACCEPTED);
        assertThat(sequence.contiguous()).isEqualTo(TxId.of(2, 2));
    }

    @Test
    void atTheHoldBoundTheHighestPacketsAreDroppedForTheResendToBringBack() {
        sequence.offer(packet(tx(1)), ready);
        for (long s = 3; s <= 6; s++) sequence.offer(packet(tx(s)), ready); // 4 held: the bound
        assertThat(sequence.offer(packet(tx(8)), ready)).isEqualTo(Offer.HELD);
        assertThat(sequence.held()).isEqualTo(4);
        sequence.offer(packet(tx(7)), ready); // also beyond the highest held: dropped
        assertThat(sequence.held()).isEqualTo(4);

        sequence.offer(packet(tx(2)), ready);

        assertThat(sequence.contiguous()).isEqualTo(tx(6));
        assertThat(readyTxIds()).containsExactly(tx(1), tx(2), tx(3), tx(4), tx(5), tx(6));
    }

    @Test
    void atTheHoldBoundALowerPacketReplacesTheHighestHeld() {
        sequence.offer(packet(tx(1)), ready);
        for (long s : new long[] {4, 5, 6, 9}) sequence.offer(packet(tx(s)), ready);

        sequence.offer(packet(tx(3)), ready);
        sequence.offer(packet(tx(2)), ready);

        assertThat(sequence.contiguous()).isEqualTo(tx(6));
        assertThat(sequence.held()).isZero(); // 9 was dropped to make room for 3
    }

    @Test
    void resetToMovesContiguousAndDropsWhatItCovers() {
        sequence.offer(packet(tx(1)), ready);
        sequence.offer(packet(tx(5)), ready);
        sequence.offer(packet(tx(12)), ready);
        ready.clear();

        sequence.resetTo(tx(11), ready);

        assertThat(sequence.contiguous()).isEqualTo(tx(12));
        assertThat(readyTxIds()).containsExactly(tx(12));
        assertThat(sequence.held()).isZero();
    }

    @Test
    void forgetHeldDropsHeldPacketsAndAllowsANewResend() {
        sequence.offer(packet(tx(1)), ready);
        sequence.offer(packet(tx(3)), ready);
        sequence.resendNeeded();

        sequence.forgetHeld();

        assertThat(sequence.held()).isZero();
        assertThat(sequence.resendNeeded()).isNull();
        sequence.offer(packet(tx(3)), ready);
        assertThat(sequence.resendNeeded()).isEqualTo(tx(1));
    }
}
