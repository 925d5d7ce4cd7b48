package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.UnsafeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill -9 while a write holds an entry's lock, after its new bytes are in the map's memory: the files
 * are copied at that moment ({@link WriteFaults#written}), as the kill would leave them in the page
 * cache, and the copy is opened. Nothing acknowledged before the write is lost: the key that was being
 * written reads as after it if its new bytes are whole, and as before it if they were torn mid-copy (put
 * back from its {@link UndoSlots undo slot}); with no undo slot, torn bytes are found and the key fenced
 * ({@link RecordState#LOST}), not served or dropped.
 */
class CrashWindowTest {
    private static final byte[] KEY = "h".getBytes();
    private static final ValueType HASH = ValueType.HASH;

    @TempDir
    Path tempDir;

    @AfterEach
    void unhook() {
        WriteFaults.written = null;
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    /** Copies every file of {@code from} into {@code to}, as the files stand now. */
    private static void copyFiles(Path from, Path to) {
        try (Stream<Path> files = Files.list(from)) {
            Files.createDirectories(to);
            for (Path f : files.toList()) Files.copy(f, to.resolve(f.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code write} with the files of {@code dir} copied to {@code copy} inside its first page or
     * record write, once the new bytes are in place, after {@code tear} has changed the last of them.
     * Returns whether the copy was made.
     */
    private static boolean copyInsideWrite(Path dir, Path copy, boolean tear, Runnable write) {
        AtomicBoolean copied = new AtomicBoolean();
        WriteFaults.written = (address, n) -> {
            if (copied.get()) return;
            if (tear) {
                // the last byte as a copy cut short before it leaves it: old, here made to differ from new
                long last = address + n - 1;
                UnsafeMemory.UNSAFE.putByte(last, (byte) ~UnsafeMemory.UNSAFE.getByte(last));
            }
            copyFiles(dir, copy);
            copied.set(true);
        };
        try {
            write.run();
        } finally {
            WriteFaults.written = null;
        }
        return copied.get();
    }

    private static void putField(KvStore s, int i, String version, long seq) {
        s.putMembers(
                KEY, HASH, List.of(new Member(b("field-" + i), b(version + "-" + i))), false, () -> TxId.of(1, seq));
    }

    private static Map<String, String> contents(KvStore s) {
        Map<String, String> out = new HashMap<>();
        for (Member m : s.members(KEY, HASH)) out.put(new String(m.name()), new String(m.value()));
        return out;
    }

    @Test
    void aKillAfterAPagesNewBytesAndBeforeItsLockIsLetGoLosesNoMemberOfThePage() throws IOException {
        Path dir = tempDir.resolve("live");
        Path copy = tempDir.resolve("killed");
        int fields = 300; // several pages
        try (KvStore s = Stores.open(StructuresChild.config(dir))) {
            for (int i = 0; i < fields; i++) putField(s, i, "old", i + 1);
            // a new value of the same length: the page is rewritten where it lies
            assertThat(copyInsideWrite(dir, copy, false, () -> putField(s, 7, "new", 1_000)))
                    .isTrue();
        }
        try (KvStore s = Stores.open(StructuresChild.config(copy))) {
            Map<String, String> found = contents(s);
            for (int i = 0; i < fields; i++) {
                // the page's new bytes are whole: the write stands (it was not acknowledged, and may be)
                if (i == 7) assertThat(found.get("field-7")).isEqualTo("new-7");
                else assertThat(found).as("field-%d", i).containsEntry("field-" + i, "old-" + i);
            }
            assertThat(s.memberCount(KEY, HASH)).isEqualTo(fields);
            assertThat(s.fencedAtOpen()).isEmpty();
            assertThat(s.stats().undoSlotBytes()).isEqualTo(Files.size(copy.resolve(UndoSlots.FILE)));
            assertThat(s.stats().unguardedWrites()).isZero();
        }
    }

    @Test
    void aKillAfterARecordsNewBytesAndBeforeItsLockIsLetGoLosesNeitherValue() {
        Path dir = tempDir.resolve("live");
        Path copy = tempDir.resolve("killed");
        byte[] key = b("k");
        try (KvStore s = Stores.open(StructuresChild.config(dir))) {
            s.put(key, StoredValue.complete(TxId.of(1, 1), b("value-one")));
            assertThat(copyInsideWrite(
                            dir, copy, false, () -> s.put(key, StoredValue.complete(TxId.of(1, 2), b("value-two")))))
                    .isTrue();
        }
        try (KvStore s = Stores.open(StructuresChild.config(copy))) {
            StoredValue v = s.get(key);
            assertThat(v).as("the key after the kill").isNotNull();
            assertThat(new String(v.value())).isEqualTo("value-two");
        }
    }

    /** Opens the copy, with the undo slots the kill left or, if not {@code withUndo}, none. */
    private static KvStore openKilled(Path copy, boolean withUndo) {
        if (!withUndo) {
            try {
                Files.delete(copy.resolve(UndoSlots.FILE));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Stores.open(StructuresChild.config(copy));
    }

    @Test
    void aStringValueTornByAKillIsPutBackAsItWasFromItsUndoSlot() {
        byte[] key = b("k");
        Path copy = tornString(key);
        try (KvStore s = openKilled(copy, true)) {
            assertThat(new String(s.get(key).value())).as("the torn key").isEqualTo("value-one");
            assertThat(s.get(key).header().txId()).isEqualTo(TxId.of(1, 2));
            assertThat(s.fencedAtOpen()).isEmpty();
            assertThat(new String(s.get(b("other")).value())).isEqualTo("kept");
        }
    }

    @Test
    void aStringValueTornByAKillWithNoUndoSlotIsFencedNotServed() {
        byte[] key = b("k");
        Path copy = tornString(key);
        try (KvStore s = openKilled(copy, false)) {
            StoredValue v = s.get(key);
            assertThat(v).as("the torn key").isNotNull();
            assertThat(v.header().state()).as("the torn key").isEqualTo(RecordState.LOST);
            assertThat(s.fencedAtOpen()).containsOnlyKeys(new ByteKey(key));
            assertThat(s.fencedAtOpen().get(new ByteKey(key)).txId()).isEqualTo(TxId.of(1, 3));
            assertThat(new String(s.get(b("other")).value())).isEqualTo("kept");
        }
    }

    /** The files as a kill in the middle of {@code key}'s value's copy leaves them. */
    private Path tornString(byte[] key) {
        Path dir = tempDir.resolve("live");
        Path copy = tempDir.resolve("killed");
        try (KvStore s = Stores.open(StructuresChild.config(dir))) {
            s.put(b("other"), StoredValue.complete(TxId.of(1, 1), b("kept")));
            s.put(key, StoredValue.complete(TxId.of(1, 2), b("value-one")));
            assertThat(copyInsideWrite(
                            dir, copy, true, () -> s.put(key, StoredValue.complete(TxId.of(1, 3), b("value-two")))))
                    .isTrue();
        }
        return copy;
    }

    /** The files as a kill in the middle of the copy of a page of {@link #KEY} (300 fields) leaves them. */
    private Path tornPage() {
        Path dir = tempDir.resolve("live");
        Path copy = tempDir.resolve("killed");
        try (KvStore s = Stores.open(StructuresChild.config(dir))) {
            s.put(b("other"), StoredValue.complete(TxId.of(1, 1), b("kept")));
            for (int i = 0; i < 300; i++) putField(s, i, "old", i + 2);
            // a structure write writes its page first, then its record
            assertThat(copyInsideWrite(dir, copy, true, () -> putField(s, 7, "new", 1_000)))
                    .isTrue();
        }
        return copy;
    }

    @Test
    void aPageTornByAKillIsPutBackAsItWasFromItsUndoSlot() {
        Path copy = tornPage();
        try (KvStore s = openKilled(copy, true)) {
            Map<String, String> found = contents(s);
            assertThat(found).hasSize(300);
            for (int i = 0; i < 300; i++) assertThat(found).containsEntry("field-" + i, "old-" + i);
            assertThat(s.fencedAtOpen()).isEmpty();
            assertThat(new String(s.get(b("other")).value())).isEqualTo("kept");
        }
    }

    @Test
    void aPageTornByAKillWithNoUndoSlotFencesItsStructureNotServed() {
        Path copy = tornPage();
        try (KvStore s = openKilled(copy, false)) {
            assertThat(s.header(KEY).state()).as("the hash whose page was torn").isEqualTo(RecordState.LOST);
            assertThat(s.header(KEY).type()).isEqualTo(HASH);
            assertThat(s.fencedAtOpen()).containsOnlyKeys(new ByteKey(KEY));
            assertThat(new String(s.get(b("other")).value())).isEqualTo("kept");
        }
    }

    @Test
    void aRecordOrPageChronicleDroppedAtRecoveryIsPutBackFromItsUndoSlot() {
        Path path = tempDir.resolve("dropped");
        DataDir dir = DataDir.open(path);
        try (RecordMaps records = RecordMaps.open(StructuresChild.config(path), dir);
                MemberPages pages = MemberPages.open(StructuresChild.config(path), dir)) {
            byte[] key = b("k");
            Record before = Record.inline(StoredValue.complete(TxId.of(1, 1), b("value-one")));
            Bytes<?> stored = Bytes.allocateElasticOnHeap();
            RecordMarshaller.INSTANCE.write(stored, RecordMarshaller.INSTANCE.size(before), before);
            assertThat(records.restoreIfTorn(key, stored.toByteArray())).isTrue();
            assertThat(new String(records.get(key).value)).isEqualTo("value-one");
            assertThat(records.restoreIfTorn(key, stored.toByteArray()))
                    .as("whole: left as it is")
                    .isFalse();

            byte[] page = MemberPage.with(MemberPage.EMPTY, -1, b("member"), b("value"));
            Bytes<?> storedPage = Bytes.allocateElasticOnHeap();
            PageMarshaller.INSTANCE.write(storedPage, PageMarshaller.INSTANCE.size(page), page);
            pages.map();
            assertThat(pages.restoreIfTorn(MemberPages.pageKey(key, 0), storedPage.toByteArray()))
                    .isTrue();
            assertThat(pages.read(key, 0)).isEqualTo(page);
            assertThat(pages.restoreIfTorn(MemberPages.pageKey(key, 0), storedPage.toByteArray()))
                    .as("whole: left as it is")
                    .isFalse();
        } finally {
            dir.close(true);
        }
    }
}
