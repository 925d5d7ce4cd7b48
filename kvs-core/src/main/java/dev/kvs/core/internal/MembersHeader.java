package dev.kvs.core.internal;

import java.nio.ByteBuffer;

/**
 * What a structure's record says about its {@link MemberPages}: immutable, a few numbers, rewritten on
 * every write. The caller keeps it (in the key's record) and passes it to every page operation, which
 * returns the next one.
 *
 * @param count members
 * @param pageCount pages of the linear hash ({@link PageAddress}); 0 when empty
 * @param storedPages pages holding at least one member (an empty page has no entry)
 * @param digest sum of a 64-bit hash of each (member, value): equal contents give an equal digest
 *     whatever the history, and a write updates it in O(1)
 * @param bytes bytes of members, values and their length prefixes in the pages
 */
record MembersHeader(long count, int pageCount, int storedPages, long digest, long bytes) {
    static final MembersHeader EMPTY = new MembersHeader(0, 0, 0, 0, 0);
    /** Length of {@link #writeTo}'s form. */
    static final int BYTES = 8 + 4 + 4 + 8 + 8;
    /** Chronicle's bytes per stored page besides its key and value, estimated like the records'. */
    static final int PAGE_OVERHEAD = 16;

    MembersHeader {
        if (count < 0) throw new IllegalArgumentException("count < 0: " + count);
        if (pageCount < 0 || pageCount > PageAddress.MAX_PAGES) {
            throw new IllegalArgumentException("pageCount out of range: " + pageCount);
        }
        if (storedPages < 0 || storedPages > pageCount) {
            throw new IllegalArgumentException("storedPages " + storedPages + " not in [0, " + pageCount + "]");
        }
        if (bytes < 0) throw new IllegalArgumentException("bytes < 0: " + bytes);
        if ((count == 0) != (storedPages == 0)) {
            throw new IllegalArgumentException("count " + count + " with " + storedPages + " stored pages");
        }
    }

    boolean isEmpty() {
        return count == 0;
    }

    /**
     * The bytes the structure holds in the pages map, for the store's {@code maxBytes}: its members
     * and values, and each stored page's key ({@code keyLength} + 8) and entry overhead.
     */
    long footprint(int keyLength) {
        return bytes + (long) storedPages * (keyLength + MemberPages.PAGE_KEY_EXTRA + PAGE_OVERHEAD);
    }

    void writeTo(ByteBuffer out) {
        out.putLong(count).putInt(pageCount).putInt(storedPages).putLong(digest).putLong(bytes);
    }

    /** @throws IllegalArgumentException if the numbers read are not a header's */
    static MembersHeader readFrom(ByteBuffer in) {
        return new MembersHeader(in.getLong(), in.getInt(), in.getInt(), in.getLong(), in.getLong());
    }
}
