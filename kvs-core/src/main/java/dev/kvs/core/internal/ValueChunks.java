package dev.kvs.core.internal;

import static dev.kvs.core.internal.MapLayout.saturatedAdd;
import static dev.kvs.core.internal.MapLayout.saturatedMultiply;

import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * Values longer than {@link RecordMaps#INLINE_MAX}, split into chunks of {@link #chunkBytes()} in a
 * Chronicle map keyed by {@code (blobId << 16) | chunkIndex}. A blob is written once under a fresh id
 * and never changed, only freed; ids are never reused while the store is open. So a reader that finds
 * every chunk of a blob has read that blob whole, and one that misses a chunk knows the blob was
 * replaced and must look at the record again.
 *
 * <p>A new map's chunk is {@link #CHUNK_BYTES}. A map's file keeps the largest entry it was made for,
 * and the chunk follows from it ({@link #chunkBytesOf}), so a data dir made when chunks were {@link
 * #FIRST_CHUNK_BYTES} keeps them, with no rewrite and no mark of its own.
 */
final class ValueChunks implements AutoCloseable {
    /**
     * 128 KiB minus room for Chronicle's entry overhead, so a chunk fills 128 allocation units: a value
     * of up to 128 KiB is one Chronicle insert and one remove (a 100 kB value was two of each, 12% of
     * its SET's CPU), and a larger one half the operations of 64 KiB chunks.
     */
    static final int CHUNK_BYTES = 128 * 1024 - 64;
    /** The chunk of a map made before December 2026: 64 KiB minus the same room. */
    static final int FIRST_CHUNK_BYTES = 64 * 1024 - 64;

    private static final int ALLOCATION_UNIT = 1024;
    private static final int ENTRY_OVERHEAD = 32;
    private static final int INDEX_BITS = 16;
    /** What a chunk leaves of its entry's allocation units: the entry's overhead, twice over. */
    private static final int ENTRY_ROOM = 2 * ENTRY_OVERHEAD;

    private final ChronicleMap<Long, ValueSlice> map;
    private final int chunkBytes;
    private final AtomicLong nextBlobId = new AtomicLong(1);

    private ValueChunks(ChronicleMap<Long, ValueSlice> map) {
        this.map = map;
        this.chunkBytes = chunkBytesOf(map);
    }

    static ValueChunks open(StoreConfig config, DataDir dir) {
        return open(config, dir, CHUNK_BYTES);
    }

    /**
     * Opens the map, made for chunks of {@code chunkBytes} if it is new (an existing file keeps its own
     * size); tests make a map of older chunks so.
     */
    static ValueChunks open(StoreConfig config, DataDir dir, int chunkBytes) {
        ChronicleMapBuilder<Long, ValueSlice> b = ChronicleMap.of(Long.class, ValueSlice.class)
                .name("kvs-value-chunks")
                .valueMarshallers(ValueSliceMarshaller.INSTANCE, ValueSliceMarshaller.INSTANCE)
                .averageValueSize(chunkBytes)
                .putReturnsNull(true)
                .removeReturnsNull(true);
        return new ValueChunks(ChronicleMaps.open(layout(config, chunkBytes).applyTo(b), dir, "value-chunks.dat"));
    }

    /**
     * Room for maxBytes of values in the most chunks they can make (every value just above the inline
     * limit). Overwrites hold old and new chunks for a moment; the extra tiers cover that.
     */
    static MapLayout layout(StoreConfig config, int chunkBytes) {
        long maxBytes = config.maxBytes();
        long entries = maxBytes / chunkBytes + maxBytes / (RecordMaps.INLINE_MAX + 1) + 1;
        long payload = saturatedAdd(maxBytes, saturatedMultiply(entries, ALLOCATION_UNIT + ENTRY_OVERHEAD));
        return MapLayout.of(entries, payload, chunkBytes + ENTRY_OVERHEAD, ALLOCATION_UNIT, 2);
    }

    /**
     * The chunk a map holds: its largest entry (read from its file's header, for a persisted one) less
     * {@link #ENTRY_ROOM}, so a map made for chunks of {@code c} bytes gives {@code c} back.
     */
    static int chunkBytesOf(ChronicleMap<?, ?> map) {
        VanillaChronicleHash<?, ?, ?, ?> hash = (VanillaChronicleHash<?, ?, ?, ?>) map;
        long entryBytes = hash.maxChunksPerEntry * hash.chunkSize;
        if (entryBytes - ENTRY_ROOM < RecordMaps.INLINE_MAX || entryBytes - ENTRY_ROOM > CHUNK_BYTES) {
            throw new StorageException("a value chunks map whose entries hold " + entryBytes + " bytes: not a kvs map");
        }
        return (int) (entryBytes - ENTRY_ROOM);
    }

    /** The bytes of a whole chunk in this map. */
    int chunkBytes() {
        return chunkBytes;
    }

    /** The chunks a value of {@code valueLength} bytes makes in this map. */
    int chunkCount(int valueLength) {
        return chunkCount(valueLength, chunkBytes);
    }

    static int chunkCount(int valueLength, int chunkBytes) {
        return (int) (((long) valueLength + chunkBytes - 1) / chunkBytes);
    }

    static long blobIdOf(long chunkKey) {
        return chunkKey >>> INDEX_BITS;
    }

    private static long chunkKey(long blobId, int index) {
        return (blobId << INDEX_BITS) | index;
    }

    /** Writes {@code value} as a new blob; on failure frees what it wrote and rethrows. */
    long write(byte[] value) {
        try {
            return writeChunks(value);
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    private long writeChunks(byte[] value) {
        long blobId = nextBlobId.getAndIncrement();
        int chunks = chunkCount(value.length);
        int written = 0;
        try {
            for (; written < chunks; written++) {
                int offset = written * chunkBytes;
                int length = Math.min(chunkBytes, value.length - offset);
                map.put(chunkKey(blobId, written), new ValueSlice(value, offset, length));
            }
            return blobId;
        } catch (RuntimeException e) {
            try {
                removeChunks(blobId, Math.min(written + 1, chunks));
            } catch (RuntimeException f) {
                e.addSuppressed(f);
            }
            throw e;
        }
    }

    /** A fresh blob id, for a value written chunk by chunk ({@link #writeChunk}). */
    long newBlobId() {
        return nextBlobId.getAndIncrement();
    }

    /**
     * Writes chunk {@code index} of blob {@code blobId} from {@code array[offset, offset + length)}: a
     * whole chunk ({@link #chunkBytes}, or less for a value's last one).
     */
    void writeChunk(long blobId, int index, byte[] array, int offset, int length) {
        try {
            map.put(chunkKey(blobId, index), new ValueSlice(array, offset, length));
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /**
     * Writes chunk {@code index} of blob {@code blobId} from the next {@code length} bytes of {@code
     * src} (a network buffer, say) with one copy, and advances it past them once stored.
     */
    void writeChunk(long blobId, int index, ByteBuffer src, int length) {
        try {
            map.put(chunkKey(blobId, index), new ValueSlice(src, length));
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
        src.position(src.position() + length);
    }

    /**
     * Stores chunk {@code index} of blob {@code blobId}, {@code length} bytes, with its bytes unwritten,
     * and returns their address: the caller fills them in place, before any reader may read the chunk
     * and while nothing can free it (the entry's memory stays where it is until the chunk is removed or
     * the map cleared or closed).
     */
    long reserveChunk(long blobId, int index, int length) {
        ValueSlice reserved = ValueSlice.reservation(length);
        try {
            map.put(chunkKey(blobId, index), reserved);
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
        return reserved.address;
    }

    /** The value of blob {@code blobId}, or null if one of its chunks is gone (the blob was freed). */
    byte[] read(long blobId, int length) {
        byte[] value = new byte[length];
        int chunks = chunkCount(length);
        try {
            for (int i = 0; i < chunks; i++) {
                int offset = i * chunkBytes;
                ValueSlice into = new ValueSlice(value, offset, Math.min(chunkBytes, length - offset));
                if (map.getUsing(chunkKey(blobId, i), into) == null) return null;
            }
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
        return value;
    }

    /**
     * Copies the value of blob {@code blobId} into {@code buffer} from its position, advancing it; false
     * if one of its chunks is gone (the blob was freed; the buffer then holds part of it).
     */
    boolean readInto(long blobId, int length, ByteBuffer buffer) {
        int chunks = chunkCount(length);
        try {
            for (int i = 0; i < chunks; i++) {
                int n = Math.min(chunkBytes, length - i * chunkBytes);
                if (map.getUsing(chunkKey(blobId, i), new ValueSlice(buffer, n)) == null) return false;
            }
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
        return true;
    }

    /**
     * Copies bytes {@code [offset, offset + count)} of blob {@code blobId} (a value of {@code length}
     * bytes) into {@code buffer} from its position, advancing it, one memory copy per stored chunk the
     * range touches; false if one of those chunks is gone (the blob was freed; the buffer then holds
     * part of the range).
     */
    boolean readRangeInto(long blobId, int length, int offset, int count, ByteBuffer buffer) {
        int end = offset + count;
        try {
            for (int at = offset; at < end; ) {
                int i = at / chunkBytes;
                int chunkStart = i * chunkBytes;
                int stored = Math.min(chunkBytes, length - chunkStart);
                int n = Math.min(end, chunkStart + stored) - at;
                if (map.getUsing(chunkKey(blobId, i), new ValueSlice(buffer, stored, at - chunkStart, n)) == null) {
                    return false;
                }
                at += n;
            }
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
        return true;
    }

    void free(long blobId, int length) {
        removeChunks(blobId, chunkCount(length));
    }

    private void removeChunks(long blobId, int count) {
        try {
            for (int i = 0; i < count; i++) map.remove(chunkKey(blobId, i));
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /**
     * After a restart: removes chunks of blobs no record references (a crash between writing a value
     * and switching its record, or between switching and freeing the old value), and makes new blob
     * ids follow every id seen.
     *
     * @return chunks removed
     */
    long recover(LongPredicate referenced, long maxReferencedBlobId) {
        List<Long> orphans = new ArrayList<>();
        long[] maxSeen = {maxReferencedBlobId};
        map.forEachEntry(e -> {
            long key = e.key().get();
            long blobId = blobIdOf(key);
            maxSeen[0] = Math.max(maxSeen[0], blobId);
            if (!referenced.test(blobId)) orphans.add(key);
        });
        for (Long key : orphans) map.remove(key);
        nextBlobId.set(maxSeen[0] + 1);
        return orphans.size();
    }

    long size() {
        return map.longSize();
    }

    void clear() {
        try {
            map.clear();
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    long offHeapMemoryUsed() {
        return map.offHeapMemoryUsed();
    }

    @Override
    public void close() {
        map.close();
    }
}
