package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A structure write cut short before any one of its page or record writes, as a crash (kill -9) leaves
 * the files: the next open finds every member either as before the write or as after it, none lost,
 * none twice, each where a lookup finds it, and the count of what a scan returns. The writes that split
 * or merge pages are the ones that move members between pages.
 */
class StructureCrashTest {
    private static final byte[] KEY = "h".getBytes();
    private static final ValueType HASH = ValueType.HASH;

    @TempDir
    Path tempDir;

    private int dirs;

    /** A crash: an Error, so no rollback or cleanup of the store runs after it. */
    private static final class Crash extends Error {
        Crash() {
            super("simulated crash", null, false, false);
        }
    }

    @AfterEach
    void unhook() {
        WriteFaults.hook = null;
    }

    private static StoreConfig config(Path dir) {
        return StoreConfig.builder()
                .maxBytes(4L << 20)
                .maxEntries(1_000)
                .dataDir(dir)
                .build();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static Member field(int i, String version) {
        return new Member(b("field-" + i), b(version + "-" + i));
    }

    private static void put(KvStore s, List<Member> members, long seq) {
        s.putMembers(KEY, HASH, members, false, () -> TxId.of(1, seq));
    }

    private static Map<String, String> contents(KvStore s) {
        Map<String, String> out = new HashMap<>();
        for (Member m : s.members(KEY, HASH)) {
            String previous = out.put(new String(m.name()), new String(m.value()));
            assertThat(previous)
                    .as("member %s returned twice", new String(m.name()))
                    .isNull();
        }
        return out;
    }

    /**
     * Runs {@code setup} then {@code write} in a fresh dir, cut short just before the write's {@code
     * cut}-th page or record write (0: not cut), and returns the dir; {@code writes} counts the write's
     * writes.
     */
    private Path run(Consumer<KvStore> setup, Consumer<KvStore> write, int cut, AtomicInteger writes) {
        Path dir = tempDir.resolve("d" + dirs++);
        ChronicleKvStore s = (ChronicleKvStore) Stores.open(config(dir));
        setup.accept(s);
        AtomicInteger seen = new AtomicInteger();
        WriteFaults.hook = () -> {
            if (seen.incrementAndGet() == cut) throw new Crash();
        };
        try {
            write.accept(s);
            assertThat(cut)
                    .as("the write made %d writes, fewer than %d", seen.get(), cut)
                    .isZero();
        } catch (Crash expected) {
            // the files are as the crash left them
        } finally {
            WriteFaults.hook = null;
        }
        writes.set(seen.get());
        if (cut == 0) s.close();
        else s.closeAsCrashed();
        return dir;
    }

    private static Map<String, String> read(Path dir) {
        try (KvStore s = Stores.open(config(dir))) {
            return contents(s);
        } finally {
            delete(dir);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Cuts {@code write} short before each of its writes in turn and checks what the next open finds
     * against the structure before and after it. Returns how many writes it made.
     */
    private int checkEveryCut(Consumer<KvStore> setup, Consumer<KvStore> write) {
        AtomicInteger writes = new AtomicInteger();
        Map<String, String> before = read(run(setup, s -> {}, 0, writes));
        Map<String, String> after = read(run(setup, write, 0, writes));
        int total = writes.get();
        assertThat(total).isPositive();
        for (int cut = 1; cut <= total; cut++) {
            Path dir = run(setup, write, cut, new AtomicInteger());
            try (KvStore s = Stores.open(config(dir))) {
                Map<String, String> found = contents(s);
                String at = "cut before write " + cut + " of " + total;
                assertThat(s.memberCount(KEY, HASH)).as(at).isEqualTo(found.size());
                TreeSet<String> names = new TreeSet<>(before.keySet());
                names.addAll(after.keySet());
                assertThat(names).as(at).containsAll(found.keySet());
                for (String name : names) {
                    String value = found.get(name);
                    assertThat(value == null ? "(absent)" : value)
                            .as("%s: %s", at, name)
                            .isIn(before.getOrDefault(name, "(absent)"), after.getOrDefault(name, "(absent)"));
                    List<byte[]> looked = s.getMembers(KEY, HASH, List.of(b(name)));
                    assertThat(looked.get(0) == null ? null : new String(looked.get(0)))
                            .as("%s: lookup of %s", at, name)
                            .isEqualTo(value);
                }
                // the fingerprint a resync compares is that of the members found, not of the record's TxId:
                // a write cut short after some of its members is told from the structure before it
                assertThat(s.membersFingerprint(KEY)).as(at).isEqualTo(fingerprintOf(found));
                // and the structure is written on as usual
                put(s, List.of(new Member(b("later"), b("v"))), 99);
                assertThat(s.memberCount(KEY, HASH))
                        .as(at)
                        .isEqualTo(found.size() + (found.containsKey("later") ? 0 : 1));
                assertThat(contents(s)).as(at).containsEntry("later", "v");
            }
            delete(dir); // a store's files take real disk (Chronicle allocates them)
        }
        return total;
    }

    /** The fingerprint of a hash of exactly {@code members}, written at once into a store in memory. */
    private static int fingerprintOf(Map<String, String> members) {
        if (members.isEmpty()) return 0;
        try (KvStore s = Stores.open(StoreConfig.builder().maxBytes(4 << 20).build())) {
            List<Member> ms = new ArrayList<>();
            members.forEach((name, value) -> ms.add(new Member(b(name), b(value))));
            put(s, ms, 1);
            return s.membersFingerprint(KEY);
        }
    }

    /** The first i for which putting fields 0..i one by one makes {@code i}'s put split a page. */
    private int firstSplittingPut() {
        try (ChronicleKvStore s = (ChronicleKvStore) Stores.open(config(tempDir.resolve("probe")))) {
            for (int i = 0; ; i++) {
                int pages = s.pageCountOf(KEY);
                put(s, List.of(field(i, "old")), i + 1);
                if (pages > 0 && s.pageCountOf(KEY) > pages) return i;
            }
        }
    }

    @Test
    void aPutThatSplitsAPageLosesNoMemberWhereverItIsCut() {
        int split = firstSplittingPut();
        Consumer<KvStore> setup = s -> {
            for (int i = 0; i < split; i++) put(s, List.of(field(i, "old")), i + 1);
        };
        int writes = checkEveryCut(setup, s -> put(s, List.of(field(split, "new")), 1_000));
        // the member's page, the page split off, the record, then the split page settled
        assertThat(writes).isEqualTo(4);
    }

    @Test
    void aWriteOfManyMembersThatSplitsSeveralTimesLosesNoneWhereverItIsCut() {
        Consumer<KvStore> setup = s -> {
            for (int i = 0; i < 40; i++) put(s, List.of(field(i, "old")), i + 1);
        };
        List<Member> members = new ArrayList<>();
        for (int i = 30; i < 130; i++) members.add(field(i, "new")); // 10 changed, 90 added
        AtomicInteger pagesBefore = new AtomicInteger();
        AtomicInteger pagesAfter = new AtomicInteger();
        checkEveryCut(setup, s -> {
            pagesBefore.set(((ChronicleKvStore) s).pageCountOf(KEY));
            put(s, members, 1_000);
            pagesAfter.set(((ChronicleKvStore) s).pageCountOf(KEY));
        });
        assertThat(pagesAfter.get()).isGreaterThan(pagesBefore.get() + 1);
    }

    @Test
    void aRemoveThatMergesPagesLosesNoMemberWhereverItIsCut() {
        Consumer<KvStore> grow = s -> {
            for (int i = 0; i < 200; i++) put(s, List.of(field(i, "old")), i + 1);
        };
        // remove members one by one until a removal merges two pages
        int merging;
        try (ChronicleKvStore s = (ChronicleKvStore) Stores.open(config(tempDir.resolve("probe")))) {
            grow.accept(s);
            for (merging = 0; ; merging++) {
                int pages = s.pageCountOf(KEY);
                s.removeMembers(KEY, HASH, List.of(b("field-" + merging)), false, () -> TxId.of(2, 1));
                if (s.pageCountOf(KEY) < pages) break;
            }
        }
        int last = merging;
        Consumer<KvStore> setup = grow.andThen(s -> {
            for (int i = 0; i < last; i++) {
                s.removeMembers(KEY, HASH, List.of(b("field-" + i)), false, () -> TxId.of(2, 1));
            }
        });
        int writes = checkEveryCut(
                setup, s -> s.removeMembers(KEY, HASH, List.of(b("field-" + last)), false, () -> TxId.of(3, 1)));
        // the member's page, the parent page merged into, the record, then the last page removed
        assertThat(writes).isEqualTo(4);
    }

    @Test
    void aPopOfManyMembersThatMergesPagesLosesNoneWhereverItIsCut() {
        Consumer<KvStore> setup = s -> {
            for (int i = 0; i < 200; i++) put(s, List.of(field(i, "old")), i + 1);
        };
        AtomicInteger pagesBefore = new AtomicInteger();
        AtomicInteger pagesAfter = new AtomicInteger();
        checkEveryCut(setup, s -> {
            pagesBefore.set(((ChronicleKvStore) s).pageCountOf(KEY));
            s.popMembers(KEY, HASH, 150, new Random(7), () -> TxId.of(3, 1));
            pagesAfter.set(((ChronicleKvStore) s).pageCountOf(KEY));
        });
        assertThat(pagesAfter.get()).isLessThan(pagesBefore.get() - 1);
    }

    /**
     * Not a crash: a write whose page or record write fails, whichever, is undone, and its undo, which
     * removes what it added, merges no page its splits left copies in.
     */
    @Test
    void aWriteWhosePageOrRecordWriteFailsIsUndoneWhole() {
        Consumer<KvStore> setup = s -> {
            for (int i = 0; i < 40; i++) put(s, List.of(field(i, "old")), i + 1);
        };
        List<Member> members = new ArrayList<>();
        for (int i = 30; i < 230; i++) members.add(field(i, "new"));
        AtomicInteger writes = new AtomicInteger();
        Map<String, String> before = read(run(setup, s -> {}, 0, writes));
        Map<String, String> after = read(run(setup, s -> put(s, members, 1_000), 0, writes));
        int total = writes.get();
        int failed = 0;
        for (int cut = 1; cut <= total; cut++) {
            Path dir = tempDir.resolve("d" + dirs++);
            Map<String, String> expected;
            try (ChronicleKvStore s = (ChronicleKvStore) Stores.open(config(dir))) {
                setup.accept(s);
                AtomicInteger seen = new AtomicInteger();
                int at = cut;
                WriteFaults.hook = () -> {
                    if (seen.incrementAndGet() == at) throw new StorageException("refused (test)");
                };
                try {
                    put(s, members, 1_000);
                    // a split, or the settling of a split after the record, may fail without failing the write
                    expected = after;
                } catch (StorageException e) {
                    expected = before;
                    failed++;
                } finally {
                    WriteFaults.hook = null;
                }
                assertThat(contents(s)).as("write %d of %d failed", cut, total).isEqualTo(expected);
                assertThat(s.memberCount(KEY, HASH)).isEqualTo(expected.size());
            }
            assertThat(read(dir))
                    .as("reopened after write %d of %d failed", cut, total)
                    .isEqualTo(expected);
        }
        assertThat(failed).as("writes whose failure failed the put").isGreaterThan(total / 2);
    }

    @Test
    void aStructureWhoseRecordIsGoneLeavesNoPagesAfterACrash() {
        Path dir = tempDir.resolve("orphans");
        ChronicleKvStore s = (ChronicleKvStore) Stores.open(config(dir));
        put(s, List.of(field(1, "kept")), 1);
        List<Member> many = new ArrayList<>();
        for (int i = 0; i < 100; i++) many.add(field(i, "new"));
        // a new structure cut short before its record: its pages are written, no record covers them
        WriteFaults.hook = () -> {
            boolean record = StackWalker.getInstance()
                    .walk(frames -> frames.anyMatch(f -> f.getClassName().equals(RecordMaps.class.getName())));
            if (record) throw new Crash();
        };
        assertThatThrownBy(() -> s.putMembers(b("fresh"), HASH, many, false, () -> TxId.of(1, 2)))
                .isInstanceOf(Crash.class);
        WriteFaults.hook = null;
        assertThat(s.memberPageCount()).isGreaterThan(1);
        s.closeAsCrashed();
        try (ChronicleKvStore again = (ChronicleKvStore) Stores.open(config(dir))) {
            assertThat(again.memberPageCount()).isEqualTo(1);
            assertThat(again.header(b("fresh"))).isNull();
            assertThat(contents(again)).containsOnlyKeys("field-1");
        }
    }
}
