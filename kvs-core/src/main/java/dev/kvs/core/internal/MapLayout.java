package dev.kvs.core.internal;

import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * Chronicle Map's low-level sizing knobs, computed from what a map must hold.
 *
 * <p>Measured on Chronicle Map 2026.1: a map holds what its segment tiers hold, and when a segment
 * fills it takes an extra tier from a pool of {@code maxBloatFactor * segments} tiers; past that
 * every insert throws. One entry must fit in one tier ({@code actualChunksPerSegmentTier} chunks),
 * which Chronicle's automatic sizing makes far too small for a 64 KiB key in a small map. So we set
 * every knob: tiers always hold two of the largest entries, the first tiers hold {@code 1/divisor} of
 * the need (with {@link #HEADROOM}), and the pool of extra tiers grows that to {@code 1 + divisor}
 * times. Extra tiers are allocated (and, persisted, added to the file) only when needed, but make
 * lookups in that segment walk a chain, so a divisor above 1 is for maps off the GET hot path.
 *
 * @param segments a power of two
 * @param entriesPerSegment entries the first tier of a segment is sized for
 * @param chunkSize the allocation unit of entry space, bytes
 * @param chunksPerTier chunks of entry space per tier
 * @param maxChunksPerEntry chunks of the largest entry
 * @param maxBloatFactor extra tiers per segment
 */
record MapLayout(
        int segments,
        long entriesPerSegment,
        int chunkSize,
        long chunksPerTier,
        int maxChunksPerEntry,
        double maxBloatFactor) {
    static final double HEADROOM = 1.25;
    private static final long ENTRIES_PER_SEGMENT = 2048;
    private static final int MIN_SEGMENTS = 4;
    private static final int MAX_SEGMENTS = 1024;
    private static final long MIN_ENTRIES_PER_SEGMENT = 16;

    /**
     * @param entries most entries the map must hold
     * @param payloadBytes most bytes of entries (keys, values, overheads) it must hold
     * @param maxEntryBytes bytes of the largest entry
     * @param chunkSize allocation unit
     * @param divisor part of the capacity allocated when the map is created is {@code 1/divisor}
     */
    static MapLayout of(long entries, long payloadBytes, long maxEntryBytes, int chunkSize, int divisor) {
        if (entries <= 0) throw new IllegalArgumentException("entries <= 0: " + entries);
        if (payloadBytes <= 0) throw new IllegalArgumentException("payloadBytes <= 0: " + payloadBytes);
        if (chunkSize <= 0) throw new IllegalArgumentException("chunkSize <= 0: " + chunkSize);
        if (divisor < 1) throw new IllegalArgumentException("divisor < 1: " + divisor);
        double baseEntries = entries * HEADROOM / divisor;
        int segments = (int) Math.min(
                MAX_SEGMENTS, Math.max(MIN_SEGMENTS, ceilPow2((long) Math.ceil(baseEntries / ENTRIES_PER_SEGMENT))));
        long perSegment = Math.max(MIN_ENTRIES_PER_SEGMENT, (long) Math.ceil(baseEntries / segments));
        long maxEntryChunks = ceilDiv(maxEntryBytes, chunkSize);
        if (maxEntryChunks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxEntryBytes too large: " + maxEntryBytes);
        }
        long chunks = (long) Math.ceil(payloadBytes * HEADROOM / divisor / segments / chunkSize);
        long chunksPerTier = Math.max(Math.max(chunks, 2 * maxEntryChunks), perSegment);
        return new MapLayout(segments, perSegment, chunkSize, chunksPerTier, (int) maxEntryChunks, divisor);
    }

    /** Entry space reserved when the map is created, bytes. */
    long baseBytes() {
        return segments * chunksPerTier * chunkSize;
    }

    <K, V> ChronicleMapBuilder<K, V> applyTo(ChronicleMapBuilder<K, V> builder) {
        return builder.actualSegments(segments)
                .entriesPerSegment(entriesPerSegment)
                .actualChunkSize(chunkSize)
                .actualChunksPerSegmentTier(chunksPerTier)
                .maxChunksPerEntry(maxChunksPerEntry)
                .maxBloatFactor(maxBloatFactor);
    }

    /** {@code a * b}, or {@link Long#MAX_VALUE} if that overflows: sizes are only estimates. */
    static long saturatedMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high == 0 && low >= 0 ? low : Long.MAX_VALUE;
    }

    static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static long ceilPow2(long n) {
        return n <= 1 ? 1 : Long.highestOneBit(n - 1) << 1;
    }
}
