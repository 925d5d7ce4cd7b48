package dev.kvs.core;

/**
 * A point-in-time view of a store's use and limits.
 *
 * @param entries records held (tombstones included)
 * @param liveEntries records that are not tombstones (what {@code DBSIZE} reports)
 * @param keyBytes bytes of keys held
 * @param valueBytes bytes of values held
 * @param maxEntries configured entry capacity
 * @param maxBytes configured key + value byte capacity
 * @param offHeapBytes off-heap memory reserved by the backing maps
 * @param persistent whether the store is backed by files
 * @param pageDirectorySlots slots of the large hashes' and sets' page directories, each where one page
 *     lies, and the slots the pages' indexes take as bytes (on the heap, about 28 bytes each; a cache:
 *     dropped whole when full)
 * @param maxPageDirectorySlots the bound on {@code pageDirectorySlots}
 * @param undoSlotBytes bytes of the file that keeps, while a write overwrites a record or page in place,
 *     what it held, so that a kill in the middle of the copy loses nothing (0 in memory)
 * @param unguardedWrites writes since the store opened that overwrote a record or page with no undo
 *     slot free of their size: a kill in the middle of one would fence its key instead
 */
public record StoreStats(
        long entries,
        long liveEntries,
        long keyBytes,
        long valueBytes,
        long maxEntries,
        long maxBytes,
        long offHeapBytes,
        boolean persistent,
        long pageDirectorySlots,
        long maxPageDirectorySlots,
        long undoSlotBytes,
        long unguardedWrites) {

    /** A store with no page directories and no undo slots. */
    public StoreStats(
            long entries,
            long liveEntries,
            long keyBytes,
            long valueBytes,
            long maxEntries,
            long maxBytes,
            long offHeapBytes,
            boolean persistent) {
        this(entries, liveEntries, keyBytes, valueBytes, maxEntries, maxBytes, offHeapBytes, persistent, 0, 0, 0, 0);
    }
}
