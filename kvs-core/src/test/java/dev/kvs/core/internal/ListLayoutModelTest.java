package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.ListLayout;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StructureChange;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random histories of list operations ({@link ListLayout} through {@link
 * KvStore#updateStructures}) against an {@link ArrayList} model per key, on the Chronicle store and on
 * {@link HeapKvStore}: after every step the list reads as the model (length, every element, ranges),
 * a write takes exactly one TxId, an emptied list is deleted, and the canonical image holds the
 * elements in order and rebuilds an equal list in another store. Replay with {@code -Dkvs.test.seed=}.
 */
class ListLayoutModelTest {
    private static final int KEYS = 6;

    private final List<KvStore> opened = new ArrayList<>();
    private final AtomicLong seq = new AtomicLong();

    static Stream<String> stores() {
        return Stream.of("chronicle", "heap");
    }

    private KvStore open(String kind) {
        StoreConfig config =
                StoreConfig.builder().maxBytes(64L << 20).maxEntries(10_000).build();
        KvStore s = kind.equals("heap")
                ? HeapKvStore.open(config)
                : KvStore.builder().config(config).open();
        opened.add(s);
        return s;
    }

    @AfterEach
    void close() {
        opened.forEach(KvStore::close);
    }

    @ParameterizedTest
    @MethodSource("stores")
    void randomHistoriesMatchAnArrayListModel(String kind) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("randomHistoriesMatchAnArrayListModel " + kind + " seed " + seed);
        Random r = new Random(seed);
        KvStore store = open(kind);
        KvStore replica = open(kind);
        List<List<String>> model = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) model.add(new ArrayList<>());
        for (int step = 0; step < 4_000; step++) {
            int k = r.nextInt(KEYS);
            try {
                step(store, r, key(k), model.get(k));
                check(store, key(k), model.get(k));
                if (step % 50 == 0) checkImage(store, replica, key(k), model.get(k));
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", step " + step + ", key " + k + ": " + e.getMessage(), e);
            }
        }
        for (int k = 0; k < KEYS; k++) checkImage(store, replica, key(k), model.get(k));
    }

    /** One random operation on the list at {@code key} and on its model. */
    private void step(KvStore store, Random r, byte[] key, List<String> m) {
        int op = r.nextInt(7);
        long before = seq.get();
        boolean changes;
        switch (op) {
            case 0, 1 -> { // LPUSH / RPUSH of 1-3 values
                boolean left = op == 0;
                List<byte[]> values = new ArrayList<>();
                for (int i = 1 + r.nextInt(3); i > 0; i--) {
                    String v = "v" + r.nextInt(1000);
                    values.add(b(v));
                    if (left) m.add(0, v);
                    else m.add(v);
                }
                write(store, key, (l, tx) -> l.push(left, values, tx));
                changes = true;
            }
            case 2 -> { // pop 1-4 from either end
                long n = Math.min(m.size(), 1 + r.nextInt(4));
                boolean left = r.nextBoolean();
                for (long i = 0; i < n; i++) m.remove(left ? 0 : m.size() - 1);
                write(store, key, (l, tx) -> left ? l.trimEnds(n, 0, tx) : l.trimEnds(0, n, tx));
                changes = n > 0;
            }
            case 3 -> { // LSET
                if (m.isEmpty()) return;
                int i = r.nextInt(m.size());
                String v = "s" + r.nextInt(50);
                changes = !m.get(i).equals(v);
                m.set(i, v);
                write(store, key, (l, tx) -> l.set(i, b(v), tx));
            }
            case 4 -> { // LTRIM to a random window
                int left = r.nextInt(m.size() + 1);
                int right = r.nextInt(m.size() - left + 1);
                int l0 = left, r0 = right;
                changes = l0 + r0 > 0;
                for (int i = 0; i < r0; i++) m.remove(m.size() - 1);
                for (int i = 0; i < l0; i++) m.remove(0);
                write(store, key, (l, tx) -> l.trimEnds(l0, r0, tx));
            }
            default -> { // LINSERT / LREM: a rewrite
                List<String> next = new ArrayList<>(m);
                if (r.nextBoolean() || next.isEmpty()) next.add(r.nextInt(next.size() + 1), "i" + r.nextInt(100));
                else next.removeIf(v -> v.hashCode() % 3 == 0);
                changes = !next.equals(m);
                m.clear();
                m.addAll(next);
                List<byte[]> bytes = new ArrayList<>();
                for (String v : next) bytes.add(b(v));
                write(store, key, (l, tx) -> l.rewrite(bytes, tx));
            }
        }
        assertThat(seq.get() - before).as("TxIds taken by op " + op).isEqualTo(changes ? 1 : 0);
    }

    private void write(KvStore store, byte[] key, BiFunction<ListLayout, Supplier<TxId>, StructureChange> fn) {
        Supplier<TxId> tx = () -> TxId.of(1, seq.incrementAndGet());
        List<MemberWrite> w = store.updateStructures(List.of(key), v -> List.of(fn.apply(ListLayout.of(v, 0), tx)));
        assertThat(w).hasSize(1);
    }

    private static <T> T read(KvStore store, byte[] key, Function<ListLayout, T> fn) {
        List<T> out = new ArrayList<>(1);
        store.updateStructures(List.of(key), v -> {
            out.add(fn.apply(ListLayout.of(v, 0)));
            return List.of(StructureChange.keep());
        });
        return out.get(0);
    }

    private static void check(KvStore store, byte[] key, List<String> m) {
        assertThat(read(store, key, ListLayout::size)).as("LLEN").isEqualTo(m.size());
        assertThat(strings(read(store, key, ListLayout::all))).as("elements").isEqualTo(m);
        if (m.isEmpty()) {
            assertThat(store.header(key) == null || store.header(key).state() == RecordState.TOMBSTONE)
                    .as("an emptied list is deleted: " + store.header(key))
                    .isTrue();
            return;
        }
        assertThat(store.header(key).type()).isEqualTo(ValueType.LIST);
        assertThat(store.memberCount(key, ValueType.LIST))
                .as("elements and bounds")
                .isEqualTo(m.size() + 1);
        int i = m.size() / 2;
        assertThat(new String(read(store, key, l -> l.get(i)), StandardCharsets.UTF_8))
                .isEqualTo(m.get(i));
        assertThat((Object) read(store, key, l -> l.get(m.size()))).isNull();
        assertThat(strings(read(store, key, l -> l.range(1, 3))))
                .isEqualTo(m.subList(Math.min(1, m.size()), Math.min(3, m.size())));
    }

    /** The image lists the bounds, then the elements in order; another store rebuilds an equal list. */
    private static void checkImage(KvStore store, KvStore replica, byte[] key, List<String> m) {
        MembersImage image = store.image(key);
        if (m.isEmpty()) {
            assertThat(image).isNull();
            return;
        }
        List<byte[][]> members = StructureImage.decode(image.image());
        assertThat(members.get(0)[0]).as("the bounds first").isEmpty();
        List<String> inImage = new ArrayList<>();
        for (byte[][] e : members.subList(1, members.size())) inImage.add(new String(e[1], StandardCharsets.UTF_8));
        assertThat(inImage).as("elements in the image, in order").isEqualTo(m);
        assertThat(replica.putImage(key, image.image(), h -> image.header())).isTrue();
        assertThat(strings(read(replica, key, ListLayout::all))).isEqualTo(m);
        assertThat(replica.image(key).image()).isEqualTo(image.image());
    }

    @Test
    void aListIsNoOtherTypeAndAPushOnAStringIsRefused() {
        KvStore store = open("chronicle");
        store.putMembers(
                key(0),
                ValueType.HASH,
                List.of(new dev.kvs.core.Member(b("f"), b("v"))),
                false,
                () -> TxId.of(1, seq.incrementAndGet()));
        assertThatThrownBy(() -> read(store, key(0), ListLayout::size)).isInstanceOf(WrongTypeException.class);
        write(store, key(1), (l, tx) -> l.push(false, List.of(b("a")), tx));
        assertThatThrownBy(() -> store.members(key(1), ValueType.SET)).isInstanceOf(WrongTypeException.class);
        assertThat(strings(read(store, key(1), ListLayout::all))).containsExactly("a");
    }

    private static List<String> strings(List<byte[]> values) {
        List<String> out = new ArrayList<>(values.size());
        for (byte[] v : values) out.add(new String(v, StandardCharsets.UTF_8));
        return out;
    }

    private static byte[] key(int k) {
        return b("list" + k);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
