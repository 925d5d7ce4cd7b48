package dev.kvs.core.internal;

/**
 * Linear hashing with no directory: where a member of a structure of {@code n} pages lives, which page
 * splits next and which merges, and the reverse-binary scan cursor over those pages.
 *
 * <p>With {@code n} pages, {@code L = floor(log2 n)} and split pointer {@code s = n - 2^L}, a member
 * whose hash has low bits {@code h} lives in page {@code h mod 2^L}, or {@code h mod 2^(L+1)} if that
 * is below {@code s}. So a page holds exactly the hashes whose low {@code depth} bits equal its number:
 * the pages are the leaves of a binary trie on the hash's low bits, and {@code n} alone says the whole
 * shape (the header stays a few numbers). Growing splits page {@code s} into {@code s} and {@code n};
 * shrinking merges page {@code n - 1} back into the page it was split from.
 *
 * <p>A scan cursor is a 32-bit position in the order of the hash's low bits read backwards (Redis's
 * {@code dictScan} order). Every page is one interval of that order at any {@code n}, so a scan that
 * visits the page holding the cursor and moves to the end of that page's interval never skips a
 * position, whatever splits or merges happened between calls: a member present throughout is returned
 * at least once; one whose page got coarser may be returned twice.
 */
final class PageAddress {
    /** Pages of one structure at most: the scan cursor and page numbers are 32 bits. */
    static final int MAX_PAGES = 1 << 30;

    private PageAddress() {}

    /** The page of {@code n >= 1} holding a member whose hash is {@code hash}. */
    static int pageOf(long hash, int n) {
        int level = level(n);
        long low = hash & ((1L << level) - 1);
        if (low < n - (1L << level)) low = hash & ((1L << (level + 1)) - 1);
        return (int) low;
    }

    /** How many low hash bits page {@code p} of {@code n} pages is defined by. */
    static int depth(int p, int n) {
        int level = level(n);
        int split = n - (1 << level);
        return p < split || p >= 1 << level ? level + 1 : level;
    }

    /** The page that splits when {@code n} pages grow to {@code n + 1}; its moving members have bit {@link #level}. */
    static int splitting(int n) {
        return n - (1 << level(n));
    }

    /** The page that page {@code p >= 1} was split from, and merges back into. */
    static int parent(int p) {
        return p - Integer.highestOneBit(p);
    }

    static int level(int n) {
        if (n < 1) throw new IllegalArgumentException("n < 1: " + n);
        return 31 - Integer.numberOfLeadingZeros(n);
    }

    /** The page a scan at {@code cursor} reads next (the cursor's low 32 bits are its position). */
    static int pageAt(long cursor, int n) {
        return pageOf(cursor & 0xFFFF_FFFFL, n);
    }

    /**
     * The cursor after page {@code p} of {@code n}: the first position past that page's interval in
     * reverse-binary order, or 0 when the scan has covered every position.
     */
    static long after(long cursor, int p, int n) {
        int depth = depth(p, n);
        int v = (int) cursor;
        int mask = depth >= 32 ? -1 : (1 << depth) - 1;
        v |= ~mask;
        v = Integer.reverse(Integer.reverse(v) + 1);
        return Integer.toUnsignedLong(v);
    }
}
