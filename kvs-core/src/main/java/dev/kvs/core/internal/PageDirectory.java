package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where each page of one large hash or set lies in the pages map's memory ({@link MemberPages}): its
 * value's native address and length, as the last lookup of the page found it. A
 * write that changes nothing (an {@code SADD} of a member there, an {@code HSET} of the value a field
 * has) then reads its page where it lies, with no lookup of the map and no segment lock: in a set of
 * 3,125 pages that lookup was over a third of a {@code SADD}'s CPU (issue 35).
 *
 * <p>Why a remembered place is right: a Chronicle map moves a stored entry only to rewrite it (a value
 * that outgrows its chunks is relocated by that write), and frees its memory only when the entry is
 * removed. Every write of a page is made under its structure key's stripe ({@link KeyStripes}) and,
 * after it, forgets the page's place ({@link Directories#forget}) before the stripe is let go. A stripe
 * holder remembers what its own lookup found; a reader without the stripe (a write that may change
 * nothing, {@link MemberPages#holds}) offers what it found while it still holds its lookup's read
 * lock, so no write of the page comes between the lookup and the offer, and the forget after any later
 * write replaces the offer. The offer is also a compare-and-set on the slot as the reader saw it before
 * its lookup ({@link #offer}): it never replaces what a stripe holder or a write put there meanwhile. So
 * a place in a slot is where the page lies, as of the last write of it that finished.
 *
 * <p>A reader without the stripe may read a place a write is changing, or read the memory while a write
 * rewrites it: it then reads bytes of the map's memory that are no longer the page, and throws nothing
 * ({@link StoredPage#holds(long, int, byte[], byte[])} stays inside the place's bytes, which stay mapped
 * until the map closes: Chronicle never returns a tier's memory, and the store's gate keeps the map open
 * while any operation is inside). Such a reader's check of the stripe's count fails, and it reads again
 * under the stripe ({@code ChronicleKvStore.unlocked}).
 *
 * <p>Only for structures of at least {@link Directories#MIN_PAGES} pages: a small one's page is one
 * lookup either way, and a directory per small hash (a web session each) would cost heap per key.
 */
final class PageDirectory {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Place[].class);
    private static final VarHandle INDEX;

    static {
        try {
            INDEX = MethodHandles.lookup().findVarHandle(Place.class, "index", int[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Where a page's value lay when a lookup found it: {@code address} 0 if not known. Each write that
     * forgets a page leaves a new unknown place, so a reader's offer made on an older one fails ({@link
     * #offer}); and each lookup makes a new place, so a place still in its slot says the page was not
     * written since it was put there (compared by identity, {@link MemberPages#holdsAll}).
     *
     * <p>A place also keeps its page's index ({@link StoredPage#index}), made by the first reader that
     * reads the page through it: the bytes it is made of are the page's as long as the place is in its slot
     * (a write of the page forgets the place after it), and a reader that read them while a write was
     * rewriting them finds its read invalid after, as for any other read of the page.
     */
    static final class Place {
        private final long address;
        private final int length;
        private volatile int[] index;

        Place(long address, int length) {
            this.address = address;
            this.length = length;
        }

        long address() {
            return address;
        }

        int length() {
            return length;
        }

        boolean known() {
            return address != 0;
        }

        /** The page's index ({@link StoredPage#index}), or null if none was made through this place yet. */
        int[] index() {
            return index;
        }

        /** Gives this place {@code index} if it has none yet: whether it took it (and is to count it). */
        boolean index(int[] index) {
            return INDEX.compareAndSet(this, null, index);
        }

        @Override
        public String toString() {
            return "Place[address=" + address + ", length=" + length + "]";
        }
    }

    private volatile Place[] slots;
    private final Directories owner;

    private PageDirectory(int slots, Directories owner) {
        this.slots = new Place[slots];
        this.owner = owner;
    }

    /** Where page {@code p} lies, as last found: null or not {@linkplain Place#known known} if not known. */
    Place place(int p) {
        Place[] s = slots;
        return p < s.length ? (Place) SLOT.getAcquire(s, p) : null;
    }

    /**
     * Remembers that page {@code p} lies at {@code place}, found by a lookup under the key's stripe (and
     * the lookup's lock). Returns how many slots the directory grew by.
     */
    int remember(int p, Place place) {
        Place[] s = slots;
        int grown = 0;
        if (p >= s.length) {
            int size = Integer.highestOneBit(p) << 1;
            grown = size - s.length;
            s = Arrays.copyOf(s, size);
            slots = s;
        }
        owner.released((Place) SLOT.getAndSetRelease(s, p, place));
        return grown;
    }

    /**
     * Remembers that page {@code p} lies at {@code found}, found by a lookup without the key's stripe (and
     * under the lookup's lock), if the slot still holds {@code seen}, read before that lookup.
     * A write of the page between the two forgot it after writing, and left a new place in the slot: then
     * this offer fails, and what it found (maybe the page before that write) is not remembered. Returns
     * whether {@code found} is now in the slot.
     */
    boolean offer(int p, Place seen, Place found) {
        Place[] s = slots;
        if (p >= s.length || !SLOT.compareAndSet(s, p, seen, found)) return false;
        owner.released(seen);
        return true;
    }

    /** Forgets where page {@code p} lies: called after each write of the page, before the stripe is let go. */
    void forget(int p) {
        Place[] s = slots;
        if (p < s.length) owner.released((Place) SLOT.getAndSetRelease(s, p, new Place(0, 0)));
    }

    int slots() {
        return slots.length;
    }

    /**
     * The directories of one pages map, by structure key: bounded by {@link #maxSlots} slots in all
     * (about {@link #SLOT_BYTES} bytes of heap each: the slot's reference and its place), a page's index
     * counted as the slots its bytes would take ({@link #weight}) while its place is in a directory; past
     * it, every directory is dropped and they are found again page by page. A
     * holder of a dropped directory may use it to the end of its write: what it says is still true. The
     * count is approximate under concurrent writers (a drop and a new directory may cross), never by more
     * than a directory per writer.
     */
    static final class Directories {
        /** Pages a structure has before it gets a directory. */
        static final int MIN_PAGES = 8;

        /** Heap bytes of one slot with its place: the unit {@link #maxSlots} counts in. */
        static final int SLOT_BYTES = 28;

        /** The slots an index of a page counts as: its array's bytes, header included. */
        static int weight(int[] index) {
            return (16 + 4 * index.length + SLOT_BYTES - 1) / SLOT_BYTES;
        }

        private final ConcurrentHashMap<ByteKey, PageDirectory> byKey = new ConcurrentHashMap<>();
        private final AtomicLong slots = new AtomicLong();
        private final long maxSlots;

        Directories(long maxSlots) {
            this.maxSlots = maxSlots;
        }

        /**
         * The directory of the structure at {@code key} of {@code n} pages, made now if it has none: null
         * if it is under {@link #MIN_PAGES} pages or would take more than all the slots. The caller holds
         * the key's stripe.
         */
        PageDirectory of(byte[] key, int n) {
            if (n < MIN_PAGES) return null;
            ByteKey k = new ByteKey(key);
            PageDirectory d = byKey.get(k);
            if (d != null) return d;
            int size = Integer.highestOneBit(n - 1) << 1;
            if (size > maxSlots) return null;
            if (slots.addAndGet(size) > maxSlots) {
                clear();
                slots.addAndGet(size);
            }
            d = new PageDirectory(size, this);
            byKey.put(k, d);
            return d;
        }

        /** The directory of the structure at {@code key}, or null (made by {@link #of} only). */
        PageDirectory find(byte[] key) {
            return byKey.get(new ByteKey(key));
        }

        /** Counts slots a directory of this map grew by ({@link PageDirectory#remember}), or an index took. */
        void grew(int grown) {
            if (grown > 0 && slots.addAndGet(grown) > maxSlots) clear();
        }

        /** Whether a page's index may be made: while under half the slots are in use. */
        boolean roomForIndexes() {
            return slots.get() < maxSlots / 2;
        }

        /** Stops counting the index of {@code place}, which a directory no longer holds. */
        void released(Place place) {
            int[] index = place == null ? null : place.index();
            if (index != null) slots.addAndGet(-weight(index));
        }

        /** Forgets where page {@code p} of the structure at {@code key} lies: the caller is writing it. */
        void forget(byte[] key, int p) {
            if (byKey.isEmpty()) return;
            PageDirectory d = byKey.get(new ByteKey(key));
            if (d != null) d.forget(p);
        }

        /** Drops the directory of the structure at {@code key} (its pages are all removed). */
        void drop(byte[] key) {
            if (byKey.isEmpty()) return;
            PageDirectory d = byKey.remove(new ByteKey(key));
            if (d != null) slots.addAndGet(-d.slots());
        }

        void clear() {
            byKey.clear();
            slots.set(0);
        }

        /** Slots in all directories now. */
        long slots() {
            return slots.get();
        }

        long maxSlots() {
            return maxSlots;
        }
    }
}
