package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberCopy;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.StructureChange;
import dev.kvs.core.StructureView;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The reference store, a test double: records in a {@link ConcurrentHashMap} on the heap, with the
 * same limits, locking and contract as {@link ChronicleKvStore}. Memory only; for tests, and as a
 * second implementation the contract suite checks the Chronicle store against.
 *
 * <p>It lives in kvs-core's test sources, in this package because it shares the Chronicle store's
 * package-private limits, capacity and lock stripes; other modules' tests get it from kvs-core's
 * test-jar. Open one with {@link #open(StoreConfig)}.
 */
public final class HeapKvStore implements KvStore {
    private final StoreConfig config;
    private final SizeLimits limits;
    private final Capacity capacity;
    private final KeyStripes stripes = new KeyStripes();
    private final OpenGate gate = new OpenGate();
    private final ConcurrentHashMap<ByteKey, StoredValue> map = new ConcurrentHashMap<>();

    /**
     * Opens a heap store with {@code config}'s limits.
     *
     * @throws IllegalArgumentException if {@code config} has a dataDir: a heap store cannot persist
     */
    public static KvStore open(StoreConfig config) {
        return new HeapKvStore(config);
    }

    /** Opens a heap store with the limits of {@link StoreConfig#defaults()}. */
    public static KvStore open() {
        return open(StoreConfig.defaults());
    }

    HeapKvStore(StoreConfig config) {
        if (config.dataDir().isPresent()) {
            throw new IllegalArgumentException(
                    "a heap store cannot persist: dataDir " + config.dataDir().get());
        }
        this.config = config;
        this.limits = new SizeLimits(config);
        this.capacity = new Capacity(config);
        this.structures = new HeapStructures(capacity);
    }

    private final HeapStructures structures;

    private volatile TxId hiddenBefore;

    @Override
    public void hideBefore(TxId upTo) {
        Objects.requireNonNull(upTo, "upTo == null");
        TxId mark = hiddenBefore;
        if (mark == null || upTo.compareTo(mark) > 0) hiddenBefore = upTo;
    }

    @Override
    public long removeBefore(TxId upTo) {
        Objects.requireNonNull(upTo, "upTo == null");
        List<ByteKey> keys = new ArrayList<>(map.keySet());
        long removed = 0;
        for (ByteKey k : keys) {
            boolean gone = guarded(() -> {
                ReentrantLock lock = stripes.lock(k.bytes());
                try {
                    StoredValue old = map.get(k);
                    if (old == null || old.txId().compareTo(upTo) >= 0) return false;
                    map.remove(k);
                    capacity.commit(deltaOf(k.bytes(), old, null));
                    structures.drop(k);
                    return true;
                } finally {
                    lock.unlock();
                }
            });
            if (gone) removed++;
        }
        return removed;
    }

    private StoredValue visible(StoredValue v) {
        TxId mark = hiddenBefore;
        return v == null || (mark != null && v.txId().compareTo(mark) < 0) ? null : v;
    }

    @Override
    public StoredValue get(byte[] key) {
        limits.checkKey(key);
        return guarded(() -> visible(map.get(new ByteKey(key))));
    }

    @Override
    public RecordHeader header(byte[] key) {
        StoredValue v = get(key);
        return v == null ? null : v.header();
    }

    @Override
    public boolean exists(byte[] key) {
        StoredValue v = get(key);
        return v != null && v.state() != RecordState.TOMBSTONE;
    }

    @Override
    public List<StoredValue> getAll(List<byte[]> keys) {
        limits.checkKeys(keys);
        return guarded(() -> {
            int[] locked = stripes.lock(keys);
            try {
                List<StoredValue> values = new ArrayList<>(keys.size());
                for (byte[] key : keys) values.add(visible(map.get(new ByteKey(key))));
                return values;
            } finally {
                stripes.unlock(locked);
            }
        });
    }

    @Override
    public void put(byte[] key, StoredValue value) {
        limits.checkKey(key);
        limits.checkValue(value);
        update(key, old -> Write.put(value));
    }

    @Override
    public StoredValue upsert(byte[] key, java.util.function.Supplier<StoredValue> value) {
        Objects.requireNonNull(value, "value == null");
        Write w = update(key, old -> Write.put(Objects.requireNonNull(value.get(), "value supplied null")));
        return ((Write.Put) w).value();
    }

    @Override
    public boolean delete(byte[] key) {
        limits.checkKey(key);
        return guarded(() -> {
            ReentrantLock lock = stripes.lock(key);
            try {
                ByteKey k = new ByteKey(key);
                StoredValue old = map.get(k);
                if (old == null) return false;
                capacity.commit(deltaOf(key, old, null));
                map.remove(k);
                structures.drop(k);
                return visible(old) != null;
            } finally {
                lock.unlock();
            }
        });
    }

    @Override
    public Write update(byte[] key, Function<RecordHeader, Write> fn) {
        limits.checkKey(key);
        Objects.requireNonNull(fn, "fn == null");
        return updateAll(List.of(key), headers -> List.of(fn.apply(headers.get(0))))
                .get(0);
    }

    @Override
    public List<Write> updateAll(List<byte[]> keys, Function<List<RecordHeader>, List<Write>> fn) {
        limits.checkKeys(keys);
        Objects.requireNonNull(fn, "fn == null");
        return guarded(() -> {
            int[] locked = stripes.lock(keys);
            try {
                List<RecordHeader> headers = new ArrayList<>(keys.size());
                for (byte[] key : keys) {
                    StoredValue old = visible(map.get(new ByteKey(key)));
                    headers.add(old == null ? null : old.header());
                }
                List<Write> writes = fn.apply(Collections.unmodifiableList(headers));
                LinkedHashMap<ByteKey, Write> effective = BatchWrites.effective(keys, writes, limits);
                Delta total = Delta.NONE;
                for (Map.Entry<ByteKey, Write> e : effective.entrySet()) {
                    StoredValue next = e.getValue() instanceof Write.Put put ? put.value() : null;
                    if (next != null && next.header().type().isStructure() && next.state() == RecordState.COMPLETE) {
                        throw new IllegalArgumentException("a complete "
                                + next.header().type() + " is written by the structure operations, not as a value");
                    }
                    total = total.plus(deltaOf(e.getKey().bytes(), map.get(e.getKey()), next));
                }
                capacity.reserve(total); // the heap map cannot fail after this: no undo needed
                for (Map.Entry<ByteKey, Write> e : effective.entrySet()) {
                    if (e.getValue() instanceof Write.Put put) map.put(e.getKey(), put.value());
                    else map.remove(e.getKey());
                    structures.drop(e.getKey());
                }
                capacity.commit(total);
                return writes;
            } finally {
                stripes.unlock(locked);
            }
        });
    }

    private Delta deltaOf(byte[] key, StoredValue old, StoredValue next) {
        return Delta.of(
                key.length,
                old != null,
                old != null && old.state() != RecordState.TOMBSTONE,
                old == null ? 0 : old.value().length + structures.bytes(new ByteKey(key)),
                next);
    }

    @Override
    public MemberWrite putMembers(
            byte[] key, ValueType type, List<Member> members, boolean wantPrevious, Supplier<TxId> txId) {
        List<byte[]> names = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (Member m : members) {
            names.add(m.name());
            values.add(m.value());
        }
        return structure(
                key, (k, old) -> structures.write(k, old, map.get(k), type, names, values, wantPrevious, txId, map));
    }

    @Override
    public MemberWrite updateMember(
            byte[] key, ValueType type, byte[] name, UnaryOperator<byte[]> fn, Supplier<TxId> txId) {
        return structure(key, (k, old) -> {
            byte[] current = structures.member(k, old, type, name);
            byte[] next = fn.apply(current);
            if (next == null || (current != null && Arrays.equals(current, next))) {
                return new MemberWrite(old == null ? null : old.header(), false, 0, Collections.singletonList(current));
            }
            return structures.write(k, old, map.get(k), type, List.of(name), List.of(next), true, txId, map);
        });
    }

    @Override
    public MemberWrite removeMembers(
            byte[] key, ValueType type, List<byte[]> names, boolean wantPrevious, Supplier<TxId> txId) {
        List<byte[]> ns = List.copyOf(names);
        return structure(
                key, (k, old) -> structures.write(k, old, map.get(k), type, ns, null, wantPrevious, txId, map));
    }

    @Override
    public List<Member> popMembers(byte[] key, ValueType type, int count, RandomGenerator random, Supplier<TxId> txId) {
        return structure(key, (k, old) -> {
            List<Member> picked = structures.random(k, old, type, count, true, random);
            if (picked.isEmpty()) return picked;
            List<byte[]> names = new ArrayList<>();
            for (Member m : picked) names.add(m.name());
            structures.write(k, old, map.get(k), type, names, null, false, txId, map);
            return picked;
        });
    }

    @Override
    public List<byte[]> getMembers(byte[] key, ValueType type, List<byte[]> names) {
        return structure(key, (k, old) -> structures.get(k, old, type, names));
    }

    @Override
    public long memberCount(byte[] key, ValueType type) {
        return structure(key, (k, old) -> structures.count(k, old, type));
    }

    @Override
    public long scanMembers(byte[] key, ValueType type, long cursor, int count, BiConsumer<byte[], byte[]> visitor) {
        return structure(key, (k, old) -> structures.scan(k, old, type, cursor, count, visitor));
    }

    @Override
    public List<Member> randomMembers(byte[] key, ValueType type, int count, boolean distinct, RandomGenerator random) {
        return structure(key, (k, old) -> structures.random(k, old, type, count, distinct, random));
    }

    @Override
    public long memberBytes(byte[] key, ValueType type) {
        return structure(key, (k, old) -> structures.count(k, old, type) == 0 ? 0 : structures.bytes(k));
    }

    @Override
    public List<Member> members(byte[] key, ValueType type) {
        return structure(key, (k, old) -> structures.all(k, old, type));
    }

    @Override
    public RecordHeader updateHeader(byte[] key, UnaryOperator<RecordHeader> fn) {
        return structure(key, (k, old) -> {
            StoredValue next = HeapStructures.restamp(old, fn);
            if (next == null) return old == null ? null : old.header();
            map.put(k, next);
            return next.header();
        });
    }

    @Override
    public List<MemberWrite> updateStructures(List<byte[]> keys, Function<StructureView, List<StructureChange>> fn) {
        limits.checkKeys(keys);
        Objects.requireNonNull(fn, "fn == null");
        return guarded(() -> {
            int[] locked = stripes.lock(keys);
            try {
                List<ByteKey> ks = new ArrayList<>(keys.size());
                List<StoredValue> olds = new ArrayList<>(keys.size());
                for (byte[] key : keys) {
                    ByteKey k = new ByteKey(key);
                    ks.add(k);
                    olds.add(visible(map.get(k)));
                }
                List<StructureChange> changes = fn.apply(new StructureView() {
                    @Override
                    public RecordHeader header(int i) {
                        return olds.get(i) == null ? null : olds.get(i).header();
                    }

                    @Override
                    public List<Member> members(int i, ValueType type) {
                        return structures.all(ks.get(i), olds.get(i), type);
                    }

                    @Override
                    public List<byte[]> getMembers(int i, ValueType type, List<byte[]> names) {
                        return structures.get(ks.get(i), olds.get(i), type, names);
                    }

                    @Override
                    public long memberCount(int i, ValueType type) {
                        return structures.count(ks.get(i), olds.get(i), type);
                    }
                });
                StructureBatch.check(keys, changes);
                List<MemberWrite> out = new ArrayList<>(keys.size());
                for (int i = 0; i < keys.size(); i++) {
                    ByteKey k = ks.get(i);
                    StoredValue old = olds.get(i);
                    StructureChange c = changes.get(i);
                    if (c instanceof StructureChange.Put p) {
                        List<byte[]> names = new ArrayList<>();
                        List<byte[]> values = new ArrayList<>();
                        for (Member m : p.members()) {
                            names.add(m.name());
                            values.add(m.value());
                        }
                        out.add(structures.write(k, old, map.get(k), p.type(), names, values, false, p.txId(), map));
                    } else if (c instanceof StructureChange.Remove r) {
                        out.add(structures.write(k, old, map.get(k), r.type(), r.names(), null, false, r.txId(), map));
                    } else if (c instanceof StructureChange.Edit e) {
                        List<byte[]> names = new ArrayList<>();
                        List<byte[]> values = new ArrayList<>();
                        for (Member m : e.members()) {
                            names.add(m.name());
                            values.add(m.value());
                        }
                        out.add(structures.write(
                                k, old, map.get(k), e.type(), e.names(), names, values, false, e.txId(), map));
                    } else if (c instanceof StructureChange.Replace r) {
                        out.add(structures.replace(k, old, map.get(k), r.type(), r.members(), r.txId(), map));
                    } else {
                        out.add(new MemberWrite(old == null ? null : old.header(), false, 0, List.of()));
                    }
                }
                return out;
            } finally {
                stripes.unlock(locked);
            }
        });
    }

    @Override
    public MemberCopy copyMembers(
            byte[] source, byte[] destination, BiFunction<RecordHeader, RecordHeader, MemberCopy> decide) {
        limits.checkKey(source);
        limits.checkKey(destination);
        Objects.requireNonNull(decide, "decide == null");
        if (Arrays.equals(source, destination)) {
            throw new IllegalArgumentException("source and destination are the same key");
        }
        return guarded(() -> {
            int[] locked = stripes.lock(List.of(source, destination));
            try {
                ByteKey s = new ByteKey(source);
                ByteKey d = new ByteKey(destination);
                StoredValue from = visible(map.get(s));
                StoredValue to = visible(map.get(d));
                MemberCopy c = decide.apply(from == null ? null : from.header(), to == null ? null : to.header());
                if (c == null) return null;
                RecordHeader header = c.destination();
                if (from == null
                        || from.state() != RecordState.COMPLETE
                        || from.header().type() != header.type()) {
                    throw new IllegalArgumentException("the source is not a complete " + header.type() + ": "
                            + (from == null ? null : from.header()));
                }
                StoredValue next = new StoredValue(header, new byte[0]);
                Delta delta = deltaOf(destination, map.get(d), next).plus(new Delta(0, 0, 0, structures.bytes(s)));
                capacity.reserve(delta);
                map.put(d, next);
                structures.copy(s, d);
                capacity.commit(delta);
                if (c.source() instanceof Write.Remove) {
                    capacity.commit(deltaOf(source, map.get(s), null));
                    map.remove(s);
                    structures.drop(s);
                } else if (c.source() instanceof Write.Put put) {
                    Delta tomb = deltaOf(source, map.get(s), put.value());
                    capacity.reserve(tomb);
                    map.put(s, put.value());
                    structures.drop(s);
                    capacity.commit(tomb);
                }
                return c;
            } finally {
                stripes.unlock(locked);
            }
        });
    }

    @Override
    public int membersFingerprint(byte[] key) {
        MembersImage m = image(key);
        return m == null ? 0 : Structures.fingerprint(StructureImage.digestOf(m.image()));
    }

    @Override
    public MembersImage image(byte[] key) {
        return structure(key, (k, old) -> structures.image(k, old));
    }

    @Override
    public boolean putImage(byte[] key, byte[] image, Function<RecordHeader, RecordHeader> decide) {
        return structure(key, (k, old) -> {
            RecordHeader header = decide.apply(old == null ? null : old.header());
            if (header == null) return false;
            if (!header.type().isStructure() || header.state() != RecordState.COMPLETE) {
                throw new IllegalArgumentException("not a complete structure's header: " + header);
            }
            Map<ByteKey, byte[]> members = HeapStructures.membersOf(image);
            StoredValue raw = map.get(k);
            StoredValue next = new StoredValue(header, new byte[0]);
            Delta d = deltaOf(key, raw, next).plus(new Delta(0, 0, 0, HeapStructures.bytesOf(members)));
            capacity.reserve(d);
            map.put(k, next);
            structures.replace(k, members);
            capacity.commit(d);
            return true;
        });
    }

    /** Runs {@code op} on the key's visible record under its stripe. */
    private <T> T structure(byte[] key, java.util.function.BiFunction<ByteKey, StoredValue, T> op) {
        limits.checkKey(key);
        return guarded(() -> {
            ReentrantLock lock = stripes.lock(key);
            try {
                ByteKey k = new ByteKey(key);
                return op.apply(k, visible(map.get(k)));
            } finally {
                lock.unlock();
            }
        });
    }

    @Override
    public long size() {
        return guarded(capacity::live);
    }

    @Override
    public void forEach(BiConsumer<byte[], StoredValue> visitor) {
        Objects.requireNonNull(visitor, "visitor == null");
        guarded(() -> {
            map.forEach((k, v) -> {
                if (visible(v) != null) visitor.accept(k.bytes(), v);
            });
            return null;
        });
    }

    @Override
    public <T> T exclusive(java.util.function.Supplier<T> fn) {
        Objects.requireNonNull(fn, "fn == null");
        return guarded(() -> {
            int[] all = stripes.lockAll();
            try {
                return fn.get();
            } finally {
                stripes.unlock(all);
            }
        });
    }

    @Override
    public void clear() {
        guarded(() -> {
            int[] all = stripes.lockAll();
            try {
                map.clear();
                structures.clear();
                capacity.reset(0, 0, 0, 0);
                return null;
            } finally {
                stripes.unlock(all);
            }
        });
    }

    @Override
    public StoreStats stats() {
        return guarded(() -> new StoreStats(
                capacity.entries(),
                capacity.live(),
                capacity.keyBytes(),
                capacity.valueBytes(),
                capacity.maxEntries(),
                capacity.maxBytes(),
                0,
                false));
    }

    @Override
    public StoreConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (gate.close()) {
            map.clear();
            structures.clear();
        }
    }

    private <T> T guarded(Supplier<T> op) {
        int slot = gate.enter();
        try {
            return op.get();
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public String toString() {
        return "HeapKvStore[" + map.size() + " records]";
    }
}
