package dev.kvs.core.internal;

import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How an in-memory pages map ({@link MemberPages}) sees a page key: as {@link KeyBytesAccess}, but hashed
 * so that the pages of one structure lie together in memory. Chronicle picks a key's segment from the low
 * bits of its hash and the key's slot in the segment from the bits above them; here the segment bits
 * come from the structure's key and the page number's {@link #GROUP_PAGES}-page group, and the bits
 * above from the key and the page number itself. So a group's pages share one segment: their hash slots
 * lie in that segment's table and their entries in its entry space, not each in another segment. A
 * SADD of a member already in a set of 100,000 spent 13% of the node's CPU on the miss of its page's
 * hash slot (issue 35); with the pages grouped, 7%.
 *
 * <p>Only for a map in memory. Chronicle's recovery of a persisted map after a crash, and its entry
 * checksums (on in a persisted map), hash each stored key's raw bytes with xxHash r39 (its {@code
 * IterationKeyHashCode}), not through the map's data access: under this hash a recovery would find
 * every page in the wrong segment and drop it. A map in memory is never recovered and has no
 * checksums, and {@link MemberPages} only reads keys when it iterates one. A map's file keeps {@link
 * KeyBytesAccess}, whose hash is the raw one.
 *
 * <p>The segment mask is a property of the map, written into its header ({@link #writeMarshallable}).
 *
 * <p>Not thread-safe: Chronicle {@linkplain #copy() copies} a data access per query context.
 */
class PageKeyAccess extends KeyBytesAccess {
    /** Consecutive page numbers that share a segment. */
    static final int GROUP_PAGES = 64;

    private static final int GROUP_SHIFT = Integer.numberOfTrailingZeros(GROUP_PAGES);
    private static final long PAGE_MIX = 0x9E37_79B9_7F4A_7C15L;
    private static final long GROUP_MIX = 0xC2B2_AE3D_27D4_EB4FL;

    /** Bits of a hash Chronicle takes as the segment index ({@code log2(segments)}). */
    private int segmentBits;

    private transient long segmentMask;

    /** For Chronicle, which makes one to read a map's header: the header then sets its bits. */
    PageKeyAccess() {}

    /** @param segments the map's segment count, a power of two */
    PageKeyAccess(int segments) {
        if (Integer.bitCount(segments) != 1)
            throw new IllegalArgumentException("segments not a power of two: " + segments);
        init(Integer.numberOfTrailingZeros(segments));
    }

    private void init(int bits) {
        if (bits < 0 || bits > 30) throw new IllegalArgumentException("segment bits out of range: " + bits);
        segmentBits = bits;
        segmentMask = (1L << bits) - 1;
    }

    @Override
    public long hash(LongHashFunction f) {
        byte[] a = get();
        int keyLength = a.length - MemberPages.PAGE_KEY_EXTRA;
        long key = f.hashBytes(a, 4, keyLength);
        int page = MemberPages.getInt(a, a.length - 4); // MemberPages.pageKey's last four bytes
        long own = mix(key ^ (PAGE_MIX * (page + 1L)));
        long group = mix(key ^ (GROUP_MIX * ((page >>> GROUP_SHIFT) + 1L)));
        return (own & ~segmentMask) | (group & segmentMask);
    }

    /** The finaliser of SplitMix64: every input bit moves every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public DataAccess<byte[]> copy() {
        PageKeyAccess copy = new PageKeyAccess();
        copy.init(segmentBits);
        return copy;
    }

    @Override
    public void writeMarshallable(WireOut wire) {
        wire.write("segmentBits").int32(segmentBits);
    }

    @Override
    public void readMarshallable(WireIn wire) {
        uninit();
        init(wire.read("segmentBits").int32());
    }
}
