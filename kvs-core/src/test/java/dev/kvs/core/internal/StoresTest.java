package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoresTest {
    @TempDir
    Path tempDir;

    @Test
    void chronicleIsTheDefaultAndHeapIsOnRequest() {
        try (KvStore s = KvStore.builder().maxEntries(10).open()) {
            assertThat(s).isInstanceOf(ChronicleKvStore.class);
        }
        try (KvStore s = KvStore.builder().maxEntries(10).heap().open()) {
            assertThat(s).isInstanceOf(HeapKvStore.class);
            assertThat(s.config().maxEntries()).isEqualTo(10);
        }
        try (KvStore s = Stores.heap(StoreConfig.defaults())) {
            assertThat(s).isInstanceOf(HeapKvStore.class);
        }
    }

    @Test
    void aDataDirMakesItPersistentButNotOnTheHeap() {
        try (KvStore s = KvStore.builder()
                .maxEntries(10)
                .maxBytes(1 << 20)
                .dataDir(tempDir)
                .open()) {
            assertThat(s.stats().persistent()).isTrue();
        }
        assertThatThrownBy(() -> KvStore.builder().dataDir(tempDir).heap().open())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
