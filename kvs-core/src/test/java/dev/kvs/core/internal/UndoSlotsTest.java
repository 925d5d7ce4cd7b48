package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UndoSlotsTest {
    @TempDir
    Path dir;

    /** {@code bytes} as a map hands a stored value to a write: a {@link Data} over its memory. */
    private static Data<byte[]> data(byte[] bytes) {
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, bytes.length));
        store.write(0, bytes);
        return new AbstractData<>() {
            @Override
            public BytesStore<?, ?> bytes() {
                return store;
            }

            @Override
            public long offset() {
                return 0;
            }

            @Override
            public long size() {
                return bytes.length;
            }

            @Override
            public byte[] get() {
                return bytes;
            }

            @Override
            public byte[] getUsing(byte[] using) {
                return bytes.clone();
            }
        };
    }

    @Test
    void aWriteUnderWayWhenTheFileIsReadAgainIsFoundWithWhatItOverwrote() {
        Path file = dir.resolve(UndoSlots.FILE);
        try (UndoSlots slots = UndoSlots.open(file, 1024)) {
            int done = slots.begin(UndoSlots.RECORD, "done".getBytes(), data("old-done".getBytes()));
            slots.end(done);
            slots.begin(UndoSlots.PAGE, "page".getBytes(), data("old-page".getBytes())); // the kill comes here
        }
        try (UndoSlots slots = UndoSlots.open(file, 1024)) {
            List<UndoSlots.Interrupted> found = slots.interrupted();
            assertThat(found).hasSize(1);
            assertThat(found.get(0).kind()).isEqualTo(UndoSlots.PAGE);
            assertThat(new String(found.get(0).key())).isEqualTo("page");
            assertThat(new String(found.get(0).old())).isEqualTo("old-page");
            slots.clear();
            assertThat(slots.interrupted()).isEmpty();
        }
        try (UndoSlots slots = UndoSlots.open(file, 1024)) {
            assertThat(slots.interrupted()).as("cleared for good").isEmpty();
        }
    }

    @Test
    void aWriteTooLargeForASlotOrWithNoSlotFreeRunsWithoutOneAndIsCounted() {
        try (UndoSlots slots = UndoSlots.open(dir.resolve(UndoSlots.FILE), 1024)) {
            byte[] key = "k".getBytes();
            int large = UndoSlots.largeBytes(1024);
            assertThat(slots.begin(UndoSlots.PAGE, key, data(new byte[large])))
                    .as("too large")
                    .isEqualTo(-1);
            assertThat(slots.unguarded()).isEqualTo(1);
            List<Integer> big = new ArrayList<>();
            for (int i = 0; i < UndoSlots.LARGE; i++)
                big.add(slots.begin(UndoSlots.PAGE, key, data(new byte[100_000])));
            assertThat(big).doesNotContain(-1).doesNotHaveDuplicates();
            assertThat(slots.begin(UndoSlots.PAGE, key, data(new byte[100_000])))
                    .as("every large slot taken")
                    .isEqualTo(-1);
            List<Integer> small = new ArrayList<>();
            for (int i = 0; i < UndoSlots.SMALL; i++) small.add(slots.begin(UndoSlots.RECORD, key, data(new byte[8])));
            assertThat(small).doesNotContain(-1).doesNotHaveDuplicates().doesNotContainAnyElementsOf(big);
            assertThat(slots.begin(UndoSlots.RECORD, key, data(new byte[8])))
                    .as("every slot taken")
                    .isEqualTo(-1);
            assertThat(slots.unguarded()).isEqualTo(3);
            slots.end(big.get(2));
            assertThat(slots.begin(UndoSlots.RECORD, key, data(new byte[8])))
                    .as("a small write takes a large slot if no small one is free")
                    .isEqualTo(big.get(2));
            assertThat(slots.interrupted()).hasSize(UndoSlots.SMALL + UndoSlots.LARGE);
            assertThat(slots.bytes())
                    .isEqualTo((long) UndoSlots.SMALL * UndoSlots.SMALL_BYTES + UndoSlots.LARGE * large);
        }
    }
}
