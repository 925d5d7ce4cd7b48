package dev.kvs.core.internal;

import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.core.Memory;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.hash.impl.CompactOffHeapLinearHashTable;
import net.openhft.chronicle.hash.impl.HashSplitting;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * Brings into the CPU's cache, for a batch of keys, the memory each key's lookup in one Chronicle map
 * will read first: the key's slot in its segment's hash lookup, then the start of the entry that slot
 * names. The lookups that follow find those lines in cache.
 *
 * <p>Why (issue 36): a 1 KiB {@code SET} of a random key spent a fifth of its CPU in two memory misses,
 * the hash slot and the entry's first byte, each waited for alone, one SET after the other. Read here
 * for the sixteen keys of a pipelined read at once, the misses overlap: the loads of one pass do not
 * depend on each other.
 *
 * <p>It computes the addresses as Chronicle's query context does ({@code CompiledMapQueryContext}: the
 * key's xxHash r39, split into segment and segment hash, the slot at {@code hlPos} of the segment's
 * first tier, the entry at {@code pos * chunkSize} of its entry space), reading Chronicle's layout from
 * the map's public fields. It only reads, and only inside the segment's first tier; a guess that is
 * wrong (a key in an extra tier, a slot another thread rewrites meanwhile, a layout that changed) costs
 * a wasted load, never a wrong answer. A slot keeps only some bits of its key's hash, so the guess may
 * also be another key's entry whose slot holds the same bits (Chronicle then compares the keys and walks
 * on). {@code LookupPrefetchTest} checks that the guess is the key's entry or such another key's.
 *
 * <p>The caller keeps the map open while it runs (the store's gate).
 */
final class LookupPrefetch {
    private static final LongHashFunction XX = LongHashFunction.xx_r39();
    private static final Memory MEMORY = OS.memory();

    /** Slots a lookup walks past a slot of another key before it gives up here (they share a line). */
    private static final int PROBES = 4;

    private final VanillaChronicleHash<?, ?, ?, ?> hash;
    private final CompactOffHeapLinearHashTable lookup;
    private final HashSplitting split;
    private final int maxKeyBytes;
    private final long tierSize;
    private final long entrySpaceOffset;
    private final long chunkSize;
    private final long chunksPerTier;

    /** For {@code map}'s keys of up to {@code maxKeyBytes} (longer ones are skipped). */
    LookupPrefetch(ChronicleMap<?, ?> map, int maxKeyBytes) {
        this.hash = (VanillaChronicleHash<?, ?, ?, ?>) map;
        this.lookup = hash.hashLookup;
        this.split = hash.hashSplitting;
        this.maxKeyBytes = maxKeyBytes;
        this.tierSize = hash.tierSize;
        this.entrySpaceOffset = hash.tierHashLookupOuterSize
                + VanillaChronicleHash.TIER_COUNTERS_AREA_SIZE
                + hash.tierFreeListOuterSize
                + hash.tierEntrySpaceInnerOffset;
        this.chunkSize = hash.chunkSize;
        this.chunksPerTier = hash.actualChunksPerSegmentTier;
    }

    /**
     * Reads the hash slots, then the entries, of {@code keys[0, n)}; returns a value made of what it read
     * (for the caller to keep, so that the loads are not dropped as unused).
     */
    long touch(byte[][] keys, int n) {
        long[] tier = new long[n]; // 0: skipped
        long[] want = new long[n];
        long first = hash.segmentBaseAddr(0);
        for (int i = 0; i < n; i++) {
            byte[] key = keys[i];
            if (key.length > maxKeyBytes) continue;
            long h = XX.hashBytes(key);
            want[i] = searchKey(h);
            tier[i] = tier(first, h);
        }
        long[] slot = new long[n];
        for (int i = 0; i < n; i++) { // n loads that do not depend on each other: their misses overlap
            if (tier[i] != 0) slot[i] = lookup.readEntry(tier[i], lookup.hlPos(want[i]));
        }
        long seen = 0;
        for (int i = 0; i < n; i++) {
            if (tier[i] == 0) continue;
            long entry = entry(tier[i], want[i], slot[i]);
            if (entry != 0) seen += MEMORY.readByte(entry); // again independent loads
        }
        return seen;
    }

    /**
     * The address of {@code key}'s entry as {@link #touch} guesses it (its first byte is the key's size),
     * or 0 if it guesses none (the key is absent, or not in its segment's first tier). The guess may be
     * another key's entry whose slot holds the same bits of its hash. For tests.
     */
    long entryAddress(byte[] key) {
        if (key.length > maxKeyBytes) return 0;
        long h = XX.hashBytes(key);
        long want = searchKey(h);
        long tier = tier(hash.segmentBaseAddr(0), h);
        return entry(tier, want, lookup.readEntry(tier, lookup.hlPos(want)));
    }

    private long searchKey(long keyHash) {
        return lookup.maskUnsetKey(split.segmentHash(keyHash));
    }

    /** The address of the first tier of the segment of {@code keyHash}; {@code first}: segment 0's. */
    private long tier(long first, long keyHash) {
        return first + split.segmentIndex(keyHash) * tierSize;
    }

    /**
     * The address of the entry whose slot holds {@code want}, from the slot where the search starts, which
     * holds {@code slot}; the slots after it if it holds another key's (the same cache line, mostly), as
     * Chronicle's lookup walks them. 0 if none of {@link #PROBES} slots does, or the slot is torn.
     */
    private long entry(long tier, long want, long slot) {
        long pos = lookup.hlPos(want);
        for (int p = 0; p < PROBES && !lookup.empty(slot) && lookup.key(slot) != want; p++) {
            pos = lookup.step(pos);
            slot = lookup.readEntry(tier, pos);
        }
        if (lookup.empty(slot) || lookup.key(slot) != want) return 0;
        long chunk = lookup.value(slot);
        return chunk < chunksPerTier ? tier + entrySpaceOffset + chunk * chunkSize : 0;
    }
}
