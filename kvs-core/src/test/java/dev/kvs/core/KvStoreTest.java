package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The builder, and the store as a caller sees it: a runnable tour of the API. */
class KvStoreTest {
    @Test
    void builderRejectsBadLimitsAtOnce() {
        assertThatThrownBy(() -> KvStore.builder().maxEntries(-1)).hasMessage("maxEntries <= 0: -1");
        assertThatThrownBy(() -> KvStore.builder().maxBytes(0)).hasMessage("maxBytes <= 0: 0");
        assertThatThrownBy(() -> KvStore.builder().maxKeyBytes(0)).hasMessage("maxKeyBytes <= 0: 0");
        assertThatThrownBy(() -> KvStore.builder().maxValueBytes(-1)).hasMessage("maxValueBytes < 0: -1");
    }

    @Test
    void aTour() {
        try (KvStore store =
                KvStore.builder().maxEntries(1000).maxBytes(1 << 20).open()) {
            byte[] key = "greeting".getBytes();
            store.put(key, StoredValue.complete(TxId.of(1, 1), "hello".getBytes()));
            assertThat(store.get(key).value()).isEqualTo("hello".getBytes());

            // assign the next TxId and write in one atomic step
            Write w = store.update(
                    key, h -> Write.put(StoredValue.complete(h.txId().next(), "hi".getBytes())));
            assertThat(w).isInstanceOf(Write.Put.class);
            assertThat(store.header(key).txId()).isEqualTo(TxId.of(1, 2));

            // a backup learns of a key before its value: reads must not serve it yet
            store.put("pending".getBytes(), StoredValue.unfinished(TxId.of(1, 3), 42, 10));
            assertThat(store.header("pending".getBytes()).isServable()).isFalse();

            store.updateAll(List.of(key, "pending".getBytes()), hs -> List.of(Write.remove(), Write.keep()));
            assertThat(store.size()).isEqualTo(1);
            assertThat(store.config().maxEntries()).isEqualTo(1000);
        }
    }
}
