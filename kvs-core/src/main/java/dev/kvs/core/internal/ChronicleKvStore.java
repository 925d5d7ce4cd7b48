package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.HeapValueStage;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberCopy;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.StructureChange;
import dev.kvs.core.StructureView;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueRead;
import dev.kvs.core.ValueSink;
import dev.kvs.core.ValueStage;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store on Chronicle Map, off-heap and optionally persisted: records in {@link RecordMaps}, values
 * longer than {@link RecordMaps#INLINE_MAX} in {@link ValueChunks}, the members of hashes and sets in
 * {@link MemberPages}, written by {@link Structures} under the key's stripe.
 *
 * <p>Writers of a key hold its {@link KeyStripes stripe}; batches hold all their stripes. A single
 * {@link #get} takes no lock: an inline record is read whole under Chronicle's segment lock, and a
 * chunked value is written under a fresh blob id before its record points to it and freed only after,
 * so a reader either finds every chunk of the blob its record named or retries. Reads of a structure's
 * members, which span its record and its pages, take no lock either unless a writer of the key is at
 * work: they check the stripe's count of holds before and after ({@link #unlocked}).
 */
final class ChronicleKvStore implements KvStore {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleKvStore.class);
    /** Lock-free attempts at a chunked value before taking the key's lock. */
    private static final int OPTIMISTIC_READS = 3;

    private final StoreConfig config;
    private final SizeLimits limits;
    private final Capacity capacity;
    private final KeyStripes stripes = new KeyStripes();
    private final OpenGate gate = new OpenGate();
    private final RecordMaps records;
    private final ValueChunks chunks;
    private final MemberPages pages;
    private final RecordWriter writer;
    private final Structures structures;
    /** {@link #fencedAtOpen()}: written only while the store opens. */
    private final Map<ByteKey, RecordHeader> fencedAtOpen = new HashMap<>();

    private final ExpiryIndex expiry = new ExpiryIndex();
    private final DataDir dataDir;
    /** Records before this TxId are hidden (a flush); null: none. See {@link #hideBefore}. */
    private volatile TxId hiddenBefore;
    /** Orders the changes of {@link #hiddenBefore} and its file. */
    private final Object flushMarkLock = new Object();
    /** Orders a stage's room against {@link #clear}, which resets the counters. */
    private final Object stageLock = new Object();
    /**
     * Held (read) while a {@link ChunkStage} copies into a chunk it reserved, and (write) while {@link
     * #clear} frees the chunks: a reserved chunk's memory is written outside the map's locks, and after
     * a clear it may be another entry's.
     */
    final StampedLock chunkFill = new StampedLock();
    /** How many times the store was cleared: a stage opened before a clear lost its chunks and room. */
    private volatile long generation;

    private ChronicleKvStore(
            StoreConfig config, RecordMaps records, ValueChunks chunks, MemberPages pages, DataDir dataDir) {
        this.config = config;
        this.limits = new SizeLimits(config);
        this.capacity = new Capacity(config);
        this.records = records;
        this.chunks = chunks;
        this.pages = pages;
        this.writer = new RecordWriter(records, chunks, pages, capacity, limits, expiry);
        this.structures = new Structures(records, pages, capacity, expiry);
        this.dataDir = dataDir;
    }

    static ChronicleKvStore open(StoreConfig config) {
        DataDir dir = config.dataDir().map(DataDir::open).orElse(null);
        RecordMaps records = null;
        ValueChunks chunks = null;
        MemberPages pages = null;
        try {
            records = RecordMaps.open(config, dir);
            chunks = ValueChunks.open(config, dir);
            pages = MemberPages.open(config, dir);
            ChronicleKvStore store = new ChronicleKvStore(config, records, chunks, pages, dir);
            if (dir != null) {
                if (dir.recoveryNeeded()) store.repairStructures();
                store.recount();
                store.finishFlush();
            }
            return store;
        } catch (RuntimeException e) {
            try {
                ChronicleMaps.closeAll(records, chunks, pages);
            } catch (RuntimeException f) {
                e.addSuppressed(f);
            }
            if (dir != null) dir.close(false);
            throw ChronicleMaps.translate(e);
        }
    }

    private void fencedAtOpen(byte[] key, Record fenced) {
        fencedAtOpen.put(new ByteKey(key), fenced.header());
    }

    @Override
    public Map<ByteKey, RecordHeader> fencedAtOpen() {
        return Collections.unmodifiableMap(fencedAtOpen);
    }

    /**
     * After a crash: records torn by the kill fenced ({@link RecordMaps#fenceTorn}), then structures made
     * whole again from their pages, or fenced for a torn page ({@link Structures#repairAfterCrash}).
     */
    private void repairStructures() {
        UndoSlots undo = dataDir.undo(config.maxKeyBytes());
        long restored = 0;
        for (UndoSlots.Interrupted w : undo.interrupted()) {
            boolean done = w.kind() == UndoSlots.RECORD
                    ? records.restoreIfTorn(w.key(), w.old())
                    : pages.restoreIfTorn(w.key(), w.old());
            if (done) restored++;
        }
        undo.clear();
        if (restored > 0) {
            LOG.warn(
                    "after a crash: {} records or pages a write was overwriting when the crash came put back as they"
                            + " were, in {}",
                    restored,
                    dataDir.path());
        }
        long torn = records.fenceTorn(this::fencedAtOpen);
        if (torn > 0) {
            LOG.warn(
                    "after a crash: {} keys whose record the crash tore in the middle of its write fenced (LOST), in {}",
                    torn,
                    dataDir.path());
        }
        Structures.Repaired r = structures.repairAfterCrash(this::fencedAtOpen);
        if (r.records() > 0 || r.pages() > 0) {
            LOG.warn(
                    "after a crash: {} structures' records rewritten to match their member pages ({} of them fenced"
                            + " (LOST) for a page the crash tore), {} pages no record covers removed, in {}",
                    r.records(),
                    r.fenced(),
                    r.pages(),
                    dataDir.path());
        }
    }

    /** Rebuilds the counters from persisted records and drops chunks no record references. */
    private void recount() {
        long[] counts = new long[4]; // entries, live, key bytes, value bytes
        long[] maxBlobId = {0};
        Set<Long> blobs = new HashSet<>();
        long[] expiring = {0};
        records.forEachHeader((keyLength, r) -> {
            if (r.hasExpiry()) expiring[0]++;
            counts[0]++;
            if (r.isLive()) counts[1]++;
            counts[2] += keyLength;
            counts[3] += r.storedValueBytes(keyLength);
            if (r.isChunked()) {
                blobs.add(r.blobId);
                maxBlobId[0] = Math.max(maxBlobId[0], r.blobId);
            }
        });
        if (expiring[0] > 0) {
            records.forEachKey(key -> {
                Record r = records.header(key);
                if (r != null) expiry.add(key, r.expireAt);
            });
        }
        long orphans = chunks.recover(blobs::contains, maxBlobId[0]);
        capacity.reset(counts[0], counts[1], counts[2], counts[3]);
        if (orphans > 0) LOG.info("removed {} orphaned value chunks in {}", orphans, dataDir.path());
    }

    /**
     * A flush whose sweep the last process did not finish left its mark: its records are hidden now and
     * removed before the store is handed out, so they never come back.
     */
    private void finishFlush() {
        TxId mark = dataDir.flushMark();
        if (mark == null) return;
        hiddenBefore = mark;
        long removed = removeBefore(mark);
        LOG.info("finished the sweep of the flush at {} in {}: {} records removed", mark, dataDir.path(), removed);
    }

    @Override
    public long prefetch(byte[][] keys, int n) {
        int slot;
        try {
            slot = gate.enter();
        } catch (StorageException closed) {
            return 0; // a hint: a closed store has nothing to bring in, and its commands will say so
        }
        try {
            return records.prefetch(keys, n);
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public StoredValue get(byte[] key) {
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            Record r = records.get(key);
            for (int attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
                if (r == null || hidden(r)) return null;
                if (!r.isChunked()) return r.toStoredValue();
                byte[] value = chunks.read(r.blobId, r.valueLength);
                if (value != null) return r.toStoredValue(value);
                r = records.get(key); // replaced while we read it
            }
            ReentrantLock lock = stripes.lock(key);
            try {
                return readLocked(key);
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    /** Reads {@code key} while holding its stripe, so its chunks cannot be freed meanwhile. */
    private StoredValue readLocked(byte[] key) {
        return readLocked(key, records.get(key));
    }

    private StoredValue readLocked(byte[] key, Record r) {
        if (r == null || hidden(r)) return null;
        if (!r.isChunked()) return r.toStoredValue();
        byte[] value = chunks.read(r.blobId, r.valueLength);
        if (value == null) {
            throw new StorageException("value of a " + key.length + "-byte key (" + r.valueLength + " bytes, blob "
                    + r.blobId + ") is missing chunks");
        }
        return r.toStoredValue(value);
    }

    /**
     * As {@link #get}: lock-free attempts first, then under the key's stripe; an inline value the sink
     * takes is copied from Chronicle's memory into its buffer while the record is read (no array), a
     * chunked one chunk by chunk.
     */
    @Override
    public ValueRead readValue(byte[] key, ValueSink sink) {
        limits.checkKey(key);
        Objects.requireNonNull(sink, "sink == null");
        int slot = gate.enter();
        try {
            ValueInto into = new ValueInto(sink);
            Record r = records.get(key, into);
            for (int attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
                if (r == null || hidden(r)) return null;
                ValueRead read = into.result(r);
                if (read == null) read = read(r, sink);
                if (read != null) return read;
                r = records.get(key, into); // replaced while we read it
            }
            ReentrantLock lock = stripes.lock(key);
            try {
                return readValueLocked(key, sink);
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public List<ValueRead> readAll(List<byte[]> keys, ValueSink sink) {
        limits.checkKeys(keys);
        Objects.requireNonNull(sink, "sink == null");
        int slot = gate.enter();
        try {
            int[] locked = stripes.lock(keys);
            try {
                List<ValueRead> values = new ArrayList<>(keys.size());
                for (byte[] key : keys) values.add(readValueLocked(key, sink));
                return values;
            } finally {
                stripes.unlock(locked);
            }
        } finally {
            gate.exit(slot);
        }
    }

    /** Reads {@code key} into the sink while holding its stripe, so its chunks cannot be freed meanwhile. */
    private ValueRead readValueLocked(byte[] key, ValueSink sink) {
        Record r = records.get(key);
        if (r == null || hidden(r)) return null; // flushed: see hideBefore
        ValueRead read = read(r, sink);
        if (read == null) {
            throw new StorageException("value of a " + key.length + "-byte key (" + r.valueLength + " bytes, blob "
                    + r.blobId + ") is missing chunks");
        }
        return read;
    }

    /** The read of record {@code r}, or null if its chunks were freed meanwhile (it was replaced). */
    private ValueRead read(Record r, ValueSink sink) {
        if (!r.isChunked()) return ValueRead.of(r.toStoredValue(), sink);
        ByteBuffer buffer = sink.buffer(r.valueLength);
        if (buffer == null) {
            byte[] value = chunks.read(r.blobId, r.valueLength);
            return value == null ? null : new ValueRead(r.header(), value, null);
        }
        if (buffer.remaining() < r.valueLength) {
            throw new IllegalArgumentException(
                    "sink gave " + buffer.remaining() + " bytes of room for a value of " + r.valueLength);
        }
        return chunks.readInto(r.blobId, r.valueLength, buffer) ? new ValueRead(r.header(), null, buffer) : null;
    }

    /**
     * As {@link #readValue}: lock-free attempts first, then under the key's stripe (so the chunks cannot
     * be freed meanwhile); the chunks the range touches are copied from Chronicle's memory into the
     * buffer.
     */
    @Override
    public RecordHeader readRange(byte[] key, int offset, int length, ByteBuffer buffer) {
        limits.checkKey(key);
        ValueRead.checkRange(offset, length, buffer);
        int slot = gate.enter();
        try {
            int start = buffer.position();
            Record r = records.get(key);
            for (int attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
                if (r == null || hidden(r)) return null;
                if (readRange(r, offset, length, buffer)) return r.header();
                buffer.position(start);
                r = records.get(key); // replaced while we read it
            }
            ReentrantLock lock = stripes.lock(key);
            try {
                r = records.get(key);
                if (r == null || hidden(r)) return null;
                if (!readRange(r, offset, length, buffer)) {
                    throw new StorageException("value of a " + key.length + "-byte key (" + r.valueLength
                            + " bytes, blob " + r.blobId + ") is missing chunks");
                }
                return r.header();
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    /** Copies the range of record {@code r}'s value, if it has it; false if its chunks were freed meanwhile. */
    private boolean readRange(Record r, int offset, int length, ByteBuffer buffer) {
        if (r.isStructure() || !ValueRead.covers(r.header(), offset, length)) return true; // nothing to copy
        if (!r.isChunked()) {
            buffer.put(r.value, offset, length);
            return true;
        }
        return chunks.readRangeInto(r.blobId, r.valueLength, offset, length, buffer);
    }

    @Override
    public RecordHeader header(byte[] key) {
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            Record r = records.header(key);
            return r == null || hidden(r) ? null : r.header();
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public boolean exists(byte[] key) {
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            Record r = records.header(key);
            return r != null && r.state != RecordState.TOMBSTONE && !hidden(r);
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public List<StoredValue> getAll(List<byte[]> keys) {
        limits.checkKeys(keys);
        int slot = gate.enter();
        try {
            int[] locked = stripes.lock(keys);
            try {
                List<StoredValue> values = new ArrayList<>(keys.size());
                for (byte[] key : keys) values.add(readLocked(key));
                return values;
            } finally {
                stripes.unlock(locked);
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public void put(byte[] key, StoredValue value) {
        limits.checkKey(key);
        limits.checkValue(value);
        int slot = gate.enter();
        try {
            ReentrantLock lock = stripes.lock(key);
            try {
                writer.put(key, value);
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public StoredValue upsert(byte[] key, java.util.function.Supplier<StoredValue> value) {
        limits.checkKey(key);
        Objects.requireNonNull(value, "value == null");
        int slot = gate.enter();
        try {
            ReentrantLock lock = stripes.lock(key);
            try {
                StoredValue v = Objects.requireNonNull(value.get(), "value supplied null");
                limits.checkValue(v);
                writer.put(key, v);
                return v;
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public boolean delete(byte[] key) {
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            ReentrantLock lock = stripes.lock(key);
            try {
                Record old = records.header(key);
                boolean visible = old != null && !hidden(old);
                return writer.remove(key, old) && visible;
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public Write update(byte[] key, Function<RecordHeader, Write> fn) {
        Objects.requireNonNull(fn, "fn == null");
        return updateLocked(key, false, old -> fn.apply(old == null || hidden(old) ? null : old.header()));
    }

    @Override
    public Write updateValue(byte[] key, Function<StoredValue, Write> fn) {
        Objects.requireNonNull(fn, "fn == null");
        return updateLocked(key, true, old -> fn.apply(readLocked(key, old)));
    }

    /**
     * Under {@code key}'s lock: reads its record (the header only unless {@code withValue}), lets
     * {@code decide} choose, and writes what it chose.
     */
    private Write updateLocked(byte[] key, boolean withValue, Function<Record, Write> decide) {
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            ReentrantLock lock = stripes.lock(key);
            try {
                Record old = withValue ? records.get(key) : records.header(key);
                Write w = Objects.requireNonNull(decide.apply(old), "fn returned null");
                if (w instanceof Write.Put put) {
                    limits.checkValue(put.value());
                    writer.replace(key, old, put.value());
                } else if (w instanceof Write.Remove) {
                    writer.remove(key, old);
                }
                return w;
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public List<Write> updateAll(List<byte[]> keys, Function<List<RecordHeader>, List<Write>> fn) {
        limits.checkKeys(keys);
        Objects.requireNonNull(fn, "fn == null");
        int slot = gate.enter();
        try {
            int[] locked = stripes.lock(keys);
            try {
                TxId mark = hiddenBefore;
                if (mark == null) return writer.updateAll(keys, fn);
                return writer.updateAll(keys, headers -> {
                    List<RecordHeader> seen = new ArrayList<>(headers.size());
                    for (RecordHeader h : headers)
                        seen.add(h != null && h.txId().compareTo(mark) < 0 ? null : h);
                    return fn.apply(java.util.Collections.unmodifiableList(seen));
                });
            } finally {
                stripes.unlock(locked);
            }
        } finally {
            gate.exit(slot);
        }
    }

    /**
     * A value up to the inline limit is staged on the heap and written whole; a longer one goes to the
     * value chunks as it comes ({@link ChunkStage}), its room reserved now.
     */
    @Override
    public ValueStage stage(int length) {
        if (length < 0) throw new IllegalArgumentException("length < 0: " + length);
        limits.checkValueLength(length);
        if (length <= RecordMaps.INLINE_MAX) return new HeapValueStage(length);
        int slot = gate.enter();
        try {
            long gen;
            synchronized (stageLock) {
                capacity.reserve(Delta.staged(length));
                gen = generation;
            }
            return new ChunkStage(this, gate, chunks, chunks.newBlobId(), length, gen);
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public boolean putStaged(byte[] key, ValueStage stage, Function<RecordHeader, RecordHeader> decide) {
        if (!(stage instanceof ChunkStage staged)) return KvStore.super.putStaged(key, stage, decide);
        Objects.requireNonNull(decide, "decide == null");
        if (staged.owner != this) throw new IllegalArgumentException("not a stage of this store: " + stage);
        if (!staged.ready()) throw new IllegalArgumentException("not ready to commit: " + stage);
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            ReentrantLock lock = stripes.lock(key);
            try {
                if (staged.generation != generation) {
                    throw new StorageException("the store was cleared while " + stage + " was written");
                }
                Record old = records.header(key);
                RecordHeader header = decide.apply(old == null || hidden(old) ? null : old.header());
                if (header == null) return false;
                if (header.state() != RecordState.COMPLETE || header.valueLength() != staged.length()) {
                    throw new IllegalArgumentException("header " + header + " does not describe " + stage);
                }
                writer.putStaged(key, old, header, staged.blobId);
                staged.committed(header);
                return true;
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public MemberWrite putMembers(
            byte[] key, ValueType type, List<Member> members, boolean wantPrevious, Supplier<TxId> txId) {
        List<Member> ms = List.copyOf(members);
        Objects.requireNonNull(txId, "txId == null");
        return structure(key, old -> structures.put(key, old, type, ms, wantPrevious, txId));
    }

    @Override
    public MemberWrite putMembersUnlessExpired(
            byte[] key,
            ValueType type,
            List<Member> members,
            boolean wantPrevious,
            Clock clock,
            Object[] seen,
            Supplier<TxId> txId) {
        List<Member> ms = List.copyOf(members);
        Objects.requireNonNull(clock, "clock == null");
        Objects.requireNonNull(txId, "txId == null");
        checkMarks(seen, ms);
        return structure(
                key,
                old -> old != null && expired(old.expireAt, clock)
                        ? null
                        : structures.put(key, old, type, ms, wantPrevious, seen, txId));
    }

    private static void checkMarks(Object[] seen, List<Member> members) {
        if (seen != null && seen.length != members.size()) {
            throw new IllegalArgumentException(seen.length + " marks for " + members.size() + " members");
        }
    }

    /**
     * Read without the key's lock. Null for anything but a live, complete structure of {@code type} whose
     * expiry has not passed, holding every member with its value: the caller then writes under the lock,
     * which decides those cases. Every member is read, even while a writer of the key is at work, and
     * marked in {@code seen} (if given) where it was found ({@link Structures#holdsAll}): in a run of SADDs
     * of which one adds a member, the others are then not read again under the lock. Only the answer needs
     * one state of the key (the stripe's count even before, and the same after, as {@link #unlocked}); a
     * mark proves itself under the lock.
     */
    @Override
    public MemberWrite putMembersIfUnchanged(
            byte[] key, ValueType type, List<Member> members, boolean wantPrevious, Clock clock, Object[] seen) {
        limits.checkKey(key);
        Objects.requireNonNull(clock, "clock == null");
        checkMarks(seen, members);
        Object[] marks = seen != null ? seen : new Object[members.size()];
        long version = stripes.version(key);
        int slot = gate.enter();
        try {
            boolean all;
            Record r;
            try {
                r = records.header(key);
                if (r != null && hidden(r) || !live(r, type, clock)) return null;
                all = structures.holdsAll(key, r.members, members, marks);
            } catch (RuntimeException e) {
                if ((version & 1) == 0 && stripes.validate(key, version)) throw e;
                return null;
            }
            return all && (version & 1) == 0 && stripes.validate(key, version)
                    ? unchanged(r, members, wantPrevious)
                    : null;
        } finally {
            gate.exit(slot);
        }
    }

    /** Whether {@code r} is a live, complete structure of {@code type} whose expiry has not passed. */
    private static boolean live(Record r, ValueType type, Clock clock) {
        return r != null
                && r.state == RecordState.COMPLETE
                && r.type == type
                && r.members != null
                && !expired(r.expireAt, clock);
    }

    /** The answer of a put of {@code members} to {@code r} that changes nothing. */
    private static MemberWrite unchanged(Record r, List<Member> members, boolean wantPrevious) {
        List<byte[]> previous = List.of();
        if (wantPrevious) {
            List<byte[]> values = new ArrayList<>(members.size());
            for (Member m : members) values.add(m.value());
            previous = Collections.unmodifiableList(values);
        }
        return new MemberWrite(r.header(), false, 0, previous);
    }

    /**
     * A read of a structure's members ({@code read} never answers null): without the key's lock first
     * ({@link #unlocked}), so readers of a hot hash or set do not take turns at its stripe; under the lock
     * if a writer was at work, or a write overlapped the read (a long one, HGETALL of a large hash).
     */
    private <T> T readMembers(byte[] key, Function<Record, T> read) {
        limits.checkKey(key);
        T result = unlocked(key, read);
        return result != null ? result : structure(key, read);
    }

    /**
     * Runs {@code read} on {@code key}'s record (null if none) without the key's lock, and returns what it
     * returned if no writer of the key was at work meanwhile: the stripe's count ({@link
     * KeyStripes#version}) even before, and the same after, so the record and the pages read are one state
     * of the key. Null if a writer was (or holds it now), or the record is hidden by a flush (the locked
     * path removes it): then the caller reads under the lock. What {@code read} throws is thrown only if
     * the read was of one state (else it may come of a page read with a newer header). Chronicle's segment
     * locks keep each record and page read whole.
     */
    private <T> T unlocked(byte[] key, Function<Record, T> read) {
        long version = stripes.version(key);
        if ((version & 1) != 0) return null;
        int slot = gate.enter();
        try {
            T result;
            try {
                Record r = records.header(key);
                if (r != null && hidden(r)) return null;
                result = read.apply(r);
            } catch (RuntimeException e) {
                if (stripes.validate(key, version)) throw e;
                return null;
            }
            return stripes.validate(key, version) ? result : null;
        } finally {
            gate.exit(slot);
        }
    }

    /** As {@link RecordHeader#expiredAt(Clock)}, without making the header. */
    private static boolean expired(long expireAt, Clock clock) {
        return expireAt != RecordHeader.NO_EXPIRY && RecordHeader.expired(expireAt, clock.millis());
    }

    @Override
    public MemberWrite updateMember(
            byte[] key, ValueType type, byte[] name, UnaryOperator<byte[]> fn, Supplier<TxId> txId) {
        Objects.requireNonNull(name, "name == null");
        Objects.requireNonNull(fn, "fn == null");
        Objects.requireNonNull(txId, "txId == null");
        return structure(key, old -> structures.update(key, old, type, name, fn, txId));
    }

    @Override
    public MemberWrite removeMembers(
            byte[] key, ValueType type, List<byte[]> names, boolean wantPrevious, Supplier<TxId> txId) {
        List<byte[]> ns = List.copyOf(names);
        Objects.requireNonNull(txId, "txId == null");
        return structure(key, old -> structures.remove(key, old, type, ns, wantPrevious, txId));
    }

    @Override
    public List<Member> popMembers(byte[] key, ValueType type, int count, RandomGenerator random, Supplier<TxId> txId) {
        Objects.requireNonNull(random, "random == null");
        Objects.requireNonNull(txId, "txId == null");
        return structure(key, old -> structures.pop(key, old, type, count, random, txId));
    }

    @Override
    public List<byte[]> getMembers(byte[] key, ValueType type, List<byte[]> names) {
        List<byte[]> ns = List.copyOf(names);
        return readMembers(key, old -> structures.get(key, old, type, ns));
    }

    @Override
    public long memberCount(byte[] key, ValueType type) {
        return readMembers(key, old -> structures.count(old, type));
    }

    @Override
    public int membersFingerprint(byte[] key) {
        return readMembers(key, old -> Structures.fingerprint(old));
    }

    @Override
    public long scanMembers(byte[] key, ValueType type, long cursor, int count, BiConsumer<byte[], byte[]> visitor) {
        Objects.requireNonNull(visitor, "visitor == null");
        return structure(key, old -> structures.scan(key, old, type, cursor, count, visitor));
    }

    @Override
    public List<Member> randomMembers(byte[] key, ValueType type, int count, boolean distinct, RandomGenerator random) {
        Objects.requireNonNull(random, "random == null");
        return readMembers(key, old -> structures.random(key, old, type, count, distinct, random));
    }

    @Override
    public long memberBytes(byte[] key, ValueType type) {
        return structure(key, old -> Structures.membersOf(old, type).isEmpty() ? 0 : old.storedValueBytes(key.length));
    }

    @Override
    public List<Member> members(byte[] key, ValueType type) {
        return readMembers(key, old -> structures.all(key, old, type));
    }

    @Override
    public RecordHeader updateHeader(byte[] key, UnaryOperator<RecordHeader> fn) {
        Objects.requireNonNull(fn, "fn == null");
        return structure(key, old -> structures.restamp(key, old, fn));
    }

    @Override
    public List<MemberWrite> updateStructures(List<byte[]> keys, Function<StructureView, List<StructureChange>> fn) {
        limits.checkKeys(keys);
        Objects.requireNonNull(fn, "fn == null");
        int slot = gate.enter();
        try {
            int[] locked = stripes.lock(keys);
            try {
                List<Record> olds = new ArrayList<>(keys.size());
                for (byte[] key : keys) olds.add(unhidden(key));
                return StructureBatch.run(structures, writer, keys, olds, fn);
            } finally {
                stripes.unlock(locked);
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public MembersImage image(byte[] key) {
        return structure(key, old -> structures.image(key, old));
    }

    @Override
    public boolean putImage(byte[] key, byte[] image, Function<RecordHeader, RecordHeader> decide) {
        Objects.requireNonNull(image, "image == null");
        Objects.requireNonNull(decide, "decide == null");
        return structure(key, old -> structures.putImage(key, old, image, decide, writer));
    }

    /**
     * Both keys' stripes held, a record hidden by a flush removed first (as {@link #structure} does):
     * {@link Structures#copy} writes the destination, then the source is written as decided.
     */
    @Override
    public MemberCopy copyMembers(
            byte[] source, byte[] destination, BiFunction<RecordHeader, RecordHeader, MemberCopy> decide) {
        limits.checkKey(source);
        limits.checkKey(destination);
        Objects.requireNonNull(decide, "decide == null");
        if (Arrays.equals(source, destination)) {
            throw new IllegalArgumentException("source and destination are the same key");
        }
        int slot = gate.enter();
        try {
            int[] locked = stripes.lock(List.of(source, destination));
            try {
                Record from = unhidden(source);
                Record to = unhidden(destination);
                MemberCopy c = decide.apply(from == null ? null : from.header(), to == null ? null : to.header());
                if (c == null) return null;
                structures.copy(source, from, destination, to, c.destination());
                if (to != null && to.isChunked()) chunks.free(to.blobId, to.valueLength);
                if (c.source() instanceof Write.Remove) writer.remove(source, from);
                else if (c.source() instanceof Write.Put put) writer.replace(source, from, put.value());
                return c;
            } finally {
                stripes.unlock(locked);
            }
        } finally {
            gate.exit(slot);
        }
    }

    /**
     * Runs {@code op} on {@code key}'s record header under the key's stripe; a record hidden by a flush
     * is removed first (its pages freed), so {@code op} sees the key as empty.
     */
    private <T> T structure(byte[] key, Function<Record, T> op) {
        limits.checkKey(key);
        int slot = gate.enter();
        try {
            ReentrantLock lock = stripes.lock(key);
            try {
                return op.apply(unhidden(key));
            } finally {
                lock.unlock();
            }
        } finally {
            gate.exit(slot);
        }
    }

    /**
     * The header of {@code key}'s record, stripe held; a record hidden by a flush is removed first (its
     * pages freed) and reads as {@code null}.
     */
    private Record unhidden(byte[] key) {
        Record old = records.header(key);
        if (old == null || !hidden(old)) return old;
        writer.remove(key, old);
        return null;
    }

    /** How many times the store was cleared: a {@link ChunkStage} of an older count lost its chunks. */
    long generation() {
        return generation;
    }

    /** The whole value of an open stage, read back from its chunks. */
    byte[] readStaged(ChunkStage stage) {
        int slot = gate.enter();
        try {
            byte[] value = chunks.read(stage.blobId, stage.length());
            if (value == null)
                throw new StorageException("the chunks of " + stage + " are gone (the store was cleared)");
            return value;
        } finally {
            gate.exit(slot);
        }
    }

    /** Gives back the room and chunks of a stage closed without a commit. */
    void release(ChunkStage stage) {
        synchronized (stageLock) {
            if (stage.generation == generation) capacity.cancel(Delta.staged(stage.length()));
        }
        int slot;
        try {
            slot = gate.enter();
        } catch (StorageException closed) {
            return; // a persisted store drops the orphaned chunks when it is opened again
        }
        try {
            chunks.free(stage.blobId, stage.length());
        } catch (RuntimeException e) {
            LOG.warn("could not free the chunks of {}: {}", stage, e.toString());
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public List<byte[]> expiredKeys(long nowMillis, int max) {
        int slot = gate.enter();
        try {
            return expiry.due(nowMillis, max);
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public long keysWithExpiry() {
        return expiry.size();
    }

    @Override
    public long size() {
        int slot = gate.enter();
        try {
            return capacity.live();
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public void forEach(BiConsumer<byte[], StoredValue> visitor) {
        Objects.requireNonNull(visitor, "visitor == null");
        int slot = gate.enter();
        try {
            records.forEachKey(key -> {
                StoredValue value = get(key);
                if (value != null) visitor.accept(key, value);
            });
        } finally {
            gate.exit(slot);
        }
    }

    /**
     * The cursor is a segment number across both record maps: the segment count of a map is fixed when
     * it is created (it never resizes or rehashes), and a key's segment is a function of its hash, so a
     * key present for the whole scan is in exactly one segment, read once.
     */
    @Override
    public long scan(long cursor, int count, BiConsumer<byte[], RecordHeader> visitor) {
        Objects.requireNonNull(visitor, "visitor == null");
        int slot = gate.enter();
        try {
            int segments = records.segments();
            if (cursor < 0 || cursor >= segments) return 0;
            int s = (int) cursor;
            int visited = 0;
            List<byte[]> keys = new ArrayList<>();
            List<Record> headers = new ArrayList<>();
            while (s < segments && visited < Math.max(1, count)) {
                keys.clear();
                headers.clear();
                records.segmentEntries(s++, keys, headers);
                for (int i = 0; i < keys.size(); i++) {
                    Record r = headers.get(i);
                    if (!r.isLive() || hidden(r)) continue; // a flushed record is gone before its sweep
                    visitor.accept(keys.get(i), r.header());
                    visited++;
                }
            }
            return s >= segments ? 0 : s;
        } finally {
            gate.exit(slot);
        }
    }

    /** A random segment first, then the next ones until one holds a key; a random key of it. */
    @Override
    public byte[] randomKey(RandomGenerator random) {
        int slot = gate.enter();
        try {
            if (capacity.live() == 0) return null;
            int segments = records.segments();
            int start = random.nextInt(segments);
            for (int i = 0; i < segments; i++) {
                byte[] key = records.randomLiveKey((start + i) % segments, random);
                if (key != null) return key;
            }
            return null;
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public void clear() {
        int slot = gate.enter();
        try {
            int[] all = stripes.lockAll();
            try {
                records.clear();
                long fills = chunkFill.writeLock();
                try {
                    chunks.clear();
                    pages.clear();
                    expiry.clear();
                    synchronized (stageLock) {
                        generation++;
                        capacity.reset(0, 0, 0, 0);
                    }
                } finally {
                    chunkFill.unlockWrite(fills);
                }
            } finally {
                stripes.unlock(all);
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public <T> T exclusive(java.util.function.Supplier<T> fn) {
        Objects.requireNonNull(fn, "fn == null");
        int slot = gate.enter();
        try {
            int[] all = stripes.lockAll();
            try {
                return fn.get();
            } finally {
                stripes.unlock(all);
            }
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public void hideBefore(TxId upTo) {
        Objects.requireNonNull(upTo, "upTo == null");
        synchronized (flushMarkLock) {
            TxId mark = hiddenBefore;
            if (mark != null && upTo.compareTo(mark) <= 0) return;
            if (dataDir != null) dataDir.writeFlushMark(upTo);
            hiddenBefore = upTo;
        }
    }

    /** True if {@code r} is before the flush mark: as good as gone. */
    private boolean hidden(Record r) {
        TxId mark = hiddenBefore;
        return mark != null && (r.epoch < mark.epoch() || (r.epoch == mark.epoch() && r.seq < mark.seq()));
    }

    /** Walks the keys segment by segment (no value read) and removes each old one under its own lock. */
    @Override
    public long removeBefore(TxId upTo) {
        Objects.requireNonNull(upTo, "upTo == null");
        int slot = gate.enter();
        try {
            long[] removed = {0};
            records.forEachKey(key -> {
                ReentrantLock lock = stripes.lock(key);
                try {
                    Record old = records.header(key);
                    if (old != null && old.header().txId().compareTo(upTo) < 0 && writer.remove(key, old)) {
                        removed[0]++;
                    }
                } finally {
                    lock.unlock();
                }
            });
            if (dataDir != null) dataDir.clearFlushMark(upTo); // the sweep up to it is over
            return removed[0];
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public long tombstones() {
        int slot = gate.enter();
        try {
            return capacity.entries() - capacity.live();
        } finally {
            gate.exit(slot);
        }
    }

    /**
     * Segment by segment: the candidates come from one read of the segment's headers (no lock of ours
     * held), then each is tested again and removed under its own stripe.
     */
    @Override
    public long removeIf(BiPredicate<byte[], RecordHeader> condition) {
        Objects.requireNonNull(condition, "condition == null");
        int slot = gate.enter();
        try {
            long removed = 0;
            List<byte[]> keys = new ArrayList<>();
            List<Record> headers = new ArrayList<>();
            int segments = records.segments();
            for (int s = 0; s < segments; s++) {
                keys.clear();
                headers.clear();
                records.segmentEntries(s, keys, headers);
                for (int i = 0; i < keys.size(); i++) {
                    byte[] key = keys.get(i);
                    Record seen = headers.get(i);
                    if (hidden(seen) || !condition.test(key, seen.header())) continue;
                    ReentrantLock lock = stripes.lock(key);
                    try {
                        Record old = records.header(key);
                        if (old != null
                                && !hidden(old)
                                && condition.test(key, old.header())
                                && writer.remove(key, old)) {
                            removed++;
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            }
            return removed;
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public StoreStats stats() {
        int slot = gate.enter();
        try {
            UndoSlots undo = dataDir == null ? null : dataDir.undo(config.maxKeyBytes());
            return new StoreStats(
                    capacity.entries(),
                    capacity.live(),
                    capacity.keyBytes(),
                    capacity.valueBytes(),
                    capacity.maxEntries(),
                    capacity.maxBytes(),
                    records.offHeapMemoryUsed() + chunks.offHeapMemoryUsed() + pages.offHeapMemoryUsed(),
                    dataDir != null,
                    pages.directories().slots(),
                    pages.directories().maxSlots(),
                    undo == null ? 0 : undo.bytes(),
                    undo == null ? 0 : undo.unguarded());
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public StoreConfig config() {
        return config;
    }

    @Override
    public void close() {
        if (!gate.close()) return;
        boolean clean = false;
        try {
            ChronicleMaps.closeAll(records, chunks, pages);
            clean = !pages.unsettled(); // else the next open repairs the structures
        } finally {
            if (dataDir != null) dataDir.close(clean);
        }
    }

    /**
     * Closes the files as a crash would leave them (no clean-shutdown marker, so the next open recovers):
     * for tests that cut a write short with {@link WriteFaults}.
     */
    void closeAsCrashed() {
        if (!gate.close()) return;
        try {
            ChronicleMaps.closeAll(records, chunks, pages);
        } finally {
            if (dataDir != null) dataDir.close(false);
        }
    }

    /** Chunks held by the value map; for tests of chunk lifecycle. */
    long chunkCount() {
        int slot = gate.enter();
        try {
            return chunks.size();
        } finally {
            gate.exit(slot);
        }
    }

    /** The pages of {@code key}'s structure's linear hash (0 if none); for tests of splits and merges. */
    int pageCountOf(byte[] key) {
        int slot = gate.enter();
        try {
            Record r = records.header(key);
            return r == null || r.members == null ? 0 : r.members.pageCount();
        } finally {
            gate.exit(slot);
        }
    }

    /** Member pages held, in all structures; for tests that pages are freed. */
    long memberPageCount() {
        int slot = gate.enter();
        try {
            return pages.size();
        } finally {
            gate.exit(slot);
        }
    }

    @Override
    public String toString() {
        return "ChronicleKvStore[" + (dataDir == null ? "memory" : dataDir.path()) + "]";
    }
}
