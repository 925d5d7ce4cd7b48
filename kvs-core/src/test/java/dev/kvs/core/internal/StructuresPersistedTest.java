package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structures in a data dir: they survive a reopen with their headers and room counted; a dir from
 * before types existed (strings only, no member pages file) opens and reads as before; and a full
 * store refuses a structure write with nothing written.
 */
class StructuresPersistedTest {
    @TempDir
    Path tempDir;

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static StoreConfig config(Path dir) {
        return StoreConfig.builder()
                .maxBytes(64L << 20)
                .maxEntries(10_000)
                .dataDir(dir)
                .build();
    }

    @Test
    void reopenKeepsStructuresTheirHeadersAndTheirRoom() {
        StoreConfig config = config(tempDir.resolve("reopen"));
        Map<String, byte[]> hash = new HashMap<>();
        StoreStats before;
        RecordHeader hashHeader;
        RecordHeader setHeader;
        try (KvStore s = Stores.open(config)) {
            List<Member> ms = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) { // many pages: splits happened before the close
                byte[] v = b("value-" + i + "-" + "x".repeat(i % 50));
                hash.put("field-" + i, v);
                ms.add(new Member(b("field-" + i), v));
            }
            s.putMembers(b("h"), ValueType.HASH, ms, false, () -> TxId.of(1, 1));
            s.updateHeader(b("h"), h -> h.withTxId(TxId.of(1, 2)).withExpireAt(9_000_000_000_000L));
            s.putMembers(
                    b("s"), ValueType.SET, List.of(Member.of(b("a")), Member.of(b("b"))), false, () -> TxId.of(1, 3));
            s.put(b("str"), StoredValue.complete(TxId.of(1, 4), b("plain")));
            hashHeader = s.header(b("h"));
            setHeader = s.header(b("s"));
            before = s.stats();
        }
        try (KvStore s = Stores.open(config)) {
            assertThat(s.header(b("h"))).isEqualTo(hashHeader);
            assertThat(hashHeader.type()).isEqualTo(ValueType.HASH);
            assertThat(hashHeader.txId()).isEqualTo(TxId.of(1, 2));
            assertThat(s.header(b("s"))).isEqualTo(setHeader);
            // all but the page directories: a cache of where pages lie in memory, found again after an open
            assertThat(s.stats())
                    .usingRecursiveComparison()
                    .ignoringFields("pageDirectorySlots")
                    .isEqualTo(before);
            assertThat(s.keysWithExpiry()).isEqualTo(1);
            assertThat(s.memberCount(b("h"), ValueType.HASH)).isEqualTo(2_000);
            Map<String, byte[]> read = new HashMap<>();
            for (Member m : s.members(b("h"), ValueType.HASH)) read.put(new String(m.name()), m.value());
            assertThat(read).containsOnlyKeys(hash.keySet());
            hash.forEach((f, v) -> assertThat(read.get(f)).isEqualTo(v));
            assertThat(s.getMembers(b("s"), ValueType.SET, List.of(b("a"), b("c"))))
                    .containsExactly(new byte[0], null);
            assertThat(s.get(b("str")).value()).isEqualTo(b("plain"));
            // the reopened pages are written on as before
            MemberWrite w = s.removeMembers(b("h"), ValueType.HASH, List.of(b("field-7")), true, () -> TxId.of(2, 1));
            assertThat(w.previous()).containsExactly(hash.get("field-7"));
            assertThat(s.memberCount(b("h"), ValueType.HASH)).isEqualTo(1_999);
            s.delete(b("h"));
            s.delete(b("s"));
            assertThat(((ChronicleKvStore) s).memberPageCount()).isZero();
        }
    }

    /**
     * A dir as the store before types wrote it: string records only, flag bits 4-6 clear, and no
     * member-pages.dat (the record layout is pinned byte by byte in {@link RecordMarshallerTest}; a dir
     * written by main at eac5335 was also opened by hand, see the commit).
     */
    @Test
    void aDataDirFromBeforeTypesOpensAndReadsItsStrings() throws Exception {
        StoreConfig config = config(tempDir.resolve("old"));
        StoredValue expiring = StoredValue.complete(TxId.of(1, 2), b("expiring"), 5_000);
        StoredValue chunked = StoredValue.complete(TxId.of(1, 3), new byte[3 * RecordMaps.INLINE_MAX]);
        StoreStats before;
        try (KvStore s = Stores.open(config)) {
            s.put(b("a"), StoredValue.complete(TxId.of(1, 1), b("one")));
            s.put(b("e"), expiring);
            s.put(b("c"), chunked);
            s.put(b("t"), StoredValue.tombstone(TxId.of(1, 4)));
            before = s.stats();
        }
        Path pagesFile = config.dataDir().orElseThrow().resolve("member-pages.dat");
        assertThat(pagesFile).as("a store of strings only makes no pages file").doesNotExist();
        try (KvStore s = Stores.open(config)) {
            assertThat(s.get(b("a"))).isEqualTo(StoredValue.complete(TxId.of(1, 1), b("one")));
            assertThat(s.get(b("e"))).isEqualTo(expiring);
            assertThat(s.get(b("c"))).isEqualTo(chunked);
            assertThat(s.header(b("t")).state()).isEqualTo(RecordState.TOMBSTONE);
            assertThat(s.header(b("a")).type()).isEqualTo(ValueType.STRING);
            // all but the page directories: a cache of where pages lie in memory, found again after an open
            assertThat(s.stats())
                    .usingRecursiveComparison()
                    .ignoringFields("pageDirectorySlots")
                    .isEqualTo(before);
            s.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, () -> TxId.of(2, 1));
            assertThat(s.getMembers(b("h"), ValueType.HASH, List.of(b("f")))).containsExactly(b("v"));
        }
        assertThat(pagesFile).exists();
        try (KvStore s = Stores.open(config)) {
            assertThat(s.getMembers(b("h"), ValueType.HASH, List.of(b("f")))).containsExactly(b("v"));
        }
    }

    @Test
    void aFullStoreRefusesAStructureWriteWithNothingWritten() {
        StoreConfig config =
                StoreConfig.builder().maxBytes(64 << 10).maxEntries(1_000).build();
        try (KvStore s = Stores.open(config)) {
            s.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f0"), b("v0"))), false, () -> TxId.of(1, 1));
            RecordHeader header = s.header(b("h"));
            int i = 0;
            try {
                while (true) s.put(b("fill" + i++), StoredValue.complete(TxId.of(1, 2), new byte[1000]));
            } catch (StoreFullException expected) {
                // full to within one value of 1000 bytes
            }
            StoreStats full = s.stats();
            List<Member> many = new ArrayList<>();
            for (int m = 1; m <= 20; m++) many.add(new Member(b("f" + m), new byte[100]));
            assertThatThrownBy(() -> s.putMembers(b("h"), ValueType.HASH, many, false, () -> TxId.of(9, 9)))
                    .isInstanceOf(StoreFullException.class);
            assertThatThrownBy(() -> s.putMembers(
                            b("new"), ValueType.SET, List.of(Member.of(new byte[2000])), false, () -> TxId.of(9, 9)))
                    .isInstanceOf(StoreFullException.class);
            assertThat(s.header(b("h"))).isEqualTo(header);
            assertThat(s.header(b("new"))).isNull();
            assertThat(s.members(b("h"), ValueType.HASH)).hasSize(1);
            assertThat(s.stats()).isEqualTo(full);
            // room freed by a delete is usable by a structure
            s.delete(b("fill0"));
            s.delete(b("fill1"));
            MemberWrite w = s.putMembers(
                    b("h"), ValueType.HASH, List.of(new Member(b("f1"), new byte[100])), false, () -> TxId.of(9, 10));
            assertThat(w.changed()).isEqualTo(1);
        }
    }

    /**
     * A put that changes nothing writes nothing, so it reserves no room (Structures' reservation is taken
     * by the first page write): on a full store it is answered, and takes none; one that changes is still
     * refused with nothing written.
     */
    @Test
    void aFullStoreAnswersAPutThatChangesNothing() {
        StoreConfig config =
                StoreConfig.builder().maxBytes(64 << 10).maxEntries(1_000).build();
        try (KvStore s = Stores.open(config)) {
            Member big = new Member(b("big"), new byte[4000]);
            s.putMembers(b("h"), ValueType.HASH, List.of(big), false, () -> TxId.of(1, 1));
            RecordHeader header = s.header(b("h"));
            int i = 0;
            try {
                while (true) s.put(b("fill" + i++), StoredValue.complete(TxId.of(1, 2), new byte[1000]));
            } catch (StoreFullException expected) {
                // full to within one value of 1000 bytes
            }
            StoreStats full = s.stats();
            MemberWrite same = s.putMembers(b("h"), ValueType.HASH, List.of(big), false, () -> {
                throw new AssertionError("a put that changes nothing takes no TxId");
            });
            assertThat(same.changed()).isZero();
            assertThat(s.stats()).isEqualTo(full);
            assertThatThrownBy(() -> s.putMembers(
                            b("h"),
                            ValueType.HASH,
                            List.of(new Member(b("big"), new byte[4001])),
                            false,
                            () -> TxId.of(9, 9)))
                    .isInstanceOf(StoreFullException.class);
            assertThat(s.header(b("h"))).isEqualTo(header);
            assertThat(s.members(b("h"), ValueType.HASH))
                    .singleElement()
                    .satisfies(m -> assertThat(m.value()).hasSize(4000));
            assertThat(s.stats()).isEqualTo(full);
        }
    }
}
