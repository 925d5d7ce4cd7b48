package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The members of {@link HeapKvStore}'s hashes and sets: a heap map per structure, with the semantics
 * of {@link Structures} (simply: each write builds the next map and swaps it in). A structure's
 * bytes are its members' and values' lengths, counted in the store's capacity. The caller holds the
 * key's stripe and passes the key's visible record ({@code null} if absent or hidden).
 */
final class HeapStructures {
    private static final byte[] EMPTY = new byte[0];
    private static final Comparator<ByteKey> SCAN_ORDER = Comparator.<ByteKey>comparingLong(
                    k -> Integer.toUnsignedLong(k.hashCode()))
            .thenComparing(ByteKey::bytes, Arrays::compareUnsigned);

    private final Map<ByteKey, Map<ByteKey, byte[]>> members = new ConcurrentHashMap<>();
    private final Capacity capacity;

    HeapStructures(Capacity capacity) {
        this.capacity = capacity;
    }

    /** The bytes the structure at {@code key} holds (0 if none). */
    long bytes(ByteKey key) {
        Map<ByteKey, byte[]> m = members.get(key);
        return m == null ? 0 : bytesOf(m);
    }

    /** Forgets the structure at {@code key}: its record was replaced or removed. */
    void drop(ByteKey key) {
        members.remove(key);
    }

    /** The image of {@code old}'s members with its header, or null if it is no complete structure. */
    MembersImage image(ByteKey key, StoredValue old) {
        if (old == null
                || old.state() != RecordState.COMPLETE
                || !old.header().type().isStructure()) return null;
        List<byte[][]> all = new ArrayList<>();
        members.getOrDefault(key, Map.of()).forEach((k, v) -> all.add(new byte[][] {k.bytes(), v}));
        return new MembersImage(old.header(), StructureImage.encode(all));
    }

    /** The members of a canonical image. @throws IllegalArgumentException if it is not canonical */
    static Map<ByteKey, byte[]> membersOf(byte[] image) {
        Map<ByteKey, byte[]> out = new LinkedHashMap<>();
        for (byte[][] e : StructureImage.decode(image)) out.put(new ByteKey(e[0]), e[1]);
        return out;
    }

    /** Makes {@code m} the members of the structure at {@code key} (its record was just written). */
    void replace(ByteKey key, Map<ByteKey, byte[]> m) {
        members.put(key, m);
    }

    /** Gives {@code to} a copy of {@code from}'s members (RENAME, COPY); the caller writes its record. */
    void copy(ByteKey from, ByteKey to) {
        members.put(to, new LinkedHashMap<>(members.getOrDefault(from, Map.of())));
    }

    void clear() {
        members.clear();
    }

    private Map<ByteKey, byte[]> current(ByteKey key, StoredValue old, ValueType type) {
        if (old == null || old.state() == RecordState.TOMBSTONE) return Map.of();
        if (old.header().type() != type)
            throw new WrongTypeException(type, old.header().type());
        if (old.state() != RecordState.COMPLETE) {
            throw new IllegalStateException(
                    "the " + type + "'s record is " + old.state() + ": its members are unknown");
        }
        return members.getOrDefault(key, Map.of());
    }

    /**
     * Puts or removes members; {@code values} null means remove {@code names}.
     *
     * @param map the store's records, to write the key's next record into
     * @param raw the key's record in the map, hidden or not (its room is given back)
     */
    MemberWrite write(
            ByteKey key,
            StoredValue old,
            StoredValue raw,
            ValueType type,
            List<byte[]> names,
            List<byte[]> values,
            boolean wantPrevious,
            Supplier<TxId> txId,
            Map<ByteKey, StoredValue> map) {
        return write(key, old, raw, type, List.of(), names, values, wantPrevious, txId, map);
    }

    /** {@link #write} that first removes {@code removedFirst}: a {@link dev.kvs.core.StructureChange#edit}. */
    MemberWrite write(
            ByteKey key,
            StoredValue old,
            StoredValue raw,
            ValueType type,
            List<byte[]> removedFirst,
            List<byte[]> names,
            List<byte[]> values,
            boolean wantPrevious,
            Supplier<TxId> txId,
            Map<ByteKey, StoredValue> map) {
        if (!type.isStructure()) throw new IllegalArgumentException("not a structure type: " + type);
        Map<ByteKey, byte[]> before = current(key, old, type);
        Map<ByteKey, byte[]> next = new LinkedHashMap<>(before);
        List<byte[]> previous = new ArrayList<>();
        int changed = 0;
        for (byte[] name : removedFirst) {
            if (next.remove(new ByteKey(name)) != null) changed++;
        }
        for (int i = 0; i < names.size(); i++) {
            ByteKey name = new ByteKey(names.get(i));
            byte[] was;
            if (values == null) {
                was = next.remove(name);
                if (was != null) changed++;
            } else {
                MemberPages.checkSize(names.get(i).length, values.get(i).length);
                was = next.put(name, values.get(i));
                if (was == null) changed++;
            }
            previous.add(was);
        }
        List<byte[]> prev = wantPrevious ? Collections.unmodifiableList(previous) : List.of();
        if (sameContent(before, next)) return new MemberWrite(old == null ? null : old.header(), false, 0, prev);
        boolean rawLive = raw != null && raw.state() != RecordState.TOMBSTONE;
        long rawBytes = raw == null ? 0 : raw.value().length + bytes(key);
        boolean live = !next.isEmpty();
        Delta d = new Delta(
                raw == null ? 1 : 0,
                (live ? 1 : 0) - (rawLive ? 1 : 0),
                raw == null ? key.bytes().length : 0,
                bytesOf(next) - rawBytes);
        capacity.reserve(d);
        TxId tx = txId.get();
        boolean keepsExpiry = old != null
                && old.state() == RecordState.COMPLETE
                && old.header().type() == type;
        long expireAt = keepsExpiry ? old.header().expireAtMillis() : RecordHeader.NO_EXPIRY;
        StoredValue record = live
                ? new StoredValue(RecordHeader.structure(RecordState.COMPLETE, tx, type, expireAt), EMPTY)
                : StoredValue.tombstone(tx);
        map.put(key, record);
        if (live) members.put(key, next);
        else members.remove(key);
        capacity.commit(d);
        return new MemberWrite(record.header(), true, changed, prev);
    }

    List<byte[]> get(ByteKey key, StoredValue old, ValueType type, List<byte[]> names) {
        Map<ByteKey, byte[]> m = current(key, old, type);
        List<byte[]> out = new ArrayList<>(names.size());
        for (byte[] name : names) out.add(m.get(new ByteKey(name)));
        return out;
    }

    long count(ByteKey key, StoredValue old, ValueType type) {
        return current(key, old, type).size();
    }

    List<Member> all(ByteKey key, StoredValue old, ValueType type) {
        List<Member> out = new ArrayList<>();
        current(key, old, type).forEach((k, v) -> out.add(new Member(k.bytes(), v)));
        return out;
    }

    /**
     * Members in order of (unsigned hash, bytes); the cursor is 1 + the lowest hash still to visit, and a
     * step visits whole hashes, so a member present throughout is never skipped.
     */
    long scan(
            ByteKey key, StoredValue old, ValueType type, long cursor, int count, BiConsumer<byte[], byte[]> visitor) {
        List<ByteKey> names = new ArrayList<>(current(key, old, type).keySet());
        names.sort(SCAN_ORDER);
        Map<ByteKey, byte[]> m = current(key, old, type);
        long from = cursor == 0 ? 0 : cursor - 1;
        int visited = 0;
        long lastHash = -1;
        for (ByteKey name : names) {
            long hash = Integer.toUnsignedLong(name.hashCode());
            if (hash < from) continue;
            if (visited >= count && hash != lastHash) return hash + 1;
            visitor.accept(name.bytes(), m.get(name));
            visited++;
            lastHash = hash;
        }
        return 0;
    }

    List<Member> random(ByteKey key, StoredValue old, ValueType type, int count, boolean distinct, RandomGenerator r) {
        if (count < 0) throw new IllegalArgumentException("count < 0: " + count);
        List<Member> all = all(key, old, type);
        List<Member> out = new ArrayList<>();
        if (all.isEmpty()) return out;
        if (distinct) {
            for (int i = all.size() - 1; i > 0; i--) Collections.swap(all, i, r.nextInt(i + 1));
            return new ArrayList<>(all.subList(0, Math.min(count, all.size())));
        }
        for (int i = 0; i < count; i++) out.add(all.get(r.nextInt(all.size())));
        return out;
    }

    private static boolean sameContent(Map<ByteKey, byte[]> a, Map<ByteKey, byte[]> b) {
        if (a.size() != b.size()) return false;
        for (Map.Entry<ByteKey, byte[]> e : a.entrySet()) {
            if (!Arrays.equals(e.getValue(), b.get(e.getKey()))) return false;
        }
        return true;
    }

    static long bytesOf(Map<ByteKey, byte[]> m) {
        long n = 0;
        for (Map.Entry<ByteKey, byte[]> e : m.entrySet()) n += e.getKey().bytes().length + e.getValue().length;
        return n;
    }

    /** For {@link dev.kvs.core.KvStore#updateMember}: the one member's current value under {@code old}. */
    byte[] member(ByteKey key, StoredValue old, ValueType type, byte[] name) {
        return current(key, old, type).get(new ByteKey(name));
    }

    // -- a key's whole content replaced: the *STORE commands (KvStore#updateStructures)

    /**
     * Makes {@code key} a {@code type} of exactly {@code members}, whatever {@code old} held, as {@link
     * Structures#replace} does; {@code raw} as for {@link #write}.
     */
    MemberWrite replace(
            ByteKey key,
            StoredValue old,
            StoredValue raw,
            ValueType type,
            List<Member> members,
            Supplier<TxId> txId,
            Map<ByteKey, StoredValue> map) {
        if (!type.isStructure()) throw new IllegalArgumentException("not a structure type: " + type);
        Map<ByteKey, byte[]> next = new LinkedHashMap<>();
        for (Member m : members) {
            MemberPages.checkSize(m.name().length, m.value().length);
            next.put(new ByteKey(m.name()), m.value());
        }
        boolean oldLive = old != null && old.state() != RecordState.TOMBSTONE;
        if (next.isEmpty() && !oldLive) return new MemberWrite(old == null ? null : old.header(), false, 0, List.of());
        boolean rawLive = raw != null && raw.state() != RecordState.TOMBSTONE;
        long rawBytes = raw == null ? 0 : raw.value().length + bytes(key);
        boolean live = !next.isEmpty();
        Delta d = new Delta(
                raw == null ? 1 : 0,
                (live ? 1 : 0) - (rawLive ? 1 : 0),
                raw == null ? key.bytes().length : 0,
                bytesOf(next) - rawBytes);
        capacity.reserve(d);
        TxId tx = txId.get();
        StoredValue record = live
                ? new StoredValue(RecordHeader.structure(RecordState.COMPLETE, tx, type, RecordHeader.NO_EXPIRY), EMPTY)
                : StoredValue.tombstone(tx);
        map.put(key, record);
        if (live) this.members.put(key, next);
        else this.members.remove(key);
        capacity.commit(d);
        return new MemberWrite(record.header(), true, next.size(), List.of());
    }

    /** Rewrites a record's TxId and expiry as {@link Structures#restamp} does. */
    static StoredValue restamp(StoredValue old, UnaryOperator<RecordHeader> fn) {
        RecordHeader before = old == null ? null : old.header();
        RecordHeader after = fn.apply(before);
        if (after == null || after.equals(before)) return null;
        if (before == null
                || !after.withTxId(before.txId())
                        .withExpireAt(before.expireAtMillis())
                        .equals(before)) {
            throw new IllegalArgumentException("header " + after + " changes more than TxId and expiry of " + before);
        }
        return new StoredValue(after, old.value());
    }
}
