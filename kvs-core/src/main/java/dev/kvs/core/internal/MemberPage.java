package dev.kvs.core.internal;

import java.util.Arrays;
import java.util.function.BiConsumer;

/**
 * The bytes of one page: its members' entries one after another, each {@code varint(member length),
 * member, varint(value length), value} (unsigned LEB128 lengths), in no particular order. Also the form
 * of entries in a structure's canonical image ({@link StructureImage}). Pure functions on arrays; a
 * write builds a new array, the only allocation a page write makes.
 */
final class MemberPage {
    static final byte[] EMPTY = new byte[0];

    private MemberPage() {}

    static int varintSize(int v) {
        return v < 1 << 7 ? 1 : v < 1 << 14 ? 2 : v < 1 << 21 ? 3 : v < 1 << 28 ? 4 : 5;
    }

    static int readVarint(byte[] b, int at) {
        byte first = b[at];
        if (first >= 0) return first; // the common case: a length below 128
        int v = 0;
        for (int shift = 0; ; shift += 7) {
            if (shift > 28) throw new IllegalArgumentException("corrupt page: varint too long at " + at);
            byte x = b[at++];
            v |= (x & 0x7F) << shift;
            if (x >= 0) return v;
        }
    }

    static int writeVarint(byte[] b, int at, int v) {
        while ((v & ~0x7F) != 0) {
            b[at++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[at++] = (byte) v;
        return at;
    }

    static int entrySize(int memberLength, int valueLength) {
        return varintSize(memberLength) + memberLength + varintSize(valueLength) + valueLength;
    }

    /** Offset of the member bytes of the entry at {@code at}. */
    static int memberStart(byte[] page, int at) {
        return at + varintSize(readVarint(page, at));
    }

    static int memberLength(byte[] page, int at) {
        return readVarint(page, at);
    }

    /** Offset of the value length of the entry at {@code at}. */
    static int valueAt(byte[] page, int at) {
        int m = readVarint(page, at);
        return at + varintSize(m) + m;
    }

    static int valueStart(byte[] page, int at) {
        int v = valueAt(page, at);
        return v + varintSize(readVarint(page, v));
    }

    static int valueLength(byte[] page, int at) {
        return readVarint(page, valueAt(page, at));
    }

    /** Offset just past the entry at {@code at}. */
    static int entryEnd(byte[] page, int at) {
        int v = valueAt(page, at);
        int length = readVarint(page, v);
        return v + varintSize(length) + length;
    }

    /** Offset of {@code member}'s entry, or -1. */
    static int find(byte[] page, byte[] member) {
        int length = member.length;
        int at = 0;
        while (at < page.length) {
            int m = readVarint(page, at);
            int start = at + varintSize(m);
            // members often share a prefix (field:1, field:2): their last bytes differ first
            if (m == length
                    && (m == 0 || page[start + m - 1] == member[m - 1])
                    && Arrays.equals(page, start, start + m, member, 0, m)) return at;
            // past the value, from the member length just read (entryEnd would read it again)
            int v = start + m;
            int n = readVarint(page, v);
            at = v + varintSize(n) + n;
        }
        return -1;
    }

    static int count(byte[] page) {
        int n = 0;
        for (int at = 0; at < page.length; at = entryEnd(page, at)) n++;
        return n;
    }

    /** Offset of the entry with index {@code index} (0-based, in page order). */
    static int nth(byte[] page, int index) {
        int at = 0;
        for (int i = 0; i < index; i++) at = entryEnd(page, at);
        return at;
    }

    static byte[] member(byte[] page, int at) {
        int start = memberStart(page, at);
        return Arrays.copyOfRange(page, start, start + memberLength(page, at));
    }

    static byte[] value(byte[] page, int at) {
        int start = valueStart(page, at);
        return Arrays.copyOfRange(page, start, start + valueLength(page, at));
    }

    /** {@code page} without the entry at {@code at} (-1: none), with {@code (member, value)} appended. */
    static byte[] with(byte[] page, int at, byte[] member, byte[] value) {
        int end = at < 0 ? at : entryEnd(page, at);
        int kept = at < 0 ? page.length : page.length - (end - at);
        byte[] out = new byte[kept + entrySize(member.length, value.length)];
        int w = copyWithout(page, at, end, out);
        w = writeVarint(out, w, member.length);
        System.arraycopy(member, 0, out, w, member.length);
        w = writeVarint(out, w + member.length, value.length);
        System.arraycopy(value, 0, out, w, value.length);
        return out;
    }

    /** {@code page} without the entry at {@code at}. */
    static byte[] without(byte[] page, int at) {
        int end = entryEnd(page, at);
        byte[] out = new byte[page.length - (end - at)];
        copyWithout(page, at, end, out);
        return out;
    }

    private static int copyWithout(byte[] page, int at, int end, byte[] out) {
        if (at < 0) {
            System.arraycopy(page, 0, out, 0, page.length);
            return page.length;
        }
        System.arraycopy(page, 0, out, 0, at);
        System.arraycopy(page, end, out, at, page.length - end);
        return page.length - (end - at);
    }

    /** Calls {@code visitor} with a copy of each member and value, in page order. */
    static void forEach(byte[] page, BiConsumer<byte[], byte[]> visitor) {
        for (int at = 0; at < page.length; at = entryEnd(page, at)) visitor.accept(member(page, at), value(page, at));
    }
}
