package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HeapKvStoreTest extends KvStoreContractTest {
    @Override
    KvStore open(StoreConfig.Builder config) {
        return HeapKvStore.open(config.build());
    }

    @Test
    void keepsTheConfigItWasOpenedWith() {
        try (KvStore s = HeapKvStore.open(StoreConfig.builder().maxEntries(10).build())) {
            assertThat(s).isInstanceOf(HeapKvStore.class);
            assertThat(s.config().maxEntries()).isEqualTo(10);
        }
    }

    @Test
    void refusesADataDir() {
        StoreConfig config = StoreConfig.builder().dataDir(Path.of("/tmp/x")).build();
        assertThatThrownBy(() -> new HeapKvStore(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/tmp/x");
    }

    @Test
    void reportsNoOffHeapMemoryAndIsNotPersistent() {
        assertThat(store.stats().offHeapBytes()).isZero();
        assertThat(store.stats().persistent()).isFalse();
    }
}
