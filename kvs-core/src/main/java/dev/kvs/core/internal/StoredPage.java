package dev.kvs.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import net.openhft.chronicle.core.UnsafeMemory;
import sun.misc.Unsafe;

/**
 * A {@link MemberPage} read where it lies in the pages map (a stored entry's value under its query
 * context's lock), without copying it: for the reads that decide a write needs no copy of the page. A
 * put of a value a member already has would otherwise copy the whole page (about {@link
 * MemberPages#PAGE_TARGET} bytes) to read a few of its bytes.
 * Same format and results as {@link MemberPage}'s functions on the copied array.
 */
final class StoredPage {
    /** Eight bytes of an array in the platform's order, as {@link Unsafe#getLong(long)} reads memory: equal ranges read equal longs. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private StoredPage() {}

    /**
     * Whether the page of {@code length} bytes at native {@code address} holds {@code member} with exactly
     * {@code value}: for a page whose place in the map's memory is known ({@link PageDirectory}), read with
     * no lookup or lock of the map, or one looked up just now. Reads no byte outside
     * [address, address + length), whatever those bytes are: a reader without the key's stripe may find
     * them rewritten under it (it then throws away what it read), and false is all it gets.
     */
    static boolean holds(long address, int length, byte[] member, byte[] value) {
        long end = address + length;
        long at = find(address, end, member);
        if (at < 0) return false;
        long v = at + MemberPage.varintSize(member.length) + member.length;
        int n = readVarint(v, end);
        long start = v + MemberPage.varintSize(Math.max(n, 0));
        return n == value.length && start + n <= end && equal(start, value, n);
    }

    private static final Unsafe U = UnsafeMemory.UNSAFE;

    /** Low bits of an index entry: the member's offset in its page ({@link MemberPages#PAGE_MAX} is 2^18). */
    private static final int OFFSET_BITS = 24;

    private static final int OFFSET_MASK = (1 << OFFSET_BITS) - 1;

    /** Pages of more members than this get no index ({@link #NO_INDEX}): they are scanned. */
    static final int MAX_INDEXED = 128;

    /** The index of a page that has none (too many members, or bytes that are no page): it is scanned. */
    static final int[] NO_INDEX = new int[0];

    /**
     * The index of the page of {@code length} bytes at {@code address}: one int per member, in page order,
     * its {@link #tag} in the high byte and its offset in the page below it; {@link #NO_INDEX} for a page
     * of over {@link #MAX_INDEXED} members or one whose bytes do not parse (a reader racing a write). Reads
     * no byte outside the page, as {@link #holds(long, int, byte[], byte[])}.
     */
    static int[] index(long address, int length) {
        long end = address + length;
        int[] index = new int[Math.min(MAX_INDEXED, 16)];
        int n = 0;
        for (long at = address; at < end; ) {
            int m = readVarint(at, end);
            if (m < 0) return NO_INDEX;
            long start = at + MemberPage.varintSize(m);
            long v = start + m;
            if (v > end) return NO_INDEX;
            int k = readVarint(v, end);
            if (k < 0 || v + MemberPage.varintSize(k) + k > end) return NO_INDEX;
            if (n == MAX_INDEXED) return NO_INDEX;
            if (n == index.length) index = Arrays.copyOf(index, Math.min(MAX_INDEXED, n * 2));
            index[n++] = tag(MemberPages.ADDRESS.hashMemory(start, m)) << OFFSET_BITS | (int) (at - address);
            at = v + MemberPage.varintSize(k) + k;
        }
        return n == index.length ? index : Arrays.copyOf(index, n);
    }

    /**
     * The index of a page that is the page of {@code index} with a member of {@code hash} appended at
     * {@code offset}; null if the page has no index ({@link #NO_INDEX}) or would have too many members.
     */
    static int[] appended(int[] index, long hash, int offset) {
        if (index == NO_INDEX || index.length >= MAX_INDEXED) return null;
        int[] out = Arrays.copyOf(index, index.length + 1);
        out[index.length] = tag(hash) << OFFSET_BITS | offset;
        return out;
    }

    /** The byte of a member's hash ({@link MemberPages#ADDRESS}) its index entry keeps: bits the page's choice does not use. */
    static int tag(long hash) {
        return (int) (hash >>> 56);
    }

    /**
     * {@link #holds(long, int, byte[], byte[])} through the page's {@code index} ({@link #index}): only the
     * members whose tag is {@code hash}'s are read. A page with {@link #NO_INDEX} is scanned.
     */
    static boolean holds(long address, int length, int[] index, long hash, byte[] member, byte[] value) {
        if (index == NO_INDEX) return holds(address, length, member, value);
        long end = address + length;
        int tag = tag(hash);
        for (int e : index) {
            if (e >>> OFFSET_BITS == tag && holdsAt(address + (e & OFFSET_MASK), end, member, value)) return true;
        }
        return false;
    }

    /**
     * The first byte of the first entry of the page at {@code address} whose tag in {@code index} is {@code
     * hash}'s, or 0: a read made only to bring that entry's memory near ({@code MemberPages}' grouped
     * checks). Inside the page, as every offset of an index is.
     */
    static int firstByteOfTag(long address, int[] index, long hash) {
        int tag = tag(hash);
        for (int e : index) {
            if (e >>> OFFSET_BITS == tag) return U.getByte(address + (e & OFFSET_MASK));
        }
        return 0;
    }

    /** Whether the entry at {@code at} is {@code member} with {@code value}, read inside [at, end). */
    private static boolean holdsAt(long at, long end, byte[] member, byte[] value) {
        int m = readVarint(at, end);
        if (m != member.length) return false;
        long start = at + MemberPage.varintSize(m);
        long v = start + m;
        if (v > end || !equal(start, member, m)) return false;
        int n = readVarint(v, end);
        long from = v + MemberPage.varintSize(Math.max(n, 0));
        return n == value.length && from + n <= end && equal(from, value, n);
    }

    private static long find(long at, long end, byte[] member) {
        int length = member.length;
        while (at < end) {
            int m = readVarint(at, end);
            if (m < 0) return -1;
            long start = at + MemberPage.varintSize(m);
            long v = start + m;
            if (v > end) return -1;
            if (m == length && (m == 0 || U.getByte(v - 1) == member[m - 1]) && equal(start, member, m)) return at;
            int n = readVarint(v, end);
            if (n < 0) return -1;
            at = v + MemberPage.varintSize(n) + n;
        }
        return -1;
    }

    private static boolean equal(long address, byte[] b, int length) {
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            if (U.getLong(address + i) != (long) LONGS.get(b, i)) return false;
        }
        for (; i < length; i++) {
            if (U.getByte(address + i) != b[i]) return false;
        }
        return true;
    }

    /** The varint at {@code address}, or -1 if it runs to {@code end} or past 31 bits. */
    private static int readVarint(long address, long end) {
        if (address >= end) return -1;
        byte first = U.getByte(address);
        if (first >= 0) return first;
        int v = 0;
        for (int shift = 0; shift <= 21 && address < end; shift += 7) {
            byte x = U.getByte(address++);
            v |= (x & 0x7F) << shift;
            if (x >= 0) return v;
        }
        if (address < end) {
            byte x = U.getByte(address);
            if (x >= 0 && x < 8) return v | x << 28;
        }
        return -1;
    }
}
