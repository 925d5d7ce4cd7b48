package dev.kvs.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The canonical serialisation of a structure's members: one format byte ({@link #FORMAT}), {@code
 * varint(count)}, then the entries in {@link MemberPage}'s form sorted by member bytes (unsigned).
 * Equal contents give equal bytes whatever their history or page layout, so it is what replication
 * ships when a change cannot be applied as a delta, and what two nodes may compare byte for byte.
 */
final class StructureImage {
    static final byte FORMAT = 1;

    private StructureImage() {}

    static byte[] of(MemberPages pages, byte[] key, MembersHeader h) {
        List<byte[][]> members = new ArrayList<>((int) Math.min(h.count(), Integer.MAX_VALUE - 8));
        pages.forEach(key, h, (m, v) -> members.add(new byte[][] {m, v}));
        byte[] out = encode(members);
        int expected = 1 + MemberPage.varintSize(members.size()) + (int) Math.min(h.bytes(), Integer.MAX_VALUE);
        if (out.length != expected) {
            throw new IllegalStateException("header counts " + h.bytes() + " bytes, pages hold " + out.length);
        }
        return out;
    }

    /**
     * The image of {@code members} ({member, value} pairs, in any order; sorted here): for a store that
     * keeps its members elsewhere than in pages (the heap store of the tests).
     */
    static byte[] encode(List<byte[][]> members) {
        members.sort((a, b) -> Arrays.compareUnsigned(a[0], b[0]));
        long size = 1 + MemberPage.varintSize(members.size());
        for (byte[][] e : members) size += MemberPage.entrySize(e[0].length, e[1].length);
        if (size > Integer.MAX_VALUE - 8) throw new IllegalStateException("image of " + size + " bytes");
        byte[] out = new byte[(int) size];
        out[0] = FORMAT;
        int w = MemberPage.writeVarint(out, 1, members.size());
        for (byte[][] e : members) {
            w = MemberPage.writeVarint(out, w, e[0].length);
            System.arraycopy(e[0], 0, out, w, e[0].length);
            w = MemberPage.writeVarint(out, w + e[0].length, e[1].length);
            System.arraycopy(e[1], 0, out, w, e[1].length);
            w += e[1].length;
        }
        return out;
    }

    /**
     * The {member, value} pairs of a canonical image, in its order.
     *
     * @throws IllegalArgumentException if {@code image} is not canonical
     */
    static List<byte[][]> decode(byte[] image) {
        int[] starts = entries(image);
        List<byte[][]> out = new ArrayList<>(starts.length);
        for (int s : starts) {
            int ms = MemberPage.memberStart(image, s);
            int ml = MemberPage.memberLength(image, s);
            int vs = MemberPage.valueStart(image, s);
            out.add(new byte[][] {
                Arrays.copyOfRange(image, ms, ms + ml),
                Arrays.copyOfRange(image, vs, vs + MemberPage.valueLength(image, s))
            });
        }
        return out;
    }

    /** The digest of the members of a canonical {@code image}: the one a store holding them keeps in its header. */
    static long digestOf(byte[] image) {
        long digest = 0;
        for (int s : entries(image)) digest += MemberPages.digestOf(image, s, MemberPage.entryEnd(image, s) - s);
        return digest;
    }

    /**
     * Writes the image's members as pages of {@code key} (each page written once) and returns the
     * structure's header. Pages of the new layout with no member are removed, so garbage left beyond
     * an older structure's pageCount cannot show through.
     *
     * @throws IllegalArgumentException if {@code image} is not canonical (format, count, order, length)
     */
    static MembersHeader build(MemberPages pages, byte[] key, byte[] image) {
        int[] starts = entries(image);
        long bytes = image.length - (1 + MemberPage.varintSize(starts.length));
        int count = starts.length;
        if (count == 0) return MembersHeader.EMPTY;
        int n = MemberPages.pagesFor(count, bytes);
        int[] pageOf = new int[count];
        int[] pageBytes = new int[n];
        long digest = 0;
        for (int i = 0; i < count; i++) {
            int s = starts[i];
            int length = MemberPage.entryEnd(image, s) - s;
            long hash = MemberPages.ADDRESS.hashBytes(
                    image, MemberPage.memberStart(image, s), MemberPage.memberLength(image, s));
            pageOf[i] = PageAddress.pageOf(hash, n);
            pageBytes[pageOf[i]] += length;
            digest += MemberPages.digestOf(image, s, length);
        }
        byte[][] content = new byte[n][];
        int stored = 0;
        for (int p = 0; p < n; p++) {
            if (pageBytes[p] > MemberPages.PAGE_MAX) {
                throw new dev.kvs.core.EntryTooLargeException("page of " + pageBytes[p] + " bytes over the limit of "
                        + MemberPages.PAGE_MAX + " bytes (MemberPages.PAGE_MAX)");
            }
            content[p] = pageBytes[p] == 0 ? MemberPage.EMPTY : new byte[pageBytes[p]];
            if (pageBytes[p] > 0) stored++;
            pageBytes[p] = 0; // from here: bytes filled
        }
        for (int i = 0; i < count; i++) {
            int s = starts[i];
            int length = MemberPage.entryEnd(image, s) - s;
            System.arraycopy(image, s, content[pageOf[i]], pageBytes[pageOf[i]], length);
            pageBytes[pageOf[i]] += length;
        }
        for (int p = 0; p < n; p++) pages.store(key, p, content[p]);
        return new MembersHeader(count, n, stored, digest, bytes);
    }

    /**
     * The member count of a canonical image, after checking all of it.
     *
     * @throws IllegalArgumentException if {@code image} is not canonical
     */
    static int decodeCount(byte[] image) {
        return entries(image).length;
    }

    /**
     * The offsets of a canonical image's entries.
     *
     * @throws IllegalArgumentException if {@code image} is not canonical (format, count, order, length)
     */
    private static int[] entries(byte[] image) {
        if (image.length < 2 || image[0] != FORMAT) throw corrupt("format byte", 0);
        int[] starts;
        try {
            int count = MemberPage.readVarint(image, 1);
            if (count < 0 || count > image.length / 2) throw corrupt("count " + count, 1);
            starts = new int[count];
            int at = 1 + MemberPage.varintSize(count);
            for (int i = 0; i < count; i++) {
                starts[i] = at;
                int m = MemberPage.memberLength(image, at);
                int v = m < 0 ? -1 : MemberPage.valueLength(image, at);
                if (m < 0 || v < 0) throw corrupt("negative length", at);
                MemberPages.checkSize(m, v);
                int end = MemberPage.entryEnd(image, at);
                if (end > image.length) throw corrupt("entry past the end", at);
                if (i > 0 && compareMembers(image, starts[i - 1], at) >= 0) throw corrupt("members out of order", at);
                at = end;
            }
            if (at != image.length) throw corrupt("bytes after the last entry", at);
        } catch (IndexOutOfBoundsException e) {
            throw corrupt("truncated", image.length);
        }
        return starts;
    }

    private static int compareMembers(byte[] image, int a, int b) {
        int as = MemberPage.memberStart(image, a);
        int bs = MemberPage.memberStart(image, b);
        return Arrays.compareUnsigned(
                image, as, as + MemberPage.memberLength(image, a), image, bs, bs + MemberPage.memberLength(image, b));
    }

    private static IllegalArgumentException corrupt(String what, int at) {
        return new IllegalArgumentException("not a canonical structure image: " + what + " at byte " + at);
    }
}
