package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvsException;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreFullException;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChronicleMapsTest {
    @Test
    void aFullMapBecomesStoreFull() {
        KvsException e = ChronicleMaps.translate(new IllegalStateException(
                "ChronicleMap{name=x}: Attempt to allocate #9 extra segment tier, 8 is maximum.\nPossible reasons"));
        assertThat(e).isInstanceOf(StoreFullException.class).hasMessageContaining("#9 extra segment tier");
        assertThat(e.getMessage()).doesNotContain("Possible reasons");
    }

    @Test
    void aTooLargeEntryBecomesEntryTooLarge() {
        assertThat(ChronicleMaps.translate(
                        new IllegalArgumentException("Entry is too large: requires 100 chunks, 60 is maximum.")))
                .isInstanceOf(EntryTooLargeException.class);
    }

    @Test
    void aClosedMapBecomesStoreClosedAndAnythingElseAStorageError() {
        assertThat(ChronicleMaps.translate(new ClosedIllegalStateException("closed")))
                .isInstanceOf(StorageException.class)
                .hasMessage("store is closed");
        assertThat(ChronicleMaps.translate(new IllegalStateException("odd")))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("odd");
        StoreFullException ours = new StoreFullException("x");
        assertThat(ChronicleMaps.translate(ours)).isSameAs(ours);
    }

    @Test
    void aRealMapThatRunsOutOfTiersIsReportedAsFull() {
        MapLayout tiny = MapLayout.of(1, 64, 64, 64, 1);
        try (ChronicleMap<byte[], byte[]> map = ChronicleMaps.open(
                tiny.applyTo(ChronicleMap.of(byte[].class, byte[].class)
                        .averageKeySize(8)
                        .averageValueSize(8)),
                null,
                "unused")) {
            assertThatThrownBy(() -> {
                        try {
                            for (int i = 0; i < 100_000; i++) map.put(("k" + i).getBytes(), new byte[8]);
                        } catch (RuntimeException e) {
                            throw ChronicleMaps.translate(e);
                        }
                    })
                    .isInstanceOf(StoreFullException.class);
        }
    }

    @Test
    void closeAllClosesEveryOneAndReportsTheFirstFailure() {
        boolean[] closed = new boolean[2];
        assertThatThrownBy(() -> ChronicleMaps.closeAll(
                        () -> {
                            throw new IllegalStateException("first");
                        },
                        null,
                        () -> closed[1] = true))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("first");
        assertThat(closed[1]).isTrue();
    }

    @Test
    void aFileMadeWithChronicleEntryChecksumsIsRewrittenWithoutThemKeepingEveryEntry(@TempDir Path tmp)
            throws Exception {
        DataDir dir = DataDir.open(tmp);
        try (ChronicleMap<byte[], byte[]> old = builder().checksumEntries(true).createPersistedTo(dir.file("m.dat"))) {
            for (int i = 0; i < 500; i++) old.put(("k" + i).getBytes(), ("v" + i).getBytes());
        }
        dir.close(true);
        for (int open = 0; open < 2; open++) {
            dir = DataDir.open(tmp);
            try (ChronicleMap<byte[], byte[]> map = ChronicleMaps.open(builder(), dir, "m.dat")) {
                assertThat(ChronicleMaps.checksumsEntries(map))
                        .as("open %d", open)
                        .isFalse();
                assertThat(map.longSize()).isEqualTo(500);
                for (int i = 0; i < 500; i++) {
                    assertThat(new String(map.get(("k" + i).getBytes()))).isEqualTo("v" + i);
                }
            } finally {
                dir.close(true);
            }
        }
        assertThat(Files.exists(tmp.resolve("m.dat.rewrite"))).isFalse();
    }

    @Test
    void aNewFileIsMadeUnderAnotherNameSoACreationACrashCutShortLeavesNoFileToRecover(@TempDir Path tmp)
            throws Exception {
        // what a kill while Chronicle wrote a new file's header left: the bytes of half a header
        Files.write(tmp.resolve("m.dat.new"), new byte[] {1, 2, 3, 4});
        DataDir dir = DataDir.open(tmp); // not cleanly closed before: recovery needed
        assertThat(dir.recoveryNeeded()).isTrue();
        try (ChronicleMap<byte[], byte[]> map = ChronicleMaps.open(builder(), dir, "m.dat")) {
            map.put("k".getBytes(), "v".getBytes());
        } finally {
            dir.close(false);
        }
        assertThat(Files.exists(tmp.resolve("m.dat.new"))).isFalse();
        dir = DataDir.open(tmp);
        try (ChronicleMap<byte[], byte[]> map = ChronicleMaps.open(builder(), dir, "m.dat")) {
            assertThat(new String(map.get("k".getBytes()))).isEqualTo("v");
        } finally {
            dir.close(true);
        }
    }

    @Test
    void aNewFileHasNoChronicleEntryChecksums(@TempDir Path tmp) {
        DataDir dir = DataDir.open(tmp);
        try (ChronicleMap<byte[], byte[]> map = ChronicleMaps.open(builder(), dir, "m.dat")) {
            assertThat(ChronicleMaps.checksumsEntries(map)).isFalse();
        } finally {
            dir.close(true);
        }
    }

    private static ChronicleMapBuilder<byte[], byte[]> builder() {
        return ChronicleMap.of(byte[].class, byte[].class)
                .averageKeySize(8)
                .averageValueSize(8)
                .entries(1_000);
    }
}
