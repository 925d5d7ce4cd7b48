package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberCopy;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random histories of hash and set operations through {@link KvStore}, mixed with strings on
 * the same keys, against a {@link HashMap} model: every reply (added and removed counts, previous
 * values, WRONGTYPE), every key's type, TxId and expiry, counts, scans and random picks, and at the end
 * the store's byte count back to zero once every key is deleted. Run on the Chronicle store and on
 * {@link HeapKvStore}. Replay with {@code -Dkvs.test.seed=}.
 */
class StructuresModelTest {
    private static final int KEYS = 12;
    /** Expiries are drawn around 1,500 or 5,500: the ones before this have passed. */
    private static final long NOW = 3_000;

    /** A key's state in the model: a string value, or a structure's members; its expiry and TxId. */
    private static final class Entry {
        ValueType type;
        byte[] string;
        final Map<ByteBuffer, byte[]> members = new HashMap<>();
        long expireAt;
        TxId txId;
    }

    private KvStore store;
    private final Map<Integer, Entry> model = new HashMap<>();
    private long seq;

    static Stream<String> stores() {
        return Stream.of("chronicle", "heap");
    }

    private static KvStore open(String kind) {
        StoreConfig config =
                StoreConfig.builder().maxBytes(64L << 20).maxEntries(10_000).build();
        return kind.equals("heap")
                ? HeapKvStore.open(config)
                : KvStore.builder().config(config).open();
    }

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void randomHistoriesMatchAHashMapModel(String kind) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("randomHistoriesMatchAHashMapModel " + kind + " seed " + seed);
        Random r = new Random(seed);
        store = open(kind);
        for (int step = 0; step < 6_000; step++) {
            int k = r.nextInt(KEYS);
            try {
                step(r, k);
                check(k);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ", step " + step + ", key " + k + ": " + e.getMessage(), e);
            }
        }
        for (int k = 0; k < KEYS; k++) check(k);
        assertThat(new TreeSet<>(keysOf(store.expiredKeys(NOW, 1_000)))).isEqualTo(expiredInModel());
        for (int k = 0; k < KEYS; k++) store.delete(key(k));
        assertThat(store.stats().valueBytes())
                .as("value bytes once every key is deleted")
                .isZero();
        assertThat(store.stats().entries()).isZero();
        if (store instanceof ChronicleKvStore chronicle) {
            assertThat(chronicle.memberPageCount()).as("member pages left").isZero();
        }
    }

    /** FLUSHDB's two steps on structures: hidden at once, and the sweep frees their members and room. */
    @ParameterizedTest
    @MethodSource("stores")
    void aFlushHidesStructuresAtOnceAndItsSweepFreesTheirMembers(String kind) {
        store = open(kind);
        for (int k = 0; k < 20; k++) {
            List<Member> ms = new ArrayList<>();
            for (int i = 0; i < 50; i++) ms.add(new Member(("f" + i).getBytes(), new byte[40]));
            store.putMembers(
                    key(k),
                    k % 2 == 0 ? ValueType.HASH : ValueType.SET,
                    k % 2 == 0 ? ms : List.of(Member.of(b("m"))),
                    false,
                    this::nextTx);
        }
        TxId flush = nextTx();
        store.putMembers(key(99), ValueType.HASH, List.of(new Member(b("after"), b("v"))), false, this::nextTx);
        store.hideBefore(flush);
        assertThat(store.header(key(0))).isNull();
        assertThat(store.memberCount(key(0), ValueType.HASH)).isZero();
        // the member read above may already have removed key 0's hidden record (the Chronicle store does)
        assertThat(store.removeBefore(flush)).isBetween(19L, 20L);
        assertThat(store.stats().entries()).isEqualTo(1);
        assertThat(store.stats().valueBytes()).isEqualTo(store.memberBytes(key(99), ValueType.HASH));
        if (store instanceof ChronicleKvStore chronicle) {
            assertThat(chronicle.memberPageCount())
                    .as("only the later hash's page")
                    .isEqualTo(1);
        }
    }

    /**
     * Writers of one hash from several threads: every write is under the key's lock, so none is lost
     * (the count and a counter every writer increments are exact) and TxIds are taken one per write.
     */
    @ParameterizedTest
    @MethodSource("stores")
    void concurrentWritersOfOneHashLoseNothing(String kind) throws Exception {
        store = open(kind);
        int threads = 4;
        int each = 500;
        java.util.concurrent.atomic.AtomicLong txs = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        byte[] field = ("t" + id + "-" + i).getBytes();
                        store.putMembers(
                                b("h"),
                                ValueType.HASH,
                                List.of(new Member(field, field)),
                                false,
                                () -> TxId.of(1, txs.incrementAndGet()));
                        store.updateMember(
                                b("h"),
                                ValueType.HASH,
                                b("counter"),
                                StructuresModelTest::incr,
                                () -> TxId.of(1, txs.incrementAndGet()));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (java.util.concurrent.Future<?> f : done) f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.memberCount(b("h"), ValueType.HASH)).isEqualTo(threads * each + 1);
        assertThat(store.getMembers(b("h"), ValueType.HASH, List.of(b("counter")))
                        .get(0))
                .isEqualTo(Long.toString(threads * each).getBytes());
        assertThat(txs.get()).isEqualTo(2L * threads * each);
        assertThat(store.header(b("h")).txId().seq()).isPositive();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private void step(Random r, int k) {
        byte[] key = key(k);
        Entry e = model.get(k);
        int op = r.nextInt(100);
        if (op < 8) { // SET: replaces any type, clears the expiry
            byte[] v = bytes(r, 20);
            TxId tx = nextTx();
            store.put(key, StoredValue.complete(tx, v));
            Entry n = new Entry();
            n.type = ValueType.STRING;
            n.string = v;
            n.txId = tx;
            model.put(k, n);
        } else if (op < 38) { // HSET / SADD of 1..4 members
            ValueType type = r.nextBoolean() ? ValueType.HASH : ValueType.SET;
            List<Member> ms = new ArrayList<>();
            for (int i = r.nextInt(4) + 1; i > 0; i--) {
                byte[] name = name(r);
                ms.add(
                        type == ValueType.HASH
                                ? new Member(name, bytes(r, r.nextInt(8) == 0 ? 3000 : 12))
                                : Member.of(name));
            }
            if (e != null && e.type != type) {
                assertThatThrownBy(() -> store.putMembers(key, type, ms, true, this::nextTx))
                        .isInstanceOf(WrongTypeException.class);
                return;
            }
            MemberWrite w = store.putMembers(key, type, ms, true, this::nextTx);
            Entry n = e == null ? newStructure(type) : e;
            int added = 0;
            boolean changed = false;
            for (int i = 0; i < ms.size(); i++) {
                byte[] was = n.members.put(
                        ByteBuffer.wrap(ms.get(i).name()), ms.get(i).value());
                assertThat(w.previous().get(i)).isEqualTo(was);
                if (was == null) added++;
                if (was == null || !java.util.Arrays.equals(was, ms.get(i).value())) changed = true;
            }
            assertThat(w.changed()).as("added").isEqualTo(added);
            assertThat(w.written()).as("written").isEqualTo(changed);
            if (changed) n.txId = w.header().txId();
            model.put(k, n);
        } else if (op < 55) { // HDEL / SREM
            ValueType type = r.nextBoolean() ? ValueType.HASH : ValueType.SET;
            List<byte[]> names = new ArrayList<>();
            for (int i = r.nextInt(3) + 1; i > 0; i--) names.add(name(r));
            if (e != null && e.type != type) {
                assertThatThrownBy(() -> store.removeMembers(key, type, names, false, this::nextTx))
                        .isInstanceOf(WrongTypeException.class);
                return;
            }
            MemberWrite w = store.removeMembers(key, type, names, true, this::nextTx);
            int removed = 0;
            for (int i = 0; i < names.size(); i++) {
                byte[] was = e == null ? null : e.members.remove(ByteBuffer.wrap(names.get(i)));
                assertThat(w.previous().get(i)).isEqualTo(was);
                if (was != null) removed++;
            }
            assertThat(w.changed()).as("removed").isEqualTo(removed);
            if (removed > 0) e.txId = w.header().txId();
            if (e != null && e.members.isEmpty()) model.remove(k);
        } else if (op < 58) { // SPOP
            ValueType type = r.nextBoolean() ? ValueType.HASH : ValueType.SET;
            if (e != null && e.type != type) {
                assertThatThrownBy(() -> store.popMembers(key, type, 1, r, this::nextTx))
                        .isInstanceOf(WrongTypeException.class);
                return;
            }
            int count = r.nextInt(4);
            List<Member> popped = store.popMembers(key, type, count, r, this::nextTx);
            assertThat(popped).hasSize(e == null ? 0 : Math.min(count, e.members.size()));
            for (Member m : popped) {
                assertThat(e.members.remove(ByteBuffer.wrap(m.name())))
                        .as("popped")
                        .isEqualTo(m.value());
            }
            if (!popped.isEmpty()) e.txId = TxId.of(1, seq);
            if (e != null && e.members.isEmpty()) model.remove(k);
        } else if (op < 62) { // HINCRBY
            if (e != null && e.type != ValueType.HASH) {
                assertThatThrownBy(() -> store.updateMember(key, ValueType.HASH, name(r), v -> v, this::nextTx))
                        .isInstanceOf(WrongTypeException.class);
                return;
            }
            byte[] name = name(r);
            MemberWrite w = store.updateMember(key, ValueType.HASH, name, v -> incr(v), this::nextTx);
            Entry n = e == null ? newStructure(ValueType.HASH) : e;
            byte[] was = n.members.put(ByteBuffer.wrap(name), incr(n.members.get(ByteBuffer.wrap(name))));
            assertThat(w.previous().get(0)).isEqualTo(was);
            n.txId = w.header().txId();
            model.put(k, n);
        } else if (op < 68) { // DEL
            boolean held = store.header(key) != null;
            assertThat(store.delete(key)).isEqualTo(held);
            model.remove(k);
        } else if (op < 76) { // EXPIRE / PERSIST on any type
            long at = r.nextInt(4) == 0 ? RecordHeader.NO_EXPIRY : (r.nextBoolean() ? 1_000 : 5_000) + r.nextInt(1_000);
            TxId tx = nextTx();
            RecordHeader h = store.updateHeader(
                    key,
                    old -> old == null || old.state() == RecordState.TOMBSTONE
                            ? null
                            : old.withTxId(tx).withExpireAt(at));
            if (e != null) {
                e.expireAt = at;
                e.txId = tx;
                assertThat(h.txId()).isEqualTo(tx);
            }
        } else if (op < 84) { // HMGET / SMISMEMBER with WRONGTYPE
            ValueType type = r.nextBoolean() ? ValueType.HASH : ValueType.SET;
            List<byte[]> names = List.of(name(r), name(r));
            if (e != null && e.type != type) {
                assertThatThrownBy(() -> store.getMembers(key, type, names)).isInstanceOf(WrongTypeException.class);
                return;
            }
            List<byte[]> got = store.getMembers(key, type, names);
            for (int i = 0; i < names.size(); i++) {
                assertThat(got.get(i)).isEqualTo(e == null ? null : e.members.get(ByteBuffer.wrap(names.get(i))));
            }
        } else if (op < 92) { // a whole scan, and random picks
            if (e == null || e.type == ValueType.STRING) return;
            Set<ByteBuffer> seen = new HashSet<>();
            long cursor = 0;
            do {
                cursor = store.scanMembers(key, e.type, cursor, 1 + r.nextInt(5), (n, v) -> {
                    assertThat(v).isEqualTo(e.members.get(ByteBuffer.wrap(n)));
                    seen.add(ByteBuffer.wrap(n));
                });
            } while (cursor != 0);
            assertThat(seen).isEqualTo(e.members.keySet());
            int count = r.nextInt(e.members.size() + 3);
            boolean distinct = r.nextBoolean();
            List<Member> picked = store.randomMembers(key, e.type, count, distinct, r);
            assertThat(picked).hasSize(distinct ? Math.min(count, e.members.size()) : count);
            Set<ByteBuffer> names = new HashSet<>();
            for (Member m : picked) {
                assertThat(m.value()).isEqualTo(e.members.get(ByteBuffer.wrap(m.name())));
                names.add(ByteBuffer.wrap(m.name()));
            }
            if (distinct) assertThat(names).hasSize(picked.size());
        } else if (op < 96) { // RENAME / COPY [REPLACE] of a structure onto a key of any type
            int d = r.nextInt(KEYS);
            if (d == k || e == null || e.type == ValueType.STRING) return;
            boolean rename = r.nextBoolean();
            boolean replace = rename || r.nextBoolean();
            TxId tx = TxId.of(1, seq + 1);
            MemberCopy c = store.copyMembers(key, key(d), (src, dst) -> {
                if (!replace && dst != null && dst.state() != RecordState.TOMBSTONE) return null;
                RecordHeader h =
                        RecordHeader.structure(RecordState.COMPLETE, nextTx(), src.type(), src.expireAtMillis());
                return rename ? MemberCopy.removingSource(h) : MemberCopy.keepingSource(h);
            });
            if (c == null) {
                assertThat(model.get(d))
                        .as("COPY without REPLACE onto a held key")
                        .isNotNull();
                return;
            }
            Entry n = newStructure(e.type);
            n.members.putAll(e.members);
            n.expireAt = e.expireAt;
            n.txId = tx;
            model.put(d, n);
            if (rename) model.remove(k);
            check(d);
        } else { // a string read of a structure: its header says the type, no value
            StoredValue v = store.get(key);
            if (e == null)
                assertThat(v == null || v.state() == RecordState.TOMBSTONE).isTrue();
            else if (e.type == ValueType.STRING) assertThat(v.value()).isEqualTo(e.string);
            else assertThat(v.value()).isEmpty();
        }
    }

    private void check(int k) {
        byte[] key = key(k);
        Entry e = model.get(k);
        RecordHeader h = store.header(key);
        if (e == null) {
            assertThat(h == null || h.state() == RecordState.TOMBSTONE)
                    .as("key %s absent", k)
                    .isTrue();
            return;
        }
        assertThat(h.state()).isEqualTo(RecordState.COMPLETE);
        assertThat(h.type()).as("type").isEqualTo(e.type);
        assertThat(h.txId()).as("txId").isEqualTo(e.txId);
        assertThat(h.expireAtMillis()).as("expireAt").isEqualTo(e.expireAt);
        if (e.type == ValueType.STRING) return;
        assertThat(store.memberCount(key, e.type)).as("count").isEqualTo(e.members.size());
        Map<ByteBuffer, byte[]> all = new HashMap<>();
        for (Member m : store.members(key, e.type)) all.put(ByteBuffer.wrap(m.name()), m.value());
        assertThat(all.keySet()).isEqualTo(e.members.keySet());
        for (Map.Entry<ByteBuffer, byte[]> m : e.members.entrySet())
            assertThat(all.get(m.getKey())).isEqualTo(m.getValue());
    }

    private Entry newStructure(ValueType type) {
        Entry n = new Entry();
        n.type = type;
        return n;
    }

    private TxId nextTx() {
        return TxId.of(1, ++seq);
    }

    private Set<Integer> expiredInModel() {
        Set<Integer> out = new TreeSet<>();
        model.forEach((k, e) -> {
            if (RecordHeader.expired(e.expireAt, NOW)) out.add(k);
        });
        return out;
    }

    private static Set<Integer> keysOf(List<byte[]> keys) {
        Set<Integer> out = new TreeSet<>();
        for (byte[] key : keys) out.add(Integer.parseInt(new String(key).substring(1)));
        return out;
    }

    private static byte[] incr(byte[] v) {
        long n = v == null || v.length == 0 || v.length > 15 ? 0 : Long.parseLong(new String(v));
        return Long.toString(n + 1).getBytes();
    }

    private static byte[] key(int k) {
        return ("k" + k).getBytes();
    }

    /** Few names, so writes meet existing members often; numeric so HINCRBY's values parse. */
    private static byte[] name(Random r) {
        return ("f" + r.nextInt(40)).getBytes();
    }

    private static byte[] bytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        for (int i = 0; i < b.length; i++) b[i] = (byte) ('0' + r.nextInt(10));
        return b;
    }
}
