package dev.kvs.core.internal;

import static dev.kvs.core.internal.MapLayout.saturatedAdd;
import static dev.kvs.core.internal.MapLayout.saturatedMultiply;

import dev.kvs.core.Checksums;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;

/**
 * The Chronicle maps from key to {@link Record}. Keys up to {@link #SHORT_KEY_MAX} bytes live in one
 * map sized for many small entries; longer keys in a second map whose tiers fit a key of {@code
 * maxKeyBytes}. A key's length picks its map, so every lookup probes exactly one.
 */
final class RecordMaps implements AutoCloseable {
    static final int SHORT_KEY_MAX = 256;
    /** Longest value stored inside its record; longer ones go to {@link ValueChunks}. */
    static final int INLINE_MAX = 4096;

    /** Chronicle's per-entry bytes besides key and value: size prefixes and, persisted, a checksum. */
    private static final int ENTRY_OVERHEAD = 16;

    private static final int SHORT_CHUNK = 64;
    private static final int LONG_CHUNK = 256;
    /** Header, blob id (or nothing for an inline value) and expiry (only keys with a TTL carry it). */
    private static final int RECORD_FIXED =
            RecordMarshaller.HEADER_BYTES + 8 + RecordMarshaller.EXPIRY_BYTES + ENTRY_OVERHEAD;

    private final ChronicleMap<byte[], Record> shortKeys;
    private final ChronicleMap<byte[], Record> longKeys; // null if maxKeyBytes <= SHORT_KEY_MAX
    /** Keeps what a record held while it is overwritten: a store in a data dir only, else null. */
    private final UndoSlots undo;

    /** Touches the lookups of a batch of short keys ({@link #prefetch}). */
    private final LookupPrefetch shortPrefetch;

    private RecordMaps(ChronicleMap<byte[], Record> shortKeys, ChronicleMap<byte[], Record> longKeys, UndoSlots undo) {
        this.shortPrefetch = new LookupPrefetch(shortKeys, SHORT_KEY_MAX);
        this.shortKeys = shortKeys;
        this.longKeys = longKeys;
        this.undo = undo;
    }

    static RecordMaps open(StoreConfig config, DataDir dir) {
        ChronicleMap<byte[], Record> shortKeys =
                ChronicleMaps.open(builder("kvs-records", 32, shortLayout(config)), dir, "records.dat");
        UndoSlots undo = dir == null ? null : dir.undo(config.maxKeyBytes());
        if (config.maxKeyBytes() <= SHORT_KEY_MAX) return new RecordMaps(shortKeys, null, undo);
        try {
            ChronicleMap<byte[], Record> longKeys = ChronicleMaps.open(
                    builder("kvs-long-key-records", 4096, longLayout(config)), dir, "long-key-records.dat");
            return new RecordMaps(shortKeys, longKeys, undo);
        } catch (RuntimeException e) {
            shortKeys.close();
            throw e;
        }
    }

    /** Every entry may be small; the bytes of keys and inline values together are within maxBytes. */
    static MapLayout shortLayout(StoreConfig config) {
        long entries = saturatedAdd(config.maxEntries(), config.tombstoneReserve());
        long data = Math.min(config.maxBytes(), saturatedMultiply(entries, SHORT_KEY_MAX + INLINE_MAX));
        long payload = saturatedAdd(saturatedMultiply(entries, RECORD_FIXED + SHORT_CHUNK), data);
        long maxEntry = SHORT_KEY_MAX + RECORD_FIXED + INLINE_MAX;
        return MapLayout.of(entries, payload, maxEntry, SHORT_CHUNK, 1);
    }

    /** Long keys use maxBytes quickly, so fewer fit; most of the room comes as extra tiers on demand. */
    static MapLayout longLayout(StoreConfig config) {
        long entries = Math.min(
                saturatedAdd(config.maxEntries(), config.tombstoneReserve()),
                config.maxBytes() / (SHORT_KEY_MAX + 1) + 1);
        long perEntryData = (long) config.maxKeyBytes() + INLINE_MAX;
        long data = Math.min(config.maxBytes(), saturatedMultiply(entries, perEntryData));
        long payload = saturatedAdd(saturatedMultiply(entries, RECORD_FIXED + LONG_CHUNK), data);
        long maxEntry = config.maxKeyBytes() + RECORD_FIXED + INLINE_MAX;
        return MapLayout.of(entries, payload, maxEntry, LONG_CHUNK, 4);
    }

    private static ChronicleMapBuilder<byte[], Record> builder(String name, int averageKey, MapLayout layout) {
        ChronicleMapBuilder<byte[], Record> b = ChronicleMap.of(byte[].class, Record.class)
                .name(name)
                .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new KeyBytesAccess())
                .valueReaderAndDataAccess(RecordMarshaller.INSTANCE, new RecordDataAccess())
                .averageKeySize(averageKey)
                .averageValueSize(RecordMarshaller.HEADER_BYTES + 64)
                .removeReturnsNull(true);
        return layout.applyTo(b);
    }

    private ChronicleMap<byte[], Record> mapOf(byte[] key) {
        return key.length <= SHORT_KEY_MAX ? shortKeys : longKeys;
    }

    /**
     * Brings into cache what the lookups of {@code keys[0, n)} read first ({@link LookupPrefetch}); keys
     * longer than {@link #SHORT_KEY_MAX} are skipped (few, and in a map of their own).
     */
    long prefetch(byte[][] keys, int n) {
        return shortPrefetch.touch(keys, n);
    }

    /** The prefetch of short keys' lookups, for tests. */
    LookupPrefetch shortPrefetch() {
        return shortPrefetch;
    }

    /** The record of {@code key} with its inline value, or null. */
    Record get(byte[] key) {
        try {
            return mapOf(key).get(key);
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /**
     * The record of {@code key}, or null; its inline value copied into {@code into}'s sink if that gives
     * a buffer (while the segment is read-locked: one copy, no array), else read with the record.
     */
    Record get(byte[] key, ValueInto into) {
        try {
            return mapOf(key).getUsing(key, into.reset());
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /** The record of {@code key} without its inline value, or null. */
    Record header(byte[] key) {
        try {
            return mapOf(key).getUsing(key, RecordMarshaller.HEADER_ONLY);
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /**
     * Stores {@code record}; returns the header of the record it replaced (without its inline value),
     * or null. One query under the segment's update lock, as {@code ChronicleMap.put} does, but the old
     * record's value is not copied out (put's return value would copy it into a new array).
     */
    Record put(byte[] key, Record record) {
        return put(key, record, PutGuard.NONE);
    }

    /**
     * Like {@link #put(byte[], Record)}, but first shows {@code guard} the header of the record it is
     * about to replace (or null), under the segment's update lock: the guard may refuse the put by
     * throwing, and is told if the write then fails. One lookup both finds the old record and writes.
     */
    Record put(byte[] key, Record record, PutGuard guard) {
        assert !checksummed(record) || Checksums.crc32c(record.value) == record.checksum
                : "a complete value whose checksum is not its CRC32C";
        try (ExternalMapQueryContext<byte[], Record, ?> q = mapOf(key).queryContext(key)) {
            q.updateLock().lock();
            MapEntry<byte[], Record> entry = q.entry();
            Record old = entry == null ? null : RecordMarshaller.header(entry.value());
            guard.before(old);
            int slot = -1;
            try {
                WriteFaults.beforeWrite();
                if (entry == null) {
                    q.insert(q.absentEntry(), q.wrapValueAsData(record));
                } else {
                    // what the record held, kept while it is overwritten (in place, most often)
                    if (undo != null) slot = undo.begin(UndoSlots.RECORD, key, entry.value());
                    q.replaceValue(entry, q.wrapValueAsData(record));
                }
                if (WriteFaults.written != null)
                    WriteFaults.afterWrite(q.entry().value());
            } catch (RuntimeException e) {
                guard.failed(old);
                throw e;
            } finally {
                if (slot >= 0) undo.end(slot);
            }
            return old;
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /** What a {@link #put(byte[], Record, PutGuard)} checks under the lock before it writes. */
    interface PutGuard {
        PutGuard NONE = new PutGuard() {
            @Override
            public void before(Record old) {}

            @Override
            public void failed(Record old) {}
        };

        /** Sees the header of the record about to be replaced, or null; throws to write nothing. */
        void before(Record old);

        /** The write failed after {@link #before} returned; undo what it did. */
        void failed(Record old);
    }

    void remove(byte[] key) {
        WriteFaults.beforeWrite();
        try {
            mapOf(key).remove(key);
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /**
     * Calls {@code action} with every key, one segment's keys at a time, holding no lock while it runs
     * (so it may use the store).
     */
    void forEachKey(Consumer<byte[]> action) {
        for (ChronicleMap<byte[], Record> map : maps()) {
            for (int s = 0; s < map.segments(); s++) {
                List<byte[]> keys = new ArrayList<>();
                try (MapSegmentContext<byte[], Record, ?> c = map.segmentContext(s)) {
                    // getUsing(null): get() may hand back one reused array for every key
                    c.forEachSegmentEntry(e -> keys.add(e.key().getUsing(null)));
                } catch (RuntimeException e) {
                    throw ChronicleMaps.translate(e);
                }
                keys.forEach(action);
            }
        }
    }

    /** Segments of both maps: the slots of a cursor scan, short-key map first. */
    int segments() {
        int n = 0;
        for (ChronicleMap<byte[], Record> map : maps()) n += map.segments();
        return n;
    }

    /**
     * Adds the key and header-only record of every entry of segment {@code segment} (numbered across
     * both maps, as {@link #segments()} counts them) to {@code keys} and {@code headers}: one segment
     * read under its lock, so an entry present throughout is listed; nothing runs under the lock.
     */
    void segmentEntries(int segment, List<byte[]> keys, List<Record> headers) {
        int s = segment;
        for (ChronicleMap<byte[], Record> map : maps()) {
            if (s >= map.segments()) {
                s -= map.segments();
                continue;
            }
            try (MapSegmentContext<byte[], Record, ?> c = map.segmentContext(s)) {
                c.forEachSegmentEntry(e -> {
                    keys.add(e.key().getUsing(null)); // getUsing(null): get() may reuse one array
                    headers.add(e.value().getUsing(RecordMarshaller.HEADER_ONLY));
                });
            } catch (RuntimeException e) {
                throw ChronicleMaps.translate(e);
            }
            return;
        }
    }

    /**
     * A key of segment {@code segment} (numbered as {@link #segments()} counts them) that is not a
     * tombstone, picked at random, or null if it holds none: the entry at a random position, or the
     * next live one after it, or else the first live one. Copies one key; reads no header before the
     * random position.
     */
    byte[] randomLiveKey(int segment, RandomGenerator random) {
        int s = segment;
        for (ChronicleMap<byte[], Record> map : maps()) {
            if (s >= map.segments()) {
                s -= map.segments();
                continue;
            }
            try (MapSegmentContext<byte[], Record, ?> c = map.segmentContext(s)) {
                long n = c.size();
                if (n == 0) return null;
                long target = random.nextLong(n);
                long[] at = {0};
                byte[][] picked = {null};
                c.forEachSegmentEntryWhile(e -> {
                    if (at[0]++ < target) return true;
                    if (!e.value().getUsing(RecordMarshaller.HEADER_ONLY).isLive()) return true;
                    picked[0] = e.key().getUsing(null);
                    return false;
                });
                if (picked[0] == null) { // only tombstones from the random position on
                    c.forEachSegmentEntryWhile(e -> {
                        if (!e.value().getUsing(RecordMarshaller.HEADER_ONLY).isLive()) return true;
                        picked[0] = e.key().getUsing(null);
                        return false;
                    });
                }
                return picked[0];
            } catch (RuntimeException e) {
                throw ChronicleMaps.translate(e);
            }
        }
        return null;
    }

    /** Whether the crash check of {@link #fenceTorn} reads {@code r}'s value against its checksum. */
    private static boolean checksummed(Record r) {
        return r.state == RecordState.COMPLETE && !r.isStructure() && !r.isChunked() && r.value != null;
    }

    /**
     * After a crash: fences ({@link Record#fenced}, {@link RecordState#LOST}) each record a kill tore in
     * the middle of its copy in place, tells {@code fenced} of each, and returns how many. A record is torn if it does not parse, or
     * if it holds a value inline that its checksum (CRC32C) does not match. Chronicle's entry checksums
     * no longer drop such an entry in a file made since kvs stopped asking for them ({@link
     * ChronicleMaps#open}); a file that has them is not read again. A chunked value's chunks are written
     * before its record, under a new blob; a structure's record is recounted from its pages ({@link
     * Structures#repairAfterCrash}).
     */
    long fenceTorn(BiConsumer<byte[], Record> fenced) {
        long count = 0;
        for (ChronicleMap<byte[], Record> map : maps()) {
            if (ChronicleMaps.checksumsEntries(map)) continue;
            for (int s = 0; s < map.segments(); s++) {
                List<byte[]> keys = new ArrayList<>();
                List<Record> torn = new ArrayList<>();
                try (MapSegmentContext<byte[], Record, ?> c = map.segmentContext(s)) {
                    c.forEachSegmentEntry(e -> {
                        Record t = tornOrNull(e.value());
                        if (t == null) return;
                        keys.add(e.key().getUsing(null));
                        torn.add(t);
                    });
                } catch (RuntimeException e) {
                    throw ChronicleMaps.translate(e);
                }
                for (int i = 0; i < keys.size(); i++) {
                    put(keys.get(i), torn.get(i));
                    fenced.accept(keys.get(i), torn.get(i));
                }
                count += keys.size();
            }
        }
        return count;
    }

    /** The fenced record to write for a stored {@code value} a kill tore, or null if it is whole. */
    private static Record tornOrNull(Data<Record> value) {
        RandomDataInput in = value.bytes();
        long offset = value.offset();
        long size = value.size();
        try {
            Record r = RecordMarshaller.read(in, offset, size, true);
            if (!checksummed(r) || Checksums.crc32c(r.value) == r.checksum) return null;
            return r.fenced();
        } catch (RuntimeException e) { // its flags, length or size do not agree
            long epoch = size >= 9 ? in.readLong(offset + 1) : 0;
            long seq = size >= 17 ? in.readLong(offset + 9) : 0;
            return new Record(RecordState.LOST, epoch, seq, 0, 0, Record.NO_BLOB, null);
        }
    }

    /**
     * After a crash: puts back {@code old}, the stored bytes of {@code key}'s record before a write a
     * kill cut short ({@link UndoSlots}), if what the record holds now is torn ({@link #tornOrNull}) or
     * the record is gone. Returns whether it did.
     */
    boolean restoreIfTorn(byte[] key, byte[] old) {
        try (ExternalMapQueryContext<byte[], Record, ?> q = mapOf(key).queryContext(key)) {
            q.updateLock().lock();
            MapEntry<byte[], Record> entry = q.entry();
            if (entry != null && tornOrNull(entry.value()) == null) return false;
            Record before = RecordMarshaller.read(BytesStore.wrap(old), 0, old.length, true);
            // absent: Chronicle's recovery dropped what the kill left (a slot is taken only over a record there)
            if (entry == null) q.insert(q.absentEntry(), q.wrapValueAsData(before));
            else q.replaceValue(entry, q.wrapValueAsData(before));
            return true;
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /** Calls {@code visitor} with every key length and header-only record, under segment locks. */
    void forEachHeader(HeaderVisitor visitor) {
        for (ChronicleMap<byte[], Record> map : maps()) {
            map.forEachEntry(e -> {
                Data<Record> value = e.value();
                visitor.visit((int) e.key().size(), value.getUsing(RecordMarshaller.HEADER_ONLY));
            });
        }
    }

    interface HeaderVisitor {
        void visit(int keyLength, Record header);
    }

    void clear() {
        try {
            for (ChronicleMap<byte[], Record> map : maps()) map.clear();
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    long offHeapMemoryUsed() {
        long sum = 0;
        for (ChronicleMap<byte[], Record> map : maps()) sum += map.offHeapMemoryUsed();
        return sum;
    }

    @Override
    public void close() {
        ChronicleMaps.closeAll(shortKeys, longKeys);
    }

    private List<ChronicleMap<byte[], Record>> maps() {
        return longKeys == null ? List.of(shortKeys) : List.of(shortKeys, longKeys);
    }
}
