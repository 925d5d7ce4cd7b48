package dev.kvs.core.internal;

import static dev.kvs.core.internal.ValueChunks.CHUNK_BYTES;
import static dev.kvs.core.internal.ValueChunks.FIRST_CHUNK_BYTES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ValueChunksTest {
    private final ValueChunks chunks =
            ValueChunks.open(StoreConfig.builder().maxBytes(16 << 20).build(), null);

    @AfterEach
    void close() {
        chunks.close();
    }

    private static byte[] random(int length) {
        byte[] b = new byte[length];
        new Random(length).nextBytes(b);
        return b;
    }

    @Test
    void chunkCountRoundsUpAndNeverOverflows() {
        assertThat(ValueChunks.chunkCount(1, CHUNK_BYTES)).isEqualTo(1);
        assertThat(ValueChunks.chunkCount(CHUNK_BYTES, CHUNK_BYTES)).isEqualTo(1);
        assertThat(ValueChunks.chunkCount(CHUNK_BYTES + 1, CHUNK_BYTES)).isEqualTo(2);
        assertThat(ValueChunks.chunkCount(Integer.MAX_VALUE, CHUNK_BYTES)).isEqualTo(16_393);
        assertThat(ValueChunks.chunkCount(Integer.MAX_VALUE, FIRST_CHUNK_BYTES))
                .isEqualTo(32_801)
                .isLessThan(1 << 16);
    }

    /** A new map's chunk holds a 100 kB value whole; a map made for the first, smaller chunks keeps them. */
    @ParameterizedTest
    @CsvSource({CHUNK_BYTES + ", 1", FIRST_CHUNK_BYTES + ", 2"})
    void aMapKeepsTheChunkItWasMadeFor(int chunkBytes, int chunksOf100kB) {
        StoreConfig config = StoreConfig.builder().maxBytes(16 << 20).build();
        try (ValueChunks map = ValueChunks.open(config, null, chunkBytes)) {
            assertThat(map.chunkBytes()).isEqualTo(chunkBytes);
            byte[] a = random(100_000);
            long id = map.write(a);
            assertThat(map.size()).isEqualTo(chunksOf100kB);
            assertThat(map.read(id, a.length)).isEqualTo(a);
        }
    }

    @Test
    void aNewMapsChunkIs128KiBLessTheEntrysRoom() {
        assertThat(chunks.chunkBytes()).isEqualTo(CHUNK_BYTES).isEqualTo(128 * 1024 - 64);
    }

    @Test
    void aWrittenBlobReadsBackWholeUnderAFreshId() {
        byte[] a = random(3 * CHUNK_BYTES + 5);
        byte[] b = random(CHUNK_BYTES);
        long idA = chunks.write(a);
        long idB = chunks.write(b);
        assertThat(idB).isNotEqualTo(idA);
        assertThat(chunks.read(idA, a.length)).isEqualTo(a);
        assertThat(chunks.read(idB, b.length)).isEqualTo(b);
        assertThat(chunks.size()).isEqualTo(5);
    }

    @Test
    void aFreedBlobReadsAsNull() {
        byte[] a = random(2 * CHUNK_BYTES + 1);
        long id = chunks.write(a);
        chunks.free(id, a.length);
        assertThat(chunks.read(id, a.length)).isNull();
        assertThat(chunks.size()).isZero();
    }

    @Test
    void recoverRemovesUnreferencedBlobsAndMovesIdsPastAllSeen() {
        long kept = chunks.write(random(CHUNK_BYTES + 1));
        long orphan = chunks.write(random(2 * CHUNK_BYTES));
        assertThat(chunks.recover(id -> id == kept, 0)).isEqualTo(2);
        assertThat(chunks.size()).isEqualTo(2);
        assertThat(chunks.write(random(10))).isGreaterThan(orphan);
        chunks.recover(id -> true, 1000);
        assertThat(chunks.write(random(10))).isEqualTo(1001);
    }

    @Test
    void blobIdIsRecoveredFromAChunkKey() {
        assertThat(ValueChunks.blobIdOf((5L << 16) | 3)).isEqualTo(5);
    }
}
