package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.Write;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The write side of {@link ChronicleKvStore}: keeps records, value chunks and {@link Capacity} in
 * step. Every method expects the caller to hold the stripes of the keys it writes. A large value is
 * written under a fresh blob id before its record points to it, and the old blob is freed only after
 * the record moved on, which is what lets readers go without locks.
 */
final class RecordWriter {
    private final RecordMaps records;
    private final ValueChunks chunks;
    private final Capacity capacity;
    private final SizeLimits limits;
    private final ExpiryIndex expiry;
    private final MemberPages pages;

    RecordWriter(
            RecordMaps records,
            ValueChunks chunks,
            MemberPages pages,
            Capacity capacity,
            SizeLimits limits,
            ExpiryIndex expiry) {
        this.records = records;
        this.pages = pages;
        this.chunks = chunks;
        this.capacity = capacity;
        this.limits = limits;
        this.expiry = expiry;
    }

    /**
     * The SET hot path, stripe held. A value stored inside its record is written by one Chronicle
     * query that finds the old record and, under the segment's lock, reserves exactly the growth the
     * write makes: an overwrite with a value of the same size touches no shared counter. A larger
     * value's chunks are written before its record, so room is reserved first as if the key were new,
     * and what the overwrite did not use is given back; near the limits, where that reservation could
     * fail, the old record is read first instead.
     */
    void put(byte[] key, StoredValue value) {
        if (value.value().length <= RecordMaps.INLINE_MAX) {
            putInline(key, value);
            return;
        }
        Delta asNew = Delta.of(key.length, false, false, 0, value);
        if (!capacity.tryReserve(asNew)) {
            replace(key, records.header(key), value);
            return;
        }
        Record old;
        try {
            old = store(key, value);
        } catch (RuntimeException e) {
            capacity.cancel(asNew);
            throw e;
        }
        capacity.settle(asNew, deltaOf(key, old, value));
        free(key, old);
    }

    private void putInline(byte[] key, StoredValue value) {
        Reservation r = new Reservation(key, value);
        Record old = records.put(key, Record.inline(value), r);
        capacity.commit(r.delta);
        if (old != null) expiry.remove(key, old.expireAt);
        expiry.add(key, value.header().expireAtMillis());
        free(key, old);
    }

    /** Reserves, under the segment lock, exactly the growth of writing {@code value} over the old record. */
    private final class Reservation implements RecordMaps.PutGuard {
        private final byte[] key;
        private final StoredValue value;
        /** What the write changes, once {@link #before} has seen the old record. */
        Delta delta;

        Reservation(byte[] key, StoredValue value) {
            this.key = key;
            this.value = value;
        }

        @Override
        public void before(Record old) {
            delta = deltaOf(key, old, value);
            capacity.reserve(delta);
        }

        @Override
        public void failed(Record old) {
            capacity.cancel(delta);
        }
    }

    /** Replaces {@code old} (the header of key's record, or null) with {@code value}; stripe held. */
    void replace(byte[] key, Record old, StoredValue value) {
        Delta delta = deltaOf(key, old, value);
        capacity.reserve(delta);
        try {
            store(key, value);
        } catch (RuntimeException e) {
            capacity.cancel(delta);
            throw e;
        }
        capacity.commit(delta);
        free(key, old);
    }

    /**
     * Makes the staged blob {@code blobId} (whose room the stage reserved) key's record with {@code
     * header}, replacing {@code old} (its header, or null); stripe held. Reserves
     * what the record adds besides the value (a new key's entry and key bytes) and frees the old value.
     */
    void putStaged(byte[] key, Record old, RecordHeader header, long blobId) {
        // the value's own bytes were reserved by the stage: what is left is the record as if its value were empty
        Delta rest = Delta.ofLive(
                key.length,
                old != null,
                old != null && old.isLive(),
                old == null ? 0 : old.storedValueBytes(key.length),
                0);
        capacity.reserve(rest);
        try {
            records.put(key, Record.chunked(header, blobId));
        } catch (RuntimeException e) {
            capacity.cancel(rest);
            throw e;
        }
        capacity.commit(rest);
        if (old != null) expiry.remove(key, old.expireAt);
        expiry.add(key, header.expireAtMillis());
        free(key, old);
    }

    /**
     * Replaces {@code old} (the header of key's record, or null) with the complete structure {@code
     * header} whose pages {@code build} writes; stripe held. Room for {@code valueBytes} (an upper bound
     * of the structure's footprint) is reserved first, so a full store refuses with nothing changed. An
     * old structure's pages are removed before {@code build} runs (it needs a key without pages; member
     * readers take the stripe), an old string's chunks after the record moved on (readers of strings
     * take no lock). If {@code build} or the record's write fails after that, the key is removed.
     *
     * @return the record written
     */
    Record replaceWithStructure(
            byte[] key,
            Record old,
            RecordHeader header,
            long valueBytes,
            java.util.function.Supplier<MembersHeader> build) {
        long oldBytes = old == null ? 0 : old.storedValueBytes(key.length);
        boolean oldLive = old != null && old.isLive();
        Delta reserved = Delta.ofLive(key.length, old != null, oldLive, oldBytes, valueBytes);
        capacity.reserve(reserved);
        Record next;
        try {
            if (old != null && old.members != null) pages.deleteAll(key, old.members);
            next = Record.structure(header, build.get());
            records.put(key, next);
        } catch (RuntimeException e) {
            capacity.cancel(reserved);
            if (old != null && old.members != null) {
                try {
                    records.remove(key);
                    expiry.remove(key, old.expireAt);
                    capacity.commit(deltaOf(key, old, null));
                } catch (RuntimeException f) {
                    e.addSuppressed(f);
                }
            }
            throw e;
        }
        capacity.settle(
                reserved, Delta.ofLive(key.length, old != null, oldLive, oldBytes, next.storedValueBytes(key.length)));
        if (old != null) expiry.remove(key, old.expireAt);
        expiry.add(key, header.expireAtMillis());
        if (old != null && old.isChunked()) chunks.free(old.blobId, old.valueLength);
        return next;
    }

    boolean remove(byte[] key, Record old) {
        if (old == null) return false;
        records.remove(key);
        expiry.remove(key, old.expireAt);
        capacity.commit(deltaOf(key, old, null));
        free(key, old);
        return true;
    }

    /**
     * Frees what the replaced or removed record {@code old} held apart from itself: its value chunks, or
     * a structure's member pages (all of them now, under the key's lock; a very large structure should
     * later be unlinked at once and its pages swept in the background, like tombstones).
     */
    private void free(byte[] key, Record old) {
        if (old == null) return;
        if (old.isChunked()) chunks.free(old.blobId, old.valueLength);
        else if (old.members != null) pages.deleteAll(key, old.members);
    }

    /**
     * Writes key's new record, its value chunks first if it has any; on failure frees them.
     *
     * @return the header of the record it replaced (no inline value), or null
     */
    private Record store(byte[] key, StoredValue value) {
        Record old = storeRecord(key, value);
        if (old != null) expiry.remove(key, old.expireAt);
        expiry.add(key, value.header().expireAtMillis());
        return old;
    }

    private Record storeRecord(byte[] key, StoredValue value) {
        byte[] bytes = value.value();
        if (bytes.length <= RecordMaps.INLINE_MAX) return records.put(key, Record.inline(value));
        long blobId = chunks.write(bytes);
        try {
            return records.put(key, Record.chunked(value.header(), blobId));
        } catch (RuntimeException e) {
            try {
                chunks.free(blobId, bytes.length);
            } catch (RuntimeException f) {
                e.addSuppressed(f);
            }
            throw e;
        }
    }

    private static Delta deltaOf(byte[] key, Record old, StoredValue next) {
        return Delta.of(
                key.length,
                old != null,
                old != null && old.isLive(),
                old == null ? 0 : old.storedValueBytes(key.length),
                next);
    }

    /**
     * Applies {@code fn}'s writes to {@code keys} all or nothing: room for the batch's net growth is
     * reserved first, and if a write fails midway the records already replaced are put back.
     */
    List<Write> updateAll(List<byte[]> keys, Function<List<RecordHeader>, List<Write>> fn) {
        Map<ByteKey, Record> olds = new HashMap<>(); // whole records: undo puts them back as they were
        List<RecordHeader> headers = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            ByteKey k = new ByteKey(key);
            if (!olds.containsKey(k)) olds.put(k, records.get(key));
            Record old = olds.get(k);
            headers.add(old == null ? null : old.header());
        }
        List<Write> writes = fn.apply(Collections.unmodifiableList(headers));
        LinkedHashMap<ByteKey, Write> effective = BatchWrites.effective(keys, writes, limits);
        Delta total = Delta.NONE;
        for (Map.Entry<ByteKey, Write> e : effective.entrySet()) {
            StoredValue next = e.getValue() instanceof Write.Put put ? put.value() : null;
            total = total.plus(deltaOf(e.getKey().bytes(), olds.get(e.getKey()), next));
        }
        capacity.reserve(total);
        List<ByteKey> applied = new ArrayList<>(effective.size());
        try {
            for (Map.Entry<ByteKey, Write> e : effective.entrySet()) {
                byte[] key = e.getKey().bytes();
                Record old = olds.get(e.getKey());
                if (e.getValue() instanceof Write.Put put) store(key, put.value());
                else if (old != null) {
                    records.remove(key);
                    expiry.remove(key, old.expireAt);
                }
                applied.add(e.getKey());
            }
        } catch (RuntimeException e) {
            undo(applied, olds, e);
            capacity.cancel(total);
            throw e;
        }
        capacity.commit(total);
        for (ByteKey k : applied) free(k.bytes(), olds.get(k));
        return writes;
    }

    /** Puts back the records {@code applied} replaced; old chunks were kept for this. */
    private void undo(List<ByteKey> applied, Map<ByteKey, Record> olds, RuntimeException cause) {
        for (int i = applied.size() - 1; i >= 0; i--) {
            ByteKey k = applied.get(i);
            try {
                Record now = records.header(k.bytes());
                Record old = olds.get(k);
                if (old == null) records.remove(k.bytes());
                else records.put(k.bytes(), old);
                if (now != null) expiry.remove(k.bytes(), now.expireAt);
                if (old != null) expiry.add(k.bytes(), old.expireAt);
                if (now != null && now.isChunked()) chunks.free(now.blobId, now.valueLength);
            } catch (RuntimeException e) {
                cause.addSuppressed(e);
                throw new StorageException("batch failed and could not be undone: " + cause, cause);
            }
        }
    }
}
