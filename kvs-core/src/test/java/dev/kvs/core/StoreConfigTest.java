package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoreConfigTest {
    @Test
    void defaults() {
        StoreConfig c = StoreConfig.defaults();
        assertThat(c.maxEntries()).isEqualTo(1_000_000);
        assertThat(c.maxBytes()).isEqualTo(1L << 30);
        assertThat(c.maxKeyBytes()).isEqualTo(64 * 1024);
        assertThat(c.maxValueBytes()).isEqualTo(512 * 1024 * 1024);
        assertThat(c.dataDir()).isEmpty();
    }

    @Test
    void builderCopiesAnotherConfig() {
        StoreConfig c = StoreConfig.builder()
                .maxEntries(5)
                .maxBytes(6)
                .maxKeyBytes(7)
                .maxValueBytes(8)
                .dataDir(Path.of("d"))
                .build();
        assertThat(StoreConfig.builder().from(c).build()).isEqualTo(c);
        assertThat(c.dataDir()).isEqualTo(Optional.of(Path.of("d")));
    }

    @Test
    void rejectsBadValuesQuotingThem() {
        assertThatThrownBy(() -> StoreConfig.builder().maxEntries(0)).hasMessage("maxEntries <= 0: 0");
        assertThatThrownBy(() -> StoreConfig.builder().maxBytes(-1)).hasMessage("maxBytes <= 0: -1");
        assertThatThrownBy(() -> StoreConfig.builder().maxKeyBytes(0)).hasMessage("maxKeyBytes <= 0: 0");
        assertThatThrownBy(() -> StoreConfig.builder().maxValueBytes(-3)).hasMessage("maxValueBytes < 0: -3");
        assertThatThrownBy(() -> new StoreConfig(1, 1, 1, 1, null)).isInstanceOf(NullPointerException.class);
    }
}
