package dev.kvs.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.Checksums;
import dev.kvs.core.TxId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Ordering without a backup, and handing the seq space to a replicator without a gap or duplicate. */
class LocalReplicationTest {
    private static final byte[] K = {'k'};

    @Test
    void ordersGapFreeAndHandsOffAfterTheLastSeq() {
        LocalReplication local = new LocalReplication(3, 10);
        assertThat(local.begin(ReplicationMode.ID_FIRST).put(K, K.length, Checksums.crc32c(K), 0))
                .isEqualTo(TxId.of(3, 11));
        WriteOrder begunBefore = local.begin(ReplicationMode.ID_FIRST);

        long[] handedAt = {-1};
        Replication next = local.handOff(last -> {
            handedAt[0] = last;
            return new LocalReplication(3, last);
        });

        assertThat(handedAt[0]).isEqualTo(11);
        assertThat(local.lastTxId()).isEqualTo(TxId.of(3, 11));
        // a write that began before the hand-off and orders after it is ordered by the successor
        assertThat(begunBefore.put(K, K.length, Checksums.crc32c(K), 0)).isEqualTo(TxId.of(3, 12));
        assertThat(begunBefore.commit()).isCompleted();
        assertThat(local.begin(ReplicationMode.ID_FIRST).put(K, K.length, Checksums.crc32c(K), 0))
                .isEqualTo(TxId.of(3, 13));
        assertThat(next.lastTxId()).isEqualTo(TxId.of(3, 13));
        assertThatThrownBy(() -> local.handOff(last -> next)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailedHandOffRefusesLaterWritesWithBusyAndNothingIsOrdered() {
        LocalReplication local = new LocalReplication(1, 0);
        WriteOrder begunBefore = local.begin(ReplicationMode.ID_FIRST);
        assertThatThrownBy(() -> local.handOff(last -> {
                    throw new IllegalStateException("cannot dial");
                }))
                .hasMessage("cannot dial");
        assertThatThrownBy(() -> begunBefore.put(K, K.length, Checksums.crc32c(K), 0))
                .isInstanceOf(ReplicationBusyException.class)
                .hasMessageStartingWith("replication could not start");
    }

    @Test
    void concurrentWritersAcrossAHandOffGetDistinctGapFreeSeqs() throws Exception {
        LocalReplication local = new LocalReplication(1, 0);
        int writers = 4;
        int each = 5_000;
        List<List<TxId>> got = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean failed = new AtomicBoolean();
        for (int w = 0; w < writers; w++) {
            List<TxId> mine = new ArrayList<>();
            got.add(mine);
            Thread t = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        WriteOrder o = local.begin(ReplicationMode.ID_FIRST);
                        mine.add(o.put(K, K.length, Checksums.crc32c(K), 0));
                        o.commit();
                    }
                } catch (Throwable e) {
                    failed.set(true);
                }
            });
            threads.add(t);
            t.start();
        }
        start.countDown();
        while (local.lastTxId().seq() < writers * each / 2) Thread.onSpinWait();
        local.handOff(last -> new LocalReplication(1, last));
        for (Thread t : threads) t.join();

        assertThat(failed).isFalse();
        Set<Long> seqs = new HashSet<>();
        for (List<TxId> l : got) for (TxId t : l) seqs.add(t.seq());
        assertThat(seqs).hasSize(writers * each);
        assertThat(seqs).allMatch(s -> s >= 1 && s <= writers * each);
    }
}
