package dev.kvs.core;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * How a {@link ValueType#LIST} lives in a structure's members, and the list operations on it, read
 * and decided inside a {@link KvStore#updateStructures} step (the key's lock held). Each element is
 * a member named by its position, an 8-byte big-endian number offset by 2<sup>63</sup> so that the
 * unsigned order of names is the order of positions; one more member, named by the empty name, holds
 * the list's bounds (head and tail position, the elements living in {@code [head, tail)}). A push at
 * either end writes one element and the bounds, a pop removes one and rewrites the bounds, an index is
 * one member read: O(1) in the list's size, as in Redis. A canonical image ({@link MembersImage}) is
 * the bounds, then the elements in order, so a node rebuilding a list from it has the same positions.
 *
 * <p>An instance is the list one key held when it was read ({@link #of}): valid only inside that
 * step. Each write method returns the {@link StructureChange} to make, with the TxId supplier the
 * caller gives; a list whose last element goes is deleted (its bounds go with it).
 */
public final class ListLayout {
    /** The name of the member holding the bounds; no element's name is empty. */
    static final byte[] BOUNDS = new byte[0];

    private final StructureView view;
    private final int index;
    private final long head;
    private final long tail;

    private ListLayout(StructureView view, int index, long head, long tail) {
        this.view = view;
        this.index = index;
        this.head = head;
        this.tail = tail;
    }

    /**
     * The list at the {@code index}-th key of {@code view}: empty if the key holds nothing (its header
     * null, as an expired key reads, or a tombstone).
     *
     * @throws WrongTypeException if it holds another type
     * @throws IllegalStateException if its list is not complete
     */
    public static ListLayout of(StructureView view, int index) {
        RecordHeader h = view.header(index);
        if (h == null || h.state() == RecordState.TOMBSTONE) return new ListLayout(view, index, 0, 0);
        byte[] bounds = view.getMembers(index, ValueType.LIST, List.of(BOUNDS)).get(0);
        if (bounds == null) return new ListLayout(view, index, 0, 0);
        ByteBuffer b = ByteBuffer.wrap(bounds);
        return new ListLayout(view, index, b.getLong(), b.getLong());
    }

    /** An empty list, bound to no key: what a key that holds no list reads as. */
    public static ListLayout empty() {
        return new ListLayout(null, 0, 0, 0);
    }

    /** LLEN. */
    public long size() {
        return tail - head;
    }

    /** The element at {@code i} (0 the first), or {@code null} outside the list. */
    public byte[] get(long i) {
        if (i < 0 || i >= size()) return null;
        return view.getMembers(index, ValueType.LIST, List.of(name(head + i))).get(0);
    }

    /** The elements {@code [from, to)}, clamped to the list: LRANGE once its indexes are resolved. */
    public List<byte[]> range(long from, long to) {
        long a = Math.max(0, from);
        long b = Math.min(size(), to);
        if (a >= b) return List.of();
        List<byte[]> names = new ArrayList<>((int) Math.min(b - a, 1 << 20));
        for (long i = a; i < b; i++) names.add(name(head + i));
        return view.getMembers(index, ValueType.LIST, names);
    }

    /** Every element, in order. */
    public List<byte[]> all() {
        return range(0, size());
    }

    /**
     * LPUSH ({@code left}: each value becomes the new first in turn, so the last ends first) or RPUSH.
     */
    public StructureChange push(boolean left, List<byte[]> values, Supplier<TxId> txId) {
        List<Member> puts = new ArrayList<>(values.size() + 1);
        long h = head;
        long t = tail;
        for (byte[] v : values) puts.add(new Member(name(left ? --h : t++), v));
        puts.add(bounds(h, t));
        return StructureChange.edit(ValueType.LIST, List.of(), puts, txId);
    }

    /** Removes {@code fromLeft} elements at the head and {@code fromRight} at the tail (they must exist). */
    public StructureChange trimEnds(long fromLeft, long fromRight, Supplier<TxId> txId) {
        if (fromLeft < 0 || fromRight < 0 || fromLeft + fromRight > size()) {
            throw new IllegalArgumentException("cannot take " + fromLeft + " + " + fromRight + " of " + size());
        }
        List<byte[]> removed = new ArrayList<>((int) Math.min(fromLeft + fromRight + 1, 1 << 20));
        for (long i = 0; i < fromLeft; i++) removed.add(name(head + i));
        for (long i = 0; i < fromRight; i++) removed.add(name(tail - 1 - i));
        long h = head + fromLeft;
        long t = tail - fromRight;
        if (h == t) {
            removed.add(BOUNDS);
            return StructureChange.edit(ValueType.LIST, removed, List.of(), txId);
        }
        return StructureChange.edit(ValueType.LIST, removed, List.of(bounds(h, t)), txId);
    }

    /** LSET of the element at {@code i} (which must exist). */
    public StructureChange set(long i, byte[] value, Supplier<TxId> txId) {
        if (i < 0 || i >= size()) throw new IndexOutOfBoundsException(i + " of " + size());
        return StructureChange.edit(ValueType.LIST, List.of(), List.of(new Member(name(head + i), value)), txId);
    }

    /**
     * Makes the list exactly {@code elements}, keeping its head: LINSERT, LREM and the other O(n)
     * rewrites. Only the positions whose element changes are written; none left deletes the key.
     */
    public StructureChange rewrite(List<byte[]> elements, Supplier<TxId> txId) {
        List<byte[]> before = all();
        List<Member> puts = new ArrayList<>();
        List<byte[]> removed = new ArrayList<>();
        for (int i = 0; i < elements.size(); i++) {
            if (i >= before.size() || !Arrays.equals(before.get(i), elements.get(i))) {
                puts.add(new Member(name(head + i), elements.get(i)));
            }
        }
        for (int i = elements.size(); i < before.size(); i++) removed.add(name(head + i));
        if (elements.isEmpty()) {
            removed.add(BOUNDS);
        } else if (elements.size() != before.size()) {
            puts.add(bounds(head, head + elements.size()));
        }
        return StructureChange.edit(ValueType.LIST, removed, puts, txId);
    }

    private static Member bounds(long head, long tail) {
        return new Member(
                BOUNDS, ByteBuffer.allocate(16).putLong(head).putLong(tail).array());
    }

    /** An element's member name: its position offset so that unsigned byte order is position order. */
    static byte[] name(long position) {
        return ByteBuffer.allocate(8).putLong(position ^ Long.MIN_VALUE).array();
    }
}
