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
 */
public record StoreStats(
        long entries,
        long liveEntries,
        long keyBytes,
        long valueBytes,
        long maxEntries,
        long maxBytes,
        long offHeapBytes,
        boolean persistent) {}
