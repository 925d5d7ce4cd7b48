package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.Checksums;
import dev.kvs.core.HeapValueStage;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StageListener;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Reading a {@link ChunkStage} while it is written, and what its {@link StageListener} is told. */
class ChunkStageTest {
    private static final int CHUNK = ValueChunks.CHUNK_BYTES;
    /** Three and a half chunks: the last one shorter. */
    private static final int LENGTH = 3 * CHUNK + CHUNK / 2;

    private static final int PIECE = 7 * 1024;

    private KvStore store;

    @BeforeEach
    void openStore() {
        store = Stores.open(
                StoreConfig.builder().maxEntries(1_000).maxBytes(64L << 20).build());
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] randomValue(String test, int length) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed);
        byte[] value = new byte[length];
        new Random(seed).nextBytes(value);
        return value;
    }

    private static RecordHeader headerOf(byte[] value) {
        return StoredValue.complete(TxId.of(3, 42), value, 4_000_000_000_000L).header();
    }

    /** What a stage told its listener: readable counts, committed headers, and "abandoned". */
    private static class Events implements StageListener {
        final List<Object> seen = new ArrayList<>();

        @Override
        public void readable(int readable) {
            seen.add(readable);
        }

        @Override
        public void committed(RecordHeader header) {
            seen.add(header);
        }

        @Override
        public void abandoned() {
            seen.add("abandoned");
        }
    }

    private static void writePiece(ValueStage stage, byte[] value, int at, int n, boolean direct) {
        if (direct) {
            ByteBuffer src = ByteBuffer.allocateDirect(n);
            src.put(value, at, n).flip();
            stage.write(src);
            assertThat(src.hasRemaining()).isFalse();
        } else {
            stage.write(value, at, n);
        }
    }

    private static byte[] read(ValueStage stage, int offset, int length) {
        ByteBuffer into = ByteBuffer.allocate(length);
        assertThat(stage.readRange(offset, length, into))
                .as("read [%d, +%d)", offset, length)
                .isTrue();
        assertThat(into.position()).isEqualTo(length);
        return into.array();
    }

    @ParameterizedTest(name = "direct buffer {0}")
    @ValueSource(booleans = {false, true})
    void readableGrowsByWholeChunksAndReachesTheLengthWithTheLastByte(boolean direct) {
        byte[] value = randomValue("readableGrows", LENGTH);
        Events events = new Events();
        List<Object> expected = new ArrayList<>();
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.listen(events);
            assertThat(stage.readable()).isZero();
            for (int at = 0; at < LENGTH; at += PIECE) {
                int before = stage.readable();
                writePiece(stage, value, at, Math.min(PIECE, LENGTH - at), direct);
                int written = stage.written();
                int readable = written == LENGTH ? LENGTH : written / CHUNK * CHUNK;
                assertThat(stage.readable()).as("after %d bytes", written).isEqualTo(readable);
                if (readable != before) expected.add(readable);
            }
            assertThat(expected).containsExactly(CHUNK, 2 * CHUNK, 3 * CHUNK, LENGTH);
            assertThat(events.seen).isEqualTo(expected);
            assertThat(read(stage, 0, LENGTH)).isEqualTo(value);
            assertThat(read(stage, CHUNK - 5, 10)).isEqualTo(Arrays.copyOfRange(value, CHUNK - 5, CHUNK + 5));
        }
    }

    @ParameterizedTest(name = "direct buffer {0}")
    @ValueSource(booleans = {false, true})
    void aWriteOfSeveralChunksTellsTheListenerOnce(boolean direct) {
        byte[] value = randomValue("aWriteOfSeveralChunks", LENGTH);
        Events events = new Events();
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.listen(events);
            writePiece(stage, value, 0, 2 * CHUNK + 1, direct);
            writePiece(stage, value, 2 * CHUNK + 1, 10, direct);
            writePiece(stage, value, 2 * CHUNK + 11, LENGTH - 2 * CHUNK - 11, direct);
            assertThat(events.seen).containsExactly(2 * CHUNK, LENGTH);
            assertThat(read(stage, 0, LENGTH)).isEqualTo(value);
        }
    }

    /**
     * The writer waits after each write that made more bytes readable until the reader, on another
     * thread, read them: so every read but the last happens while the stage is still being written.
     */
    @Test
    void anotherThreadReadsTheWrittenBytesWhileTheWriterGoesOn() throws Exception {
        byte[] value = randomValue("anotherThreadReads", LENGTH);
        BlockingQueue<Integer> told = new LinkedBlockingQueue<>();
        Semaphore read = new Semaphore(0);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.listen(new Events() {
                @Override
                public void readable(int readable) {
                    told.add(readable);
                }
            });
            Future<List<Integer>> reader = pool.submit(() -> {
                ByteBuffer copy = ByteBuffer.allocateDirect(LENGTH);
                List<Integer> readUpTo = new ArrayList<>();
                while (copy.position() < LENGTH) {
                    Integer upTo = told.poll(30, TimeUnit.SECONDS);
                    assertThat(upTo).as("told of more readable bytes").isNotNull();
                    assertThat(stage.readable()).isGreaterThanOrEqualTo(upTo);
                    int from = copy.position();
                    assertThat(stage.readRange(from, upTo - from, copy)).isTrue();
                    assertThat(copy.position()).isEqualTo(upTo);
                    byte[] got = new byte[upTo - from];
                    copy.get(from, got);
                    assertThat(got).isEqualTo(Arrays.copyOfRange(value, from, upTo));
                    readUpTo.add(upTo);
                    read.release();
                }
                return readUpTo;
            });
            for (int at = 0; at < LENGTH; at += PIECE) {
                int before = stage.readable();
                stage.write(value, at, Math.min(PIECE, LENGTH - at));
                if (stage.readable() != before) {
                    assertThat(read.tryAcquire(30, TimeUnit.SECONDS))
                            .as("reader read up to %d", stage.readable())
                            .isTrue();
                }
            }
            assertThat(reader.get(30, TimeUnit.SECONDS)).containsExactly(CHUNK, 2 * CHUNK, 3 * CHUNK, LENGTH);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRangeOutsideTheReadableBytesIsRefused() {
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.write(new byte[CHUNK + 10], 0, CHUNK + 10);
            assertThat(stage.readable()).isEqualTo(CHUNK);
            ByteBuffer buffer = ByteBuffer.allocate(LENGTH);
            assertThatThrownBy(() -> stage.readRange(0, CHUNK + 1, buffer))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(String.valueOf(CHUNK + 1))
                    .hasMessageContaining(CHUNK + " readable");
            assertThatThrownBy(() -> stage.readRange(CHUNK, 1, buffer)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> stage.readRange(Integer.MAX_VALUE, 1, buffer))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> stage.readRange(-1, 1, buffer))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-1");
            assertThatThrownBy(() -> stage.readRange(0, 2, ByteBuffer.allocate(1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(buffer.position()).isZero();
            assertThat(stage.readRange(0, CHUNK, buffer)).isTrue();
        }
    }

    @Test
    void aListenerIsSetOnceBeforeTheFirstWrite() {
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.listen(new Events());
            assertThatThrownBy(() -> stage.listen(new Events())).isInstanceOf(IllegalStateException.class);
        }
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.write(new byte[1], 0, 1);
            assertThatThrownBy(() -> stage.listen(new Events()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("1 bytes written");
        }
    }

    @Test
    void aCommitTellsTheListenerTheRecordsHeaderAndClosingAfterwardsTellsNothing() {
        byte[] value = randomValue("aCommitTells", LENGTH);
        RecordHeader header = headerOf(value);
        Events events = new Events();
        ValueStage stage = store.stage(LENGTH);
        stage.listen(events);
        stage.write(value, 0, LENGTH);
        assertThat(store.putStaged(key("k"), stage, h -> {
                    assertThat(events.seen)
                            .as("not told before the record is written")
                            .containsExactly(LENGTH);
                    return header;
                }))
                .isTrue();
        assertThat(events.seen).containsExactly(LENGTH, header);
        assertThat(store.header(key("k"))).isEqualTo(header);
        stage.close();
        stage.close();
        assertThat(events.seen).containsExactly(LENGTH, header);
        assertThat(read(stage, 0, LENGTH)).as("the record's bytes").isEqualTo(value);

        store.delete(key("k"));
        assertThat(stage.readRange(0, LENGTH, ByteBuffer.allocate(LENGTH)))
                .as("its record's chunks freed")
                .isFalse();
    }

    @Test
    void closingWithoutACommitAbandonsTheStageOnceAndItsBytesAreGone() {
        byte[] value = randomValue("closingWithoutACommit", LENGTH);
        Events events = new Events();
        ValueStage stage = store.stage(LENGTH);
        stage.listen(events);
        stage.write(value, 0, LENGTH);
        assertThat(store.putStaged(key("k"), stage, h -> null)).as("declined").isFalse();
        assertThat(events.seen).containsExactly(LENGTH);
        assertThat(read(stage, 0, LENGTH)).isEqualTo(value);
        stage.close();
        stage.close();
        assertThat(events.seen).containsExactly(LENGTH, "abandoned");
        assertThat(stage.readable()).isEqualTo(LENGTH);
        assertThat(stage.readRange(0, LENGTH, ByteBuffer.allocate(LENGTH))).isFalse();
        assertThat(stage.readRange(0, 0, ByteBuffer.allocate(0))).isFalse();
        assertThat(((ChronicleKvStore) store).chunkCount()).isZero();
    }

    @Test
    void aClearWhileStagingMakesEveryReadFailEvenOfChunksWrittenAfterIt() {
        byte[] value = randomValue("aClearWhileStaging", LENGTH);
        Events events = new Events();
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.listen(events);
            stage.write(value, 0, CHUNK);
            assertThat(read(stage, 0, CHUNK)).isEqualTo(Arrays.copyOf(value, CHUNK));
            store.clear();
            assertThat(stage.readRange(0, CHUNK, ByteBuffer.allocate(CHUNK))).isFalse();
            stage.write(value, CHUNK, CHUNK);
            assertThat(stage.readable()).isEqualTo(2 * CHUNK);
            assertThat(stage.readRange(CHUNK, CHUNK, ByteBuffer.allocate(CHUNK)))
                    .as("a chunk written after the clear")
                    .isFalse();
        }
        assertThat(events.seen).containsExactly(CHUNK, 2 * CHUNK, "abandoned");
    }

    @Test
    void piecesWrittenAfterAClearNeverReachTheMemoryOfValuesStoredSince() {
        byte[] first = randomValue("piecesAfterAClear", LENGTH);
        try (ValueStage stage = store.stage(LENGTH)) {
            stage.write(first, 0, PIECE); // chunk 0 reserved, its first piece copied in
            store.clear();
            // the freed chunk's memory goes to the values stored next
            List<byte[]> values = new ArrayList<>();
            Random random = new Random(first[0]);
            for (int i = 0; i < 100; i++) {
                byte[] v = new byte[100_000];
                random.nextBytes(v);
                store.put(key("v" + i), StoredValue.complete(TxId.of(1, i + 1), v));
                values.add(v);
            }
            byte[] ones = new byte[LENGTH];
            Arrays.fill(ones, (byte) -1);
            for (int at = PIECE; at < LENGTH; at += PIECE) stage.write(ones, at, Math.min(PIECE, LENGTH - at));
            assertThat(stage.readRange(0, CHUNK, ByteBuffer.allocate(CHUNK))).isFalse();
            for (int i = 0; i < values.size(); i++) {
                assertThat(store.get(key("v" + i)).value()).as("value %d", i).isEqualTo(values.get(i));
            }
        }
    }

    @ParameterizedTest(name = "source {0}")
    @ValueSource(strings = {"array", "direct", "heap", "read-only"})
    void aChunkInPiecesIsStoredWithItsFirstPieceAndCommittedWhole(String source) {
        byte[] value = randomValue("aChunkInPieces", LENGTH);
        ChronicleKvStore chronicle = (ChronicleKvStore) store;
        try (ValueStage stage = store.stage(LENGTH)) {
            for (int at = 0; at < LENGTH; at += PIECE) {
                int n = Math.min(PIECE, LENGTH - at);
                switch (source) {
                    case "array" -> stage.write(value, at, n);
                    case "direct" -> writePiece(stage, value, at, n, true);
                    case "heap" -> stage.write(ByteBuffer.wrap(value, at, n));
                    default -> stage.write(ByteBuffer.wrap(value, at, n).asReadOnlyBuffer());
                }
                assertThat(chronicle.chunkCount())
                        .as("chunks after %d bytes", stage.written())
                        .isEqualTo(ValueChunks.chunkCount(stage.written(), CHUNK));
            }
            assertThat(store.putStaged(key("k"), stage, h -> headerOf(value))).isTrue();
        }
        assertThat(store.get(key("k")).value()).isEqualTo(value);
    }

    @Test
    void aStageOfAClosedStoreCannotBeRead() {
        ValueStage stage = store.stage(LENGTH);
        stage.write(new byte[CHUNK], 0, CHUNK);
        store.close();
        assertThat(stage.readRange(0, CHUNK, ByteBuffer.allocate(CHUNK))).isFalse();
        stage.close();
    }

    @Test
    void aHeapStageIsNeverReadableAndNeverCallsItsListener() {
        Events events = new Events();
        ValueStage stage = new HeapValueStage(100);
        stage.listen(events);
        stage.write(new byte[100], 0, 100);
        assertThat(stage.readable()).isZero();
        assertThat(stage.readRange(0, 0, ByteBuffer.allocate(0))).isTrue();
        assertThatThrownBy(() -> stage.readRange(0, 1, ByteBuffer.allocate(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 readable");
        store.putStaged(
                key("k"),
                stage,
                h -> new RecordHeader(RecordState.COMPLETE, TxId.of(1, 1), Checksums.crc32c(new byte[100]), 100));
        stage.close();
        assertThat(store.stage(100)).as("small values are staged on the heap").isInstanceOf(HeapValueStage.class);
        assertThat(events.seen).isEmpty();
    }
}
