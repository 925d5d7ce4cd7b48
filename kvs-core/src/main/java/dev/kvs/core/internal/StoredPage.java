package dev.kvs.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
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
