package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.chunks;
import static dev.kvs.replication.backup.Packets.deleteChunk;
import static dev.kvs.replication.backup.Packets.putChunk;
import static dev.kvs.replication.backup.Packets.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.replication.backup.ValueAssembler.Corrupt;
import dev.kvs.replication.backup.ValueAssembler.Whole;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.StageBind;
import dev.kvs.replication.wire.Frame.StageCancel;
import dev.kvs.replication.wire.Frame.StagedChunk;
import dev.kvs.replication.wire.Frame.ValueChunk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ValueAssemblerTest {
    private final AssemblyBudget budget = new AssemblyBudget(1 << 20, 1 << 20);
    private final ValueAssembler assembler = new ValueAssembler(budget.open(() -> {}), 1000);

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void aOneChunkValueIsWholeAtOnceAndReservesNothing() {
        byte[] v = bytes("hello");

        ValueAssembler.Result r = assembler.accept(putChunk(tx(3), "k", v));

        assertThat(r).isInstanceOfSatisfying(Whole.class, w -> {
            assertThat(w.txId()).isEqualTo(tx(3));
            assertThat(w.op()).isEqualTo(Op.PUT);
            assertThat(w.key()).isEqualTo(bytes("k"));
            assertThat(w.bytes()).isEqualTo(v);
        });
        assertThat(budget.used()).isZero();
    }

    @Test
    void chunksOfSeveralValuesInterleaveOnOneChannel() {
        byte[] a = random(250, 1);
        byte[] b = random(180, 2);
        List<ValueChunk> ca = chunks(tx(1), Op.PUT, bytes("a"), a, 100); // 3 chunks
        List<ValueChunk> cb = chunks(tx(2), Op.PUT, bytes("b"), b, 100); // 2 chunks

        assertThat(assembler.accept(ca.get(0))).isNull();
        assertThat(assembler.accept(cb.get(0))).isNull();
        assertThat(budget.used()).isEqualTo(250 + 180);
        assertThat(assembler.accept(ca.get(1))).isNull();
        ValueAssembler.Result wholeB = assembler.accept(cb.get(1));
        assertThat(budget.used()).isEqualTo(250);
        ValueAssembler.Result wholeA = assembler.accept(ca.get(2));

        assertThat(wholeB)
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(b));
        assertThat(wholeA)
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(a));
        assertThat(budget.used()).isZero();
        assertThat(assembler.inProgress()).isZero();
    }

    @Test
    void aOneChunkValueWithAWrongChecksumIsCorrupt() {
        ValueChunk good = putChunk(tx(3), "k", bytes("hello"));
        ValueChunk bad = new ValueChunk(tx(3), Op.PUT, good.key(), 5, good.checksum() ^ 1, 0, good.data());

        assertThat(assembler.accept(bad)).isInstanceOfSatisfying(Corrupt.class, c -> {
            assertThat(c.txId()).isEqualTo(tx(3));
            assertThat(c.key()).isEqualTo(bytes("k"));
            assertThat(c.reason()).startsWith("checksum mismatch");
        });
    }

    @Test
    void aChunkedValueWithAFlippedByteIsCorruptAndItsMemoryIsFreed() {
        List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), random(300, 3), 100);
        ValueChunk middle = c.get(1);
        byte[] flipped = middle.data().clone();
        flipped[17] ^= 0x40;

        assembler.accept(c.get(0));
        assembler.accept(
                new ValueChunk(middle.txId(), Op.PUT, middle.key(), 300, middle.checksum(), middle.offset(), flipped));
        ValueAssembler.Result r = assembler.accept(c.get(2));

        assertThat(r)
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).startsWith("checksum mismatch"));
        assertThat(budget.used()).isZero();
    }

    @Test
    void aChunkOutOfOrderAbandonsTheValueOnceAndItsOtherChunksAreIgnored() {
        List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), random(400, 4), 100);

        assertThat(assembler.accept(c.get(0))).isNull();
        ValueAssembler.Result r = assembler.accept(c.get(2));
        assertThat(assembler.accept(c.get(1))).isNull();
        assertThat(assembler.accept(c.get(3))).isNull();

        assertThat(r)
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).isEqualTo("chunk at offset 200, expected 100"));
        assertThat(budget.used()).isZero();
        assertThat(assembler.inProgress()).isZero();
    }

    @Test
    void aChunkWithoutItsValuesStartIsCorrupt() {
        List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), random(200, 5), 100);

        assertThat(assembler.accept(c.get(1)))
                .isInstanceOfSatisfying(
                        Corrupt.class,
                        x -> assertThat(x.reason()).isEqualTo("chunk at offset 100 without the value's first chunk"));
    }

    @Test
    void chunksThatDisagreeOnTheChecksumAbandonTheValue() {
        List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), random(300, 6), 100);
        ValueChunk second = c.get(1);

        assembler.accept(c.get(0));
        ValueAssembler.Result r = assembler.accept(
                new ValueChunk(second.txId(), Op.PUT, second.key(), 300, second.checksum() + 1, 100, second.data()));

        assertThat(r)
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).isEqualTo("chunks disagree on the checksum"));
        assertThat(assembler.accept(c.get(2))).isNull();
    }

    @Test
    void aValueSentAgainFromItsStartReplacesTheUnfinishedCopy() {
        byte[] v = random(300, 7);
        List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), v, 100);

        assembler.accept(c.get(0));
        assembler.accept(c.get(1));
        assembler.accept(c.get(0)); // the primary resends it
        assertThat(budget.used()).isEqualTo(300);
        assembler.accept(c.get(1));

        assertThat(assembler.accept(c.get(2)))
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(v));
        assertThat(budget.used()).isZero();
    }

    /** An assembler that stages its values in {@code store}, with a budget of its own. */
    private static ValueAssembler staging(AssemblyBudget budget, KvStore store) {
        return new ValueAssembler(budget.open(() -> {}), 1 << 20, store::stage);
    }

    @Test
    void aLongValueIsWrittenIntoTheStoreAsItComesAndTakesNoAssemblyMemory() {
        AssemblyBudget own = new AssemblyBudget(1 << 20, 1 << 20);
        try (KvStore store = KvStore.builder().maxBytes(16 << 20).open()) {
            ValueAssembler staged = staging(own, store);
            byte[] v = random(200_000, 8);
            List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), v, 70_000);

            assertThat(staged.accept(c.get(0))).isNull();
            assertThat(staged.accept(c.get(1))).isNull();
            assertThat(own.used()).isZero();
            assertThat(store.stats().valueBytes())
                    .as("the stage holds its room")
                    .isEqualTo(200_000);
            assertThat(store.get(bytes("a"))).isNull();

            ValueAssembler.Result r = staged.accept(c.get(2));
            assertThat(r).isInstanceOf(Whole.class);
            Whole w = (Whole) r;
            assertThat(w.bytes()).isNull();
            assertThat(w.length()).isEqualTo(200_000);
            RecordHeader h = new RecordHeader(RecordState.COMPLETE, tx(1), w.checksum(), w.length(), 0);
            try (ValueStage stage = w.staged()) {
                assertThat(store.putStaged(bytes("a"), stage, old -> old == null ? h : null))
                        .isTrue();
            }
            assertThat(store.get(bytes("a"))).isEqualTo(StoredValue.complete(tx(1), v));
            assertThat(store.stats().valueBytes()).isEqualTo(200_000);
        }
    }

    @Test
    void aStagedValueThatIsCorruptCancelledOrCutOffLeavesNothingInTheStore() {
        AssemblyBudget own = new AssemblyBudget(1 << 20, 1 << 20);
        try (KvStore store = KvStore.builder().maxBytes(16 << 20).open()) {
            ValueAssembler staged = staging(own, store);
            List<ValueChunk> corrupt = chunks(tx(1), Op.PUT, bytes("a"), random(200_000, 9), 70_000);
            ValueChunk middle = corrupt.get(1);
            byte[] flipped = middle.data().clone();
            flipped[5] ^= 1;
            staged.accept(corrupt.get(0));
            staged.accept(new ValueChunk(
                    middle.txId(), Op.PUT, middle.key(), 200_000, middle.checksum(), middle.offset(), flipped));
            assertThat(staged.accept(corrupt.get(2))).isInstanceOf(Corrupt.class);
            assertThat(store.stats().valueBytes()).isZero();

            List<ValueChunk> cancelled = chunks(tx(2), Op.PUT, bytes("b"), random(200_000, 10), 70_000);
            staged.accept(cancelled.get(0));
            ValueChunk first = cancelled.get(0);
            assertThat(staged.accept(new ValueChunk(
                            first.txId(), Op.PUT, first.key(), 200_000, first.checksum(), 200_000, new byte[0])))
                    .isNull();
            assertThat(store.stats().valueBytes()).isZero();

            List<ValueChunk> cut = chunks(tx(3), Op.PUT, bytes("c"), random(200_000, 11), 70_000);
            staged.accept(cut.get(0));
            staged.accept(cut.get(1));
            assertThat(store.stats().valueBytes()).isEqualTo(200_000);
            staged.close(); // the channel closed
            assertThat(store.stats().valueBytes()).isZero();
            assertThat(store.stats().entries()).isZero();
        }
    }

    @Test
    void aValueTheStoreHasNoRoomToStageIsAssembledOnTheHeapInstead() {
        AssemblyBudget own = new AssemblyBudget(1 << 20, 1 << 20);
        try (KvStore store = KvStore.builder().maxBytes(1 << 20).open()) {
            store.put(bytes("big"), StoredValue.complete(tx(1), random(900_000, 12)));
            ValueAssembler staged = staging(own, store);
            byte[] v = random(200_000, 13);
            List<ValueChunk> c = chunks(tx(2), Op.PUT, bytes("a"), v, 70_000);

            staged.accept(c.get(0));
            assertThat(own.used()).isEqualTo(200_000);
            staged.accept(c.get(1));
            assertThat(staged.accept(c.get(2)))
                    .isInstanceOfSatisfying(
                            Whole.class, w -> assertThat(w.bytes()).isEqualTo(v));
            assertThat(own.used()).isZero();
        }
    }

    @Test
    void aDeleteIsAnEmptyTombstone() {
        assertThat(assembler.accept(deleteChunk(tx(9), "k"))).isInstanceOfSatisfying(Whole.class, w -> {
            assertThat(w.op()).isEqualTo(Op.DELETE);
            assertThat(w.bytes()).isEmpty();
            assertThat(w.checksum()).isZero();
        });
    }

    @Test
    void aDeleteCarryingBytesIsCorrupt() {
        byte[] v = bytes("x");
        ValueChunk c = new ValueChunk(tx(9), Op.DELETE, bytes("k"), 1, dev.kvs.core.Checksums.crc32c(v), 0, v);

        assertThat(assembler.accept(c))
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).isEqualTo("delete carries a value of 1 bytes"));
    }

    @Test
    void aValueLongerThanTheStoreAcceptsIsRefusedBeforeAnyMemoryIsReserved() {
        List<ValueChunk> c = chunks(tx(1), Op.PUT, bytes("a"), random(1001, 8), 500);

        assertThat(assembler.accept(c.get(0)))
                .isInstanceOfSatisfying(
                        Corrupt.class,
                        x -> assertThat(x.reason()).isEqualTo("value of 1001 bytes > maxValueBytes 1000"));
        assertThat(budget.used()).isZero();
        assertThat(assembler.accept(c.get(1))).isNull();
    }

    @Test
    void closeGivesBackTheMemoryOfUnfinishedValues() {
        assembler.accept(chunks(tx(1), Op.PUT, bytes("a"), random(300, 9), 100).get(0));
        assembler.accept(
                chunks(TxId.of(1, 2), Op.PUT, bytes("b"), random(200, 9), 100).get(0));
        assertThat(budget.used()).isEqualTo(500);

        assembler.close();

        assertThat(budget.used()).isZero();
    }

    @Test
    void aCancelDropsAValueBeingAssembledWithoutANackAndItsLaterChunksAreNotNeeded() {
        byte[] a = random(250, 3);
        List<ValueChunk> ca = chunks(tx(1), Op.PUT, bytes("a"), a, 100);
        assertThat(assembler.accept(ca.get(0))).isNull();
        assertThat(budget.used()).isEqualTo(250);
        ValueChunk cancel =
                new ValueChunk(tx(1), Op.PUT, bytes("a"), 250, ca.get(0).checksum(), 250, new byte[0]);
        assertThat(ValueAssembler.isCancel(cancel)).isTrue();

        assertThat(assembler.accept(cancel)).isNull();

        assertThat(budget.used()).isZero();
        assertThat(assembler.inProgress()).isZero();
        // the newer value of the key assembles as usual
        byte[] b = random(150, 4);
        List<ValueChunk> cb = chunks(tx(2), Op.PUT, bytes("a"), b, 100);
        assertThat(assembler.accept(cb.get(0))).isNull();
        assertThat(assembler.accept(cb.get(1)))
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(b));
        // a cancel of a value the channel never saw is ignored too
        assertThat(assembler.accept(new ValueChunk(tx(9), Op.PUT, bytes("z"), 5, 0, 5, new byte[0])))
                .isNull();
        // an empty value is not a cancel
        assertThat(ValueAssembler.isCancel(new ValueChunk(tx(3), Op.PUT, bytes("e"), 0, 0, 0, new byte[0])))
                .isFalse();
    }

    // ---- cut-through: staged values

    /** Bytes {@code [from, to)} of {@code value} as a staged chunk of stage {@code id}. */
    private static StagedChunk staged(long id, String key, byte[] value, int from, int to) {
        return new StagedChunk(0, id, bytes(key), value.length, from, Arrays.copyOfRange(value, from, to));
    }

    /** Bytes {@code [from, to)} of {@code value} as a value chunk of {@code txId}, after a bind. */
    private static ValueChunk rest(TxId txId, String key, byte[] value, int from, int to) {
        return new ValueChunk(
                txId,
                Op.PUT,
                bytes(key),
                value.length,
                Checksums.crc32c(value),
                from,
                Arrays.copyOfRange(value, from, to));
    }

    @Test
    void aValueStagedWholeIsWholeAtItsBindWithTheBindsTxIdChecksumAndExpiry() {
        byte[] v = random(250, 20);

        assertThat(assembler.acceptStaged(staged(7, "k", v, 0, 100))).isNull();
        assertThat(assembler.acceptStaged(staged(7, "k", v, 100, 250))).isNull();
        assertThat(assembler.staged()).isEqualTo(1);
        assertThat(assembler.inProgress()).isZero();
        assertThat(budget.used()).isEqualTo(250);

        ValueAssembler.Result r =
                assembler.bind(new StageBind(7, tx(3), bytes("k"), Checksums.crc32c(v), 1_700_000_000_000L));

        assertThat(r).isInstanceOfSatisfying(Whole.class, w -> {
            assertThat(w.txId()).isEqualTo(tx(3));
            assertThat(w.op()).isEqualTo(Op.PUT);
            assertThat(w.key()).isEqualTo(bytes("k"));
            assertThat(w.bytes()).isEqualTo(v);
            assertThat(w.checksum()).isEqualTo(Checksums.crc32c(v));
            assertThat(w.expireAtMillis()).isEqualTo(1_700_000_000_000L);
        });
        assertThat(assembler.staged()).isZero();
        assertThat(assembler.inProgress()).isZero();
        assertThat(budget.used()).isZero();
    }

    @Test
    void aValueStagedInPartIsContinuedByTheChunksOfItsTxIdAfterTheBind() {
        byte[] v = random(400, 21);
        assertThat(assembler.acceptStaged(staged(7, "k", v, 0, 150))).isNull();

        assertThat(assembler.bind(new StageBind(7, tx(4), bytes("k"), Checksums.crc32c(v), 99)))
                .isNull();
        assertThat(assembler.staged()).isZero();
        assertThat(assembler.inProgress()).isEqualTo(1);
        assertThat(budget.used()).isEqualTo(400);
        assertThat(assembler.accept(rest(tx(4), "k", v, 150, 300))).isNull();
        ValueAssembler.Result r = assembler.accept(rest(tx(4), "k", v, 300, 400));

        assertThat(r).isInstanceOfSatisfying(Whole.class, w -> {
            assertThat(w.txId()).isEqualTo(tx(4));
            assertThat(w.bytes()).isEqualTo(v);
            assertThat(w.expireAtMillis()).isEqualTo(99);
        });
        assertThat(assembler.inProgress()).isZero();
        assertThat(budget.used()).isZero();
    }

    @Test
    void aChunkAfterTheBindThatDoesNotContinueTheStagedBytesIsCorrupt() {
        byte[] v = random(400, 22);
        assembler.acceptStaged(staged(7, "k", v, 0, 150));
        assembler.bind(new StageBind(7, tx(4), bytes("k"), Checksums.crc32c(v), 0));

        assertThat(assembler.accept(rest(tx(4), "k", v, 100, 400)))
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).isEqualTo("chunk at offset 100, expected 150"));
        assertThat(budget.used()).isZero();
    }

    @Test
    void aBindWithAnotherChecksumIsCorruptWhetherTheValueWasWholeOrNot() {
        byte[] v = random(300, 23);
        int wrong = Checksums.crc32c(v) ^ 1;
        assembler.acceptStaged(staged(1, "a", v, 0, 300));
        assertThat(assembler.bind(new StageBind(1, tx(1), bytes("a"), wrong, 0)))
                .isInstanceOfSatisfying(Corrupt.class, x -> {
                    assertThat(x.txId()).isEqualTo(tx(1));
                    assertThat(x.key()).isEqualTo(bytes("a"));
                    assertThat(x.reason()).startsWith("checksum mismatch");
                });
        assertThat(budget.used()).isZero();

        assembler.acceptStaged(staged(2, "b", v, 0, 100));
        assertThat(assembler.bind(new StageBind(2, tx(2), bytes("b"), wrong, 0)))
                .isNull();
        ValueChunk last = rest(tx(2), "b", v, 100, 300);
        assertThat(assembler.accept(new ValueChunk(tx(2), Op.PUT, last.key(), 300, wrong, 100, last.data())))
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).startsWith("checksum mismatch"));
        assertThat(budget.used()).isZero();
    }

    @Test
    void aBindOfAStagedValueNotHeldIsCorruptWithItsKeyAndTheValuesChunksThatFollowAreIgnored() {
        byte[] v = random(300, 24);

        assertThat(assembler.bind(new StageBind(5, tx(8), bytes("k"), Checksums.crc32c(v), 0)))
                .isInstanceOfSatisfying(Corrupt.class, x -> {
                    assertThat(x.txId()).isEqualTo(tx(8));
                    assertThat(x.key()).isEqualTo(bytes("k"));
                    assertThat(x.reason()).isEqualTo("staged value 5 was not held");
                });
        // the rest of the value, sent after the bind: one nack is enough
        assertThat(assembler.accept(rest(tx(8), "k", v, 100, 200))).isNull();
        assertThat(assembler.accept(rest(tx(8), "k", v, 200, 300))).isNull();
        // the primary resends it whole
        assertThat(assembler.accept(rest(tx(8), "k", v, 0, 300)))
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(v));
    }

    @Test
    void aBindOfAnotherKeyDropsTheStagedValueAndIsCorrupt() {
        byte[] v = random(300, 25);
        assembler.acceptStaged(staged(5, "k", v, 0, 300));

        assertThat(assembler.bind(new StageBind(5, tx(8), bytes("other"), Checksums.crc32c(v), 0)))
                .isInstanceOfSatisfying(Corrupt.class, x -> {
                    assertThat(x.key()).isEqualTo(bytes("other"));
                    assertThat(x.reason()).isEqualTo("staged value 5 is of another key");
                });
        assertThat(assembler.staged()).isZero();
        assertThat(budget.used()).isZero();
    }

    @Test
    void aCancelDropsAStagedValueAndALaterBindOfItIsCorrupt() {
        byte[] v = random(300, 26);
        assembler.acceptStaged(staged(5, "k", v, 0, 100));
        assertThat(budget.used()).isEqualTo(300);

        assembler.cancel(new StageCancel(5));

        assertThat(assembler.staged()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(assembler.bind(new StageBind(5, tx(1), bytes("k"), Checksums.crc32c(v), 0)))
                .isInstanceOf(Corrupt.class);
        // a cancel of a stage never seen is harmless
        assembler.cancel(new StageCancel(6));
        assertThat(assembler.staged()).isZero();
    }

    @Test
    void aStagedChunkOutOfOrderDropsTheStagedValueAndItsLaterChunksAreIgnored() {
        byte[] v = random(400, 27);
        assembler.acceptStaged(staged(5, "k", v, 0, 100));

        assertThat(assembler.acceptStaged(staged(5, "k", v, 200, 300))).isNull();
        assertThat(assembler.staged()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(assembler.acceptStaged(staged(5, "k", v, 100, 200))).isNull();
        assertThat(assembler.staged())
                .as("a dropped stage does not start again")
                .isZero();
        assertThat(assembler.bind(new StageBind(5, tx(1), bytes("k"), Checksums.crc32c(v), 0)))
                .isInstanceOfSatisfying(
                        Corrupt.class, x -> assertThat(x.reason()).isEqualTo("staged value 5 was not held"));
    }

    @Test
    void aStagedChunkOfAnotherKeyOrLengthDropsTheStagedValue() {
        byte[] v = random(400, 28);
        assembler.acceptStaged(staged(5, "k", v, 0, 100));
        assembler.acceptStaged(staged(5, "x", v, 100, 200));
        assertThat(assembler.staged()).isZero();

        assembler.acceptStaged(staged(6, "k", v, 0, 100));
        assembler.acceptStaged(new StagedChunk(0, 6, bytes("k"), 401, 100, new byte[100]));
        assertThat(assembler.staged()).isZero();
        assertThat(budget.used()).isZero();
    }

    @Test
    void aStagedChunkPastTheStartOfAStageNeverSeenIsIgnored() {
        byte[] v = random(400, 29);

        assertThat(assembler.acceptStaged(staged(5, "k", v, 100, 200))).isNull();

        assertThat(assembler.staged()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(assembler.acceptStaged(staged(5, "k", v, 0, 100))).isNull();
        assertThat(assembler.staged()).as("its id is remembered as dropped").isZero();
    }

    @Test
    void aStagedValueOverMaxValueBytesIsDroppedBeforeAnyMemoryIsReserved() {
        byte[] v = random(1001, 30);

        assertThat(assembler.acceptStaged(staged(5, "k", v, 0, 500))).isNull();

        assertThat(assembler.staged()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(assembler.bind(new StageBind(5, tx(1), bytes("k"), Checksums.crc32c(v), 0)))
                .isInstanceOf(Corrupt.class);
    }

    @Test
    void aChannelHoldsAtMostMaxStagedValuesAndDropsTheNextOne() {
        AssemblyBudget own = new AssemblyBudget(1 << 20, 1 << 20);
        ValueAssembler many = new ValueAssembler(own.open(() -> {}), 1000);
        byte[] v = random(10, 31);
        for (int id = 0; id < ValueAssembler.MAX_STAGED; id++) many.acceptStaged(staged(id, "k" + id, v, 0, 5));
        assertThat(many.staged()).isEqualTo(ValueAssembler.MAX_STAGED);
        assertThat(own.used()).isEqualTo(10L * ValueAssembler.MAX_STAGED);

        long extra = ValueAssembler.MAX_STAGED;
        many.acceptStaged(staged(extra, "extra", v, 0, 5));

        assertThat(many.staged()).isEqualTo(ValueAssembler.MAX_STAGED);
        assertThat(own.used()).isEqualTo(10L * ValueAssembler.MAX_STAGED);
        many.acceptStaged(staged(extra, "extra", v, 5, 10));
        assertThat(many.bind(new StageBind(extra, tx(1), bytes("extra"), Checksums.crc32c(v), 0)))
                .isInstanceOf(Corrupt.class);
        // the ones held still bind
        many.acceptStaged(staged(0, "k0", v, 5, 10));
        assertThat(many.bind(new StageBind(0, tx(2), bytes("k0"), Checksums.crc32c(v), 0)))
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(v));
        assertThat(many.staged()).isEqualTo(ValueAssembler.MAX_STAGED - 1);
        many.close();
        assertThat(own.used()).isZero();
    }

    @Test
    void closeGivesBackTheMemoryOfStagedValues() {
        assembler.acceptStaged(staged(1, "a", random(300, 32), 0, 100));
        assembler.acceptStaged(staged(2, "b", random(200, 33), 0, 100));
        assertThat(budget.used()).isEqualTo(500);

        assembler.close();

        assertThat(budget.used()).isZero();
        assertThat(assembler.staged()).isZero();
    }

    @Test
    void aValueStagedInTheStoreIsBoundAndContinuedAndAStagedValueDroppedOrClosedLeavesNothingThere() {
        AssemblyBudget own = new AssemblyBudget(1 << 20, 1 << 20);
        try (KvStore store = KvStore.builder().maxBytes(16 << 20).open()) {
            ValueAssembler staging = staging(own, store);
            byte[] v = random(200_000, 34);
            staging.acceptStaged(staged(1, "a", v, 0, 70_000));
            staging.acceptStaged(staged(1, "a", v, 70_000, 140_000));
            assertThat(own.used()).isZero();
            assertThat(store.stats().valueBytes()).isEqualTo(200_000);

            assertThat(staging.bind(new StageBind(1, tx(1), bytes("a"), Checksums.crc32c(v), 0)))
                    .isNull();
            ValueAssembler.Result r = staging.accept(rest(tx(1), "a", v, 140_000, 200_000));
            assertThat(r).isInstanceOf(Whole.class);
            Whole w = (Whole) r;
            assertThat(w.bytes()).isNull();
            RecordHeader h = new RecordHeader(RecordState.COMPLETE, tx(1), w.checksum(), w.length(), 0);
            try (ValueStage stage = w.staged()) {
                assertThat(store.putStaged(bytes("a"), stage, old -> old == null ? h : null))
                        .isTrue();
            }
            assertThat(store.get(bytes("a"))).isEqualTo(StoredValue.complete(tx(1), v));

            staging.acceptStaged(staged(2, "b", v, 0, 70_000));
            staging.cancel(new StageCancel(2));
            staging.acceptStaged(staged(3, "c", v, 0, 70_000));
            staging.acceptStaged(staged(3, "c", v, 140_000, 200_000)); // out of order
            staging.acceptStaged(staged(4, "d", v, 0, 70_000));
            assertThat(store.stats().valueBytes()).isEqualTo(400_000);
            staging.close();
            assertThat(store.stats().valueBytes()).isEqualTo(200_000);
            assertThat(store.stats().entries()).isEqualTo(1);
        }
    }

    @Test
    void aValueSentAgainAfterANackReplacesAPartlyStagedValueOfItsTxId() {
        byte[] v = random(300, 35);
        assembler.acceptStaged(staged(1, "a", v, 0, 100));
        assembler.bind(new StageBind(1, tx(1), bytes("a"), Checksums.crc32c(v), 0));
        List<ValueChunk> again = new ArrayList<>(chunks(tx(1), Op.PUT, bytes("a"), v, 150));

        assertThat(assembler.accept(again.get(0))).isNull();
        assertThat(budget.used()).isEqualTo(300);

        assertThat(assembler.accept(again.get(1)))
                .isInstanceOfSatisfying(Whole.class, w -> assertThat(w.bytes()).isEqualTo(v));
        assertThat(budget.used()).isZero();
    }
}
