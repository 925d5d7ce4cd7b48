package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberCopy;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KvStore#copyMembers} (RENAME, COPY of a hash or set) on the Chronicle store and on {@link
 * HeapKvStore}: the destination gets the members whatever it held, the source is kept, removed or made
 * a tombstone, and room, pages and chunks are accounted for; a refusal writes nothing.
 */
class CopyMembersTest {
    private KvStore store;

    static Stream<String> stores() {
        return Stream.of("chronicle", "heap");
    }

    private static KvStore open(String kind, long maxBytes) {
        StoreConfig config =
                StoreConfig.builder().maxBytes(maxBytes).maxEntries(1_000).build();
        return kind.equals("heap")
                ? HeapKvStore.open(config)
                : KvStore.builder().config(config).open();
    }

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static RecordHeader hash(long seq, long expireAt) {
        return RecordHeader.structure(RecordState.COMPLETE, TxId.of(1, seq), ValueType.HASH, expireAt);
    }

    /** A hash of {@code n} fields at {@code key}, written at TxId (1, 1), expiring at 9,000. */
    private void fill(byte[] key, int n) {
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) ms.add(new Member(b("field-" + i), b("value-" + i)));
        store.putMembers(key, ValueType.HASH, ms, false, () -> TxId.of(1, 1));
        store.updateHeader(key, h -> h.withExpireAt(9_000));
    }

    private long pages() {
        return store instanceof ChronicleKvStore c ? c.memberPageCount() : 0;
    }

    @ParameterizedTest
    @MethodSource("stores")
    void renameMovesEveryMemberOntoAStringAndFreesTheSourceAndTheValue(String kind) {
        store = open(kind, 64L << 20);
        fill(b("src"), 500);
        store.put(b("dst"), StoredValue.complete(TxId.of(1, 2), new byte[3 * ValueChunks.CHUNK_BYTES]));
        long pagesBefore = pages();
        MemberCopy c = store.copyMembers(b("src"), b("dst"), (s, d) -> {
            assertThat(s.type()).isEqualTo(ValueType.HASH);
            assertThat(d.type()).isEqualTo(ValueType.STRING);
            return MemberCopy.removingSource(hash(3, s.expireAtMillis()));
        });
        assertThat(c.source()).isEqualTo(Write.remove());
        assertThat(store.header(b("src"))).isNull();
        assertThat(store.header(b("dst"))).isEqualTo(hash(3, 9_000));
        assertThat(store.memberCount(b("dst"), ValueType.HASH)).isEqualTo(500);
        assertThat(store.getMembers(b("dst"), ValueType.HASH, List.of(b("field-7"))))
                .containsExactly(b("value-7"));
        assertThat(pages()).as("pages moved, not doubled").isEqualTo(pagesBefore);
        assertThat(store.memberBytes(b("dst"), ValueType.HASH))
                .as("the hash's bytes, all the store holds")
                .isEqualTo(store.stats().valueBytes())
                .isGreaterThan(500 * 16);
        if (store instanceof ChronicleKvStore chronicle) {
            assertThat(chronicle.chunkCount()).as("the string's chunks").isZero();
        }
        assertThat(store.expiredKeys(9_001, 10)).extracting(String::new).containsExactly("dst");
        assertThat(store.stats().entries()).isEqualTo(1);
        store.delete(b("dst"));
        assertThat(store.stats().valueBytes()).isZero();
        assertThat(pages()).isZero();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void copyOverAStructureKeepsTheSourceAndReplacesTheDestinationsMembers(String kind) {
        store = open(kind, 64L << 20);
        fill(b("src"), 3);
        store.putMembers(
                b("dst"), ValueType.SET, List.of(Member.of(b("a")), Member.of(b("b"))), false, () -> TxId.of(1, 2));
        StoreStats one = store.stats();
        store.copyMembers(b("src"), b("dst"), (s, d) -> MemberCopy.keepingSource(hash(4, 0)));
        assertThat(store.header(b("src"))).isEqualTo(hash(1, 9_000));
        assertThat(store.header(b("dst"))).isEqualTo(hash(4, 0));
        assertThat(store.members(b("dst"), ValueType.HASH))
                .extracting(m -> new String(m.name()))
                .containsExactlyInAnyOrder("field-0", "field-1", "field-2");
        store.putMembers(
                b("dst"), ValueType.HASH, List.of(new Member(b("field-0"), b("changed"))), false, () -> TxId.of(1, 5));
        assertThat(store.getMembers(b("src"), ValueType.HASH, List.of(b("field-0"))))
                .as("the copy is independent")
                .containsExactly(b("value-0"));
        assertThat(store.stats().entries()).isEqualTo(one.entries());
        store.delete(b("src"));
        store.delete(b("dst"));
        assertThat(store.stats().valueBytes()).isZero();
        assertThat(pages()).isZero();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aBackupsRenameLeavesATombstoneAtItsTxId(String kind) {
        store = open(kind, 64L << 20);
        fill(b("src"), 2);
        StoredValue tombstone = StoredValue.tombstone(TxId.of(1, 7));
        store.copyMembers(b("src"), b("dst"), (s, d) -> new MemberCopy(hash(7, 9_000), Write.put(tombstone)));
        assertThat(store.header(b("src"))).isEqualTo(tombstone.header());
        assertThat(store.memberCount(b("dst"), ValueType.HASH)).isEqualTo(2);
        assertThat(store.stats().liveEntries()).isEqualTo(1);
        assertThatThrownBy(() -> new MemberCopy(hash(8, 0), Write.put(StoredValue.complete(TxId.of(1, 8), b("x")))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @MethodSource("stores")
    void refusalsWriteNothing(String kind) {
        store = open(kind, 64L << 10);
        fill(b("src"), 10);
        for (int i = 0; store.stats().valueBytes() < 36 << 10; i++) { // over half the store: no room for a copy
            store.putMembers(
                    b("src"),
                    ValueType.HASH,
                    List.of(new Member(b("more-" + i), new byte[100])),
                    false,
                    () -> TxId.of(1, 1));
        }
        store.put(b("str"), StoredValue.complete(TxId.of(1, 2), b("plain")));
        StoreStats before = store.stats();
        long pagesBefore = pages();
        assertThatThrownBy(() -> store.copyMembers(b("src"), b("dst"), (s, d) -> MemberCopy.keepingSource(hash(3, 0))))
                .isInstanceOf(StoreFullException.class);
        assertThatThrownBy(() -> store.copyMembers(b("str"), b("dst"), (s, d) -> MemberCopy.keepingSource(hash(3, 0))))
                .as("a string is not copied as a structure")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.copyMembers(b("src"), b("src"), (s, d) -> MemberCopy.keepingSource(hash(3, 0))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.copyMembers(b("src"), b("str"), (s, d) -> null)).isNull();
        assertThat(store.stats()).isEqualTo(before);
        assertThat(pages()).isEqualTo(pagesBefore);
        assertThat(store.header(b("dst"))).isNull();
        assertThat(store.header(b("str")).type()).isEqualTo(ValueType.STRING);
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aFlushedSourceIsAbsentToTheDecision(String kind) {
        store = open(kind, 64L << 20);
        fill(b("src"), 2);
        store.hideBefore(TxId.of(1, 5));
        RecordHeader[] seen = {hash(0, 0)};
        assertThat(store.copyMembers(b("src"), b("dst"), (s, d) -> {
                    seen[0] = s;
                    return null;
                }))
                .isNull();
        assertThat(seen[0]).isNull();
    }
}
