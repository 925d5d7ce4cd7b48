package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoresTest {
    @TempDir
    Path tempDir;

    @Test
    void opensTheChronicleStore() {
        try (KvStore s = KvStore.builder().maxEntries(10).open()) {
            assertThat(s).isInstanceOf(ChronicleKvStore.class);
            assertThat(s.config().maxEntries()).isEqualTo(10);
        }
    }

    @Test
    void aDataDirMakesItPersistent() {
        try (KvStore s = KvStore.builder()
                .maxEntries(10)
                .maxBytes(1 << 20)
                .dataDir(tempDir)
                .open()) {
            assertThat(s.stats().persistent()).isTrue();
        }
    }
}
