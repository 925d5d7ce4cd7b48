package dev.kvs.core.internal;

import dev.kvs.core.StorageException;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.hash.Data;
import sun.misc.Unsafe;

/**
 * What a record or page held before a write that overwrites it in place, kept in a small file of the
 * data dir ({@value #FILE}) while the write runs, so that a kill -9 in the middle of the copy loses
 * nothing: the next open finds the slot still marked and the bytes torn (their checksum does not match),
 * and puts back what they were ({@link RecordMaps#restoreIfTorn}, {@link MemberPages#restoreIfTorn}).
 *
 * <p>Bounded: {@value #SMALL} slots of {@value #SMALL_BYTES} bytes for the usual record or page with its
 * key, and {@value #LARGE} slots for the largest ({@link MemberPages#PAGE_MAX} and the longest key), in a
 * file of fixed size. A write that finds no slot free of its size runs without one, and is counted
 * ({@link #unguarded}); its key is then fenced if a kill tears it ({@link RecordMaps#fenceTorn}, {@link
 * MemberPages#repair}).
 *
 * <p>A slot is [state:4][kind:4][key length:4][old length:4][key][old bytes]. The key and old bytes are
 * written, then the state set (a volatile store), then the write made, then the state cleared (an ordered
 * store): a kill leaves every store made before it in the page cache, in program order. Thread-safe: a
 * slot is held by one write at a time.
 */
final class UndoSlots implements AutoCloseable {
    static final String FILE = "write-undo.dat";
    static final int SMALL = 64;
    static final int SMALL_BYTES = 16 * 1024;
    static final int LARGE = 4;
    private static final int HEADER = 16;
    private static final int IDLE = 0;
    private static final int ACTIVE = 0x4b56531; // not a zeroed file's
    /** What a slot's bytes were: a record's stored value. */
    static final int RECORD = 1;
    /** What a slot's bytes were: a page's stored value, with its checksum. */
    static final int PAGE = 2;

    private static final Unsafe U = UnsafeMemory.UNSAFE;

    private final FileChannel channel;
    private final MappedByteBuffer mapped; // reachable while its address is used: the mapping stays
    private final long address;
    private final int largeBytes;
    private final AtomicIntegerArray taken = new AtomicIntegerArray(SMALL + LARGE);
    private final AtomicLong unguarded = new AtomicLong();

    private UndoSlots(FileChannel channel, MappedByteBuffer mapped, int largeBytes) {
        this.channel = channel;
        this.mapped = mapped;
        this.address = Jvm.address(mapped);
        this.largeBytes = largeBytes;
    }

    /** The bytes of a large slot: the largest page or record with the longest key. */
    static int largeBytes(int maxKeyBytes) {
        long bytes = HEADER
                + (long) maxKeyBytes
                + MemberPages.PAGE_KEY_EXTRA
                + MemberPages.PAGE_MAX
                + PageMarshaller.TRAILER;
        return (int) Math.min(bytes, Integer.MAX_VALUE / (2 * LARGE));
    }

    /** Opens {@code file}, made long enough for its slots if new (a larger one is used as it is). */
    static UndoSlots open(Path file, int maxKeyBytes) {
        int large = largeBytes(maxKeyBytes);
        long size = (long) SMALL * SMALL_BYTES + (long) LARGE * large;
        FileChannel channel = null;
        try {
            channel = FileChannel.open(
                    file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            return new UndoSlots(channel, mapped, large);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException f) {
                    e.addSuppressed(f);
                }
            }
            throw new StorageException("cannot open " + file + ": " + e, e);
        }
    }

    private long base(int slot) {
        return slot < SMALL
                ? address + (long) slot * SMALL_BYTES
                : address + (long) SMALL * SMALL_BYTES + (long) (slot - SMALL) * largeBytes;
    }

    private int bytes(int slot) {
        return slot < SMALL ? SMALL_BYTES : largeBytes;
    }

    /**
     * Takes a slot and keeps in it {@code key} and the {@code old} bytes a write is about to overwrite;
     * returns the slot for {@link #end}, or -1 if none of their size is free.
     */
    int begin(int kind, byte[] key, Data<?> old) {
        long n = old.size();
        long need = HEADER + key.length + n;
        int slot = need <= SMALL_BYTES ? take(0, SMALL + LARGE) : need <= largeBytes ? take(SMALL, LARGE) : -1;
        if (slot < 0) {
            unguarded.incrementAndGet();
            return -1;
        }
        long at = base(slot);
        U.putInt(at + 4, kind);
        U.putInt(at + 8, key.length);
        U.putInt(at + 12, (int) n);
        U.copyMemory(key, Unsafe.ARRAY_BYTE_BASE_OFFSET, null, at + HEADER, key.length);
        RandomDataInput from = old.bytes();
        long to = at + HEADER + key.length;
        if (from.isDirectMemory()) {
            U.copyMemory(from.addressForRead(old.offset()), to, n);
        } else {
            byte[] copy = new byte[(int) n];
            from.read(old.offset(), copy, 0, copy.length);
            U.copyMemory(copy, Unsafe.ARRAY_BYTE_BASE_OFFSET, null, to, n);
        }
        U.putIntVolatile(null, at, ACTIVE); // after the copy, before the write's first byte
        return slot;
    }

    /** The write guarded by {@code slot} (from {@link #begin}; -1: none) is over. */
    void end(int slot) {
        if (slot < 0) return;
        U.putOrderedInt(null, base(slot), IDLE); // after the write's last byte
        taken.set(slot, 0);
    }

    /** A free slot of [from, from + count), taken; -1 if none. */
    private int take(int from, int count) {
        int start = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int s = from + (start + i) % count;
            if (taken.get(s) == 0 && taken.compareAndSet(s, 0, 1)) return s;
        }
        return -1;
    }

    /** A write a kill cut short: its kind, key, and the bytes it was overwriting. */
    record Interrupted(int kind, byte[] key, byte[] old) {}

    /** After a crash: the writes that were under way, each with what it was overwriting. */
    List<Interrupted> interrupted() {
        List<Interrupted> out = new ArrayList<>();
        for (int slot = 0; slot < SMALL + LARGE; slot++) {
            long at = base(slot);
            if (U.getIntVolatile(null, at) != ACTIVE) continue;
            int kind = U.getInt(at + 4);
            int keyLength = U.getInt(at + 8);
            int oldLength = U.getInt(at + 12);
            if (keyLength < 0 || oldLength < 0 || HEADER + (long) keyLength + oldLength > bytes(slot)) continue;
            byte[] key = new byte[keyLength];
            byte[] old = new byte[oldLength];
            U.copyMemory(null, at + HEADER, key, Unsafe.ARRAY_BYTE_BASE_OFFSET, keyLength);
            U.copyMemory(null, at + HEADER + keyLength, old, Unsafe.ARRAY_BYTE_BASE_OFFSET, oldLength);
            out.add(new Interrupted(kind, key, old));
        }
        return out;
    }

    /** Marks every slot idle: after a crash, once what {@link #interrupted} found is dealt with. */
    void clear() {
        for (int slot = 0; slot < SMALL + LARGE; slot++) U.putIntVolatile(null, base(slot), IDLE);
        mapped.force();
    }

    /** Writes that ran without a slot since the store opened: none free of their size. */
    long unguarded() {
        return unguarded.get();
    }

    /** The file's bytes: its slots, all of them. */
    long bytes() {
        return (long) SMALL * SMALL_BYTES + (long) LARGE * largeBytes;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new StorageException("cannot close " + FILE + ": " + e, e);
        }
    }
}
