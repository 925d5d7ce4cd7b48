package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.StructureChange;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link KvStore#updateStructures} (SMOVE and the {@code *STORE} commands) on the Chronicle store and on
 * {@link HeapKvStore}: moves and replaces, TxIds only for what changed, refusals that write nothing,
 * and atomicity against concurrent readers of both keys.
 */
class StructureBatchTest {
    private static final ValueType SET = ValueType.SET;
    private static final Supplier<TxId> NO_TX = () -> {
        throw new AssertionError("no TxId may be taken");
    };

    private KvStore store;

    static Stream<String> stores() {
        return Stream.of("chronicle", "heap");
    }

    private void open(String kind, StoreConfig config) {
        store = kind.equals("heap")
                ? HeapKvStore.open(config)
                : KvStore.builder().config(config).open();
    }

    private void open(String kind) {
        open(kind, StoreConfig.defaults());
    }

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static Supplier<TxId> tx(long seq) {
        return () -> TxId.of(1, seq);
    }

    private void add(String key, long seq, String... members) {
        List<Member> ms = new ArrayList<>();
        for (String m : members) ms.add(Member.of(b(m)));
        store.putMembers(b(key), SET, ms, false, tx(seq));
    }

    private List<String> members(String key) {
        return store.members(b(key), SET).stream()
                .map(m -> new String(m.name()))
                .sorted()
                .toList();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aMoveRemovesFromOneSetAndAddsToTheOtherEachWithItsTxId(String kind) {
        open(kind);
        add("src", 1, "a", "b");
        List<MemberWrite> w = store.updateStructures(List.of(b("dst"), b("src")), view -> {
            assertThat(view.getMembers(1, SET, List.of(b("a"))).get(0)).isNotNull();
            assertThat(view.header(0)).isNull();
            return List.of(
                    StructureChange.put(SET, List.of(Member.of(b("a"))), tx(2)),
                    StructureChange.remove(SET, List.of(b("a")), tx(3)));
        });
        assertThat(w).extracting(MemberWrite::changed).containsExactly(1, 1);
        assertThat(members("src")).containsExactly("b");
        assertThat(members("dst")).containsExactly("a");
        assertThat(store.header(b("dst")).txId()).isEqualTo(TxId.of(1, 2));
        assertThat(store.header(b("src")).txId()).isEqualTo(TxId.of(1, 3));
        store.updateStructures(
                List.of(b("dst"), b("src")),
                view -> List.of(
                        StructureChange.put(SET, List.of(Member.of(b("b"))), tx(4)),
                        StructureChange.remove(SET, List.of(b("b")), tx(5))));
        assertThat(store.exists(b("src"))).as("its last member moved: deleted").isFalse();
        assertThat(store.header(b("src")))
                .isEqualTo(StoredValue.tombstone(TxId.of(1, 5)).header());
        assertThat(members("dst")).containsExactly("a", "b");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aReplaceMakesAnyKeyASetOfExactlyItsMembersWithoutExpiryReadingSourcesAsBefore(String kind) {
        open(kind);
        StoredValue x = StoredValue.complete(TxId.of(1, 1), b("x"));
        store.put(b("str"), new StoredValue(x.header().withExpireAt(9_999), x.value()));
        add("s", 2, "a", "b", "c");
        List<MemberWrite> w = store.updateStructures(List.of(b("str"), b("s")), view -> {
            List<Member> all = view.members(1, SET);
            assertThat(view.memberCount(1, SET)).isEqualTo(3);
            return List.of(StructureChange.replace(SET, all, tx(3)), StructureChange.keep());
        });
        assertThat(w.get(0).written()).isTrue();
        assertThat(w.get(0).changed()).isEqualTo(3);
        assertThat(w.get(1).written()).isFalse();
        assertThat(members("str")).containsExactly("a", "b", "c");
        RecordHeader h = store.header(b("str"));
        assertThat(h.type()).isEqualTo(SET);
        assertThat(h.txId()).isEqualTo(TxId.of(1, 3));
        assertThat(h.hasExpiry())
                .as("a replace clears the TTL, as Redis's setKey")
                .isFalse();
        // the source replaced by a part of itself (SINTERSTORE s s other)
        store.updateStructures(List.of(b("s"), b("s")), view -> {
            List<Member> all = view.members(1, SET);
            return List.of(StructureChange.replace(SET, all.subList(0, 1), tx(4)), StructureChange.keep());
        });
        assertThat(store.memberCount(b("s"), SET)).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aReplaceWithNoMembersDeletesALiveKeyAndLeavesAnAbsentOneWithoutATxId(String kind) {
        open(kind);
        add("s", 1, "a");
        MemberWrite absent = store.updateStructures(
                        List.of(b("none")), view -> List.of(StructureChange.replace(SET, List.of(), NO_TX)))
                .get(0);
        assertThat(absent.written()).isFalse();
        MemberWrite deleted = store.updateStructures(
                        List.of(b("s")), view -> List.of(StructureChange.replace(SET, List.of(), tx(2))))
                .get(0);
        assertThat(deleted.written()).isTrue();
        assertThat(store.header(b("s")))
                .isEqualTo(StoredValue.tombstone(TxId.of(1, 2)).header());
        store.delete(b("s"));
        assertThat(store.stats().valueBytes())
                .as("every page and byte given back")
                .isZero();
        assertThat(store.stats().entries()).isZero();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void refusalsWriteNothing(String kind) {
        open(kind, StoreConfig.builder().maxBytes(64 << 10).build());
        add("s", 1, "a");
        store.put(b("str"), StoredValue.complete(TxId.of(1, 2), b("v")));
        StoreStats before = store.stats();
        assertThatThrownBy(() -> store.updateStructures(List.of(b("s"), b("str")), view -> {
                    view.members(1, SET);
                    return List.of(StructureChange.keep(), StructureChange.keep());
                }))
                .isInstanceOf(WrongTypeException.class);
        assertThatThrownBy(() -> store.updateStructures(
                        List.of(b("s"), b("str")),
                        view -> List.of(StructureChange.remove(SET, List.of(b("a")), NO_TX))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 changes for 2 keys");
        assertThatThrownBy(() -> store.updateStructures(
                        List.of(b("s"), b("s")),
                        view -> List.of(
                                StructureChange.remove(SET, List.of(b("a")), NO_TX),
                                StructureChange.put(SET, List.of(Member.of(b("b"))), NO_TX))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than one change");
        List<Member> big = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) big.add(Member.of(b("member-" + i + "-".repeat(40))));
        assertThatThrownBy(() -> store.updateStructures(
                        List.of(b("str")), view -> List.of(StructureChange.replace(SET, big, NO_TX))))
                .isInstanceOf(StoreFullException.class);
        assertThat(store.get(b("str")).value()).isEqualTo(b("v"));
        assertThat(members("s")).containsExactly("a");
        assertThat(store.stats()).isEqualTo(before);
    }

    /**
     * Movers take members from one set to the other while readers count both sets in one step: the
     * total never changes, so no reader sees a member gone from one set and not yet in the other.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void readersOfBothSetsNeverSeeAMoveHalfDone(String kind) throws Exception {
        open(kind);
        int total = 50;
        String[] ms = new String[total];
        for (int i = 0; i < total; i++) ms[i] = "m" + i;
        add("left", 1, ms);
        AtomicLong txs = new AtomicLong(1);
        AtomicBoolean moving = new AtomicBoolean(true);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<byte[]> keys = List.of(b("left"), b("right"));
        try {
            List<Future<Long>> movers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int from = t;
                movers.add(pool.submit(() -> {
                    start.await();
                    long moved = 0;
                    for (int i = 0; i < 2_000; i++) {
                        byte[] m = b(ms[i % total]);
                        int to = 1 - from;
                        List<MemberWrite> w = store.updateStructures(keys, view -> {
                            if (view.getMembers(from, SET, List.of(m)).get(0) == null) {
                                return List.of(StructureChange.keep(), StructureChange.keep());
                            }
                            Supplier<TxId> next = () -> TxId.of(1, txs.incrementAndGet());
                            StructureChange put = StructureChange.put(SET, List.of(Member.of(m)), next);
                            StructureChange remove = StructureChange.remove(SET, List.of(m), next);
                            return from == 0 ? List.of(remove, put) : List.of(put, remove);
                        });
                        if (w.get(from).written()) moved++;
                    }
                    return moved;
                }));
            }
            Future<Long> reader = pool.submit(() -> {
                start.await();
                long reads = 0;
                while (moving.get()) {
                    long[] counts = new long[2];
                    store.updateStructures(keys, view -> {
                        counts[0] = view.memberCount(0, SET);
                        counts[1] = view.memberCount(1, SET);
                        return List.of(StructureChange.keep(), StructureChange.keep());
                    });
                    assertThat(counts[0] + counts[1]).isEqualTo(total);
                    reads++;
                }
                return reads;
            });
            start.countDown();
            long moved = 0;
            for (Future<Long> f : movers) moved += f.get(60, TimeUnit.SECONDS);
            moving.set(false);
            assertThat(reader.get(60, TimeUnit.SECONDS)).isPositive();
            assertThat(moved).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.memberCount(b("left"), SET) + store.memberCount(b("right"), SET))
                .isEqualTo(total);
    }
}
