package dev.kvs.core.internal;

import static dev.kvs.core.internal.MapLayout.saturatedAdd;
import static dev.kvs.core.internal.MapLayout.saturatedMultiply;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvsException;
import dev.kvs.core.StoreConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.random.RandomGenerator;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import net.openhft.chronicle.map.VanillaChronicleMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members of every hash and set, in a Chronicle map of pages keyed by (structure key, page
 * number): so a write to a structure of any size reads and rewrites one page of about {@link
 * #PAGE_TARGET} bytes ({@link MemberPage}), not the whole structure. Pages are placed by linear
 * hashing ({@link PageAddress}) on a fixed hash of the member's bytes (xxHash r39, seed 0: the pages
 * persist in the data dir, so the hash may depend on neither the JVM nor the run). In memory, the map
 * keeps each run of {@link PageKeyAccess#GROUP_PAGES} pages of a structure in one of its segments
 * ({@link PageKeyAccess}); a map in a file places every page alone, by Chronicle's hash of its key.
 * A structure of {@link PageDirectory.Directories#MIN_PAGES} pages or more has a {@link PageDirectory}:
 * where its pages lie, so a write that changes nothing reads its page with no lookup of the map. Every
 * write of a page here forgets the page's place after it.
 *
 * <p>The caller keeps each structure's {@link MembersHeader} (in the key's record) and passes it to
 * every operation; a write returns the next header, to store in the record in the same critical
 * section. Only pages below the header's {@code pageCount} are ever read: a page beyond it (left by a
 * split cut short, or by a crash) is garbage that the next split to reach it overwrites (and the next
 * open after a crash removes), and an empty header reads no page at all.
 *
 * <p>Growth: after a write that leaves more than {@link #PAGE_TARGET} bytes per page (or, for small
 * members, more than {@link #PAGE_MEMBERS} members: {@link #overTarget}), the page at the split pointer
 * splits (one page read, two written). Shrink: below a quarter of that, the last page
 * merges into its parent, so a structure that shrank is not scanned or sampled through mostly empty
 * pages; the gap between the two thresholds keeps a structure at the edge from splitting and merging
 * on alternate writes. A split or merge that fails for room is skipped (the load just stays off target
 * until a later write); the write itself either happened whole or threw with nothing changed.
 *
 * <p>For the store ({@link Structures} does it): a structure's record holds its header ({@link MembersHeader#BYTES}
 * bytes) beside type, TxId and expiry; {@link Capacity} counts the change of {@link
 * MembersHeader#footprint} in maxBytes; a write stores its pages, then the record with the returned
 * header, then {@link #settle}s what its splits and merges left ({@link Pending}).
 *
 * <p>Crashes: the record is the commit point, and no page write before it removes the only copy of a
 * member. A split writes the new page and leaves the split page whole (under the old header the new
 * page lies beyond pageCount, unread); a merge writes the parent with both pages' members and leaves
 * the last page (under the old header the parent's extra members are not where their hash points);
 * {@link #settle} removes the copies once the new header is stored. So a page may hold, for a while,
 * entries its member's hash does not name: a lookup never sees them (it reads the page the hash
 * names), and after a crash {@link #repair} drops them, recounts each header from its pages, and
 * {@link #dropPages} removes pages beyond pageCount or of no structure. A merge never follows a split
 * in one write, since the split page's copies are members under the header the write started from.
 *
 * <p>Not thread-safe per structure: the caller holds the key's stripe lock ({@link KeyStripes}) for
 * the whole operation, from reading the header to storing the one returned. Different keys may be
 * used concurrently (Chronicle's segment locks cover the map).
 */
final class MemberPages implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MemberPages.class);
    /** Bytes of members per page the structure grows and shrinks towards. */
    static final int PAGE_TARGET = 2048;
    /**
     * Members per page a structure of small members grows towards, as long as its pages stay over a
     * quarter of {@link #PAGE_TARGET} bytes ({@link #overTarget}). A lookup scans its member's page, and
     * a page of {@link #PAGE_TARGET} bytes of redis-benchmark's set members (16 bytes each) held 128 of
     * them: an unchanged SADD spent a third of its time scanning (issue 35).
     */
    static final int PAGE_MEMBERS = 32;
    /**
     * Longest member plus value. A page must fit in one tier of the pages map, and every tier of every
     * segment is sized for two of the longest pages ({@link MapLayout}): with 64 KiB members and pages
     * to match, an empty map for a 1 GiB store took 2.2 GiB. Longer values belong out of line (a blob
     * in {@link ValueChunks} referenced from the page), not yet done.
     */
    static final int MAX_MEMBER_BYTES = 16 * 1024;
    /**
     * Longest page. A put splits at most one page, so a structure of large members keeps about one
     * member per page, and a page of {@link #MAX_MEMBER_BYTES} members reaches this only with 16 of them
     * where about 2 are expected (a chance near 1e-9 a page); a write that would pass it is refused.
     */
    static final int PAGE_MAX = 256 * 1024;
    /** A page key's bytes besides the structure key: its length and the page number. */
    static final int PAGE_KEY_EXTRA = 8;

    static final LongHashFunction ADDRESS = LongHashFunction.xx_r39();
    private static final LongHashFunction DIGEST = LongHashFunction.xx_r39(0x6b76_735f_6469_6765L);
    private static final int CHUNK = 128;
    private static final int ENTRY_OVERHEAD = 16;
    private static final int RANDOM_TRIES = 64;

    /** A member and its value (empty for a set), copied out of its page. */
    record Member(byte[] name, byte[] value) {}

    /**
     * What a put or remove did.
     *
     * @param header the structure's header after it
     * @param existed whether the member was there before
     * @param previous its value before, if it existed and the caller asked; else null. A put that changed
     *     nothing returns the caller's own value array here, not a copy
     */
    record Write(MembersHeader header, boolean existed, byte[] previous) {}

    private static final String FILE = "member-pages.dat";

    private final StoreConfig config;
    private final DataDir dir;
    /** Opened by the first page write (or at once if the dir holds the file): null until then. */
    private volatile ChronicleMap<byte[], byte[]> map;
    /** Keeps what a page held while it is overwritten: a store in a data dir only, else null. */
    private final UndoSlots undo;

    /** Bytes after each stored page's own: {@link PageMarshaller#TRAILER} if the map checksums its pages; set before {@link #map}. */
    private int trailer;

    private boolean closed;
    /** Where the pages of large structures lie ({@link PageDirectory}); every page write forgets its page. */
    private final PageDirectory.Directories directories;
    /** A {@link #settle} failed: see {@link #unsettled}. */
    private volatile boolean unsettled;

    private MemberPages(StoreConfig config, DataDir dir, long directorySlots) {
        this.config = config;
        this.dir = dir;
        this.undo = dir == null ? null : dir.undo(config.maxKeyBytes());
        this.directories = new PageDirectory.Directories(directorySlots);
    }

    /**
     * Slots of {@link PageDirectory} in all, about 28 bytes of heap each: 14 MiB at most, for half a
     * million pages (16 million small members), or a quarter million with the indexes of 40,000 (a page's
     * index, about 6 slots, is made only while under half the slots are in use).
     */
    static final long DIRECTORY_SLOTS = 1 << 19;

    /**
     * The pages map in memory ({@code dir == null}) or in {@code dir}'s {@code member-pages.dat}: opened
     * now if that file exists, else by the first page write, so a store that holds only strings (and
     * every data dir from before structures) takes no memory or disk for pages.
     */
    static MemberPages open(StoreConfig config, DataDir dir) {
        return open(config, dir, DIRECTORY_SLOTS);
    }

    /** {@link #open}, with at most {@code directorySlots} slots of {@link PageDirectory} (a test's small bound). */
    static MemberPages open(StoreConfig config, DataDir dir, long directorySlots) {
        MemberPages pages = new MemberPages(config, dir, directorySlots);
        if (dir != null && dir.file(FILE).exists()) pages.map();
        return pages;
    }

    /**
     * Where the page a lookup found lies in the map's memory, and its own bytes' length: without the
     * checksum a file's page ends with ({@link PageMarshaller}).
     */
    PageDirectory.Place placeOf(Data<byte[]> value) {
        return new PageDirectory.Place(value.bytes().addressForRead(value.offset()), (int) value.size() - trailer);
    }

    /** The pages map, opened now if not yet (package-private: a test reads how it placed the pages). */
    synchronized ChronicleMap<byte[], byte[]> map() {
        ChronicleMap<byte[], byte[]> m = map;
        if (m != null) return m;
        if (closed) throw new dev.kvs.core.StorageException("store is closed");
        MapLayout layout = layout(config);
        ChronicleMapBuilder<byte[], byte[]> b = ChronicleMap.of(byte[].class, byte[].class)
                .name("kvs-member-pages")
                // as the records' maps: Chronicle's own access wraps each page key in a BytesStore to hash
                // and compare it, once per page lookup. In memory, a structure's pages are kept together
                // (PageKeyAccess); a file keeps Chronicle's hash of the key's bytes, which its recovery
                // after a crash checks every stored key against
                .keyReaderAndDataAccess(
                        ByteArraySizedReader.INSTANCE,
                        dir == null ? new PageKeyAccess(layout.segments()) : new KeyBytesAccess())
                .averageKeySize(32)
                .averageValueSize(PAGE_TARGET)
                .putReturnsNull(true)
                .removeReturnsNull(true);
        // a new file checksums each page (a file keeps the marshaller it was made with)
        if (dir != null) b.valueMarshallers(PageMarshaller.INSTANCE, PageMarshaller.INSTANCE);
        m = ChronicleMaps.open(layout.applyTo(b), dir, FILE);
        trailer = ((VanillaChronicleMap<?, ?, ?>) m).valueReader instanceof PageMarshaller ? PageMarshaller.TRAILER : 0;
        map = m;
        return m;
    }

    /**
     * Room for maxBytes of members in pages a quarter full (the merge threshold), plus one page for
     * each of up to maxEntries small structures; most of it comes as extra tiers on demand.
     */
    static MapLayout layout(StoreConfig config) {
        long maxBytes = config.maxBytes();
        long entries = saturatedAdd(maxBytes / (PAGE_TARGET / 4), Math.min(config.maxEntries(), maxBytes / CHUNK)) + 1;
        long payload = saturatedAdd(maxBytes, saturatedMultiply(entries, CHUNK + ENTRY_OVERHEAD + 32));
        long maxEntry = (long) PAGE_MAX + config.maxKeyBytes() + PAGE_KEY_EXTRA + ENTRY_OVERHEAD;
        return MapLayout.of(entries, payload, maxEntry, CHUNK, 2);
    }

    /** The value of {@code member}, or null. */
    byte[] get(byte[] key, MembersHeader h, byte[] member) {
        if (h.isEmpty()) return null;
        byte[] page = read(key, PageAddress.pageOf(ADDRESS.hashBytes(member), h.pageCount()));
        int at = MemberPage.find(page, member);
        return at < 0 ? null : MemberPage.value(page, at);
    }

    /**
     * Whether {@code member} has exactly {@code value}: read where its page lies, with no copy of the
     * page; where the structure's {@link PageDirectory} says it lies (no lookup, no lock), else under the
     * page's segment read lock, offering the directory the place found. For a caller that does not hold
     * the key's stripe: it validates its reads after ({@link KeyStripes#validate}), since a write may
     * change the page under either read.
     */
    boolean holds(byte[] key, MembersHeader h, byte[] member, byte[] value) {
        ChronicleMap<byte[], byte[]> m = map;
        if (h.isEmpty() || m == null) return false;
        PageDirectory d = directoryOf(key, h);
        long hash = ADDRESS.hashBytes(member);
        PageDirectory.Place seen = d == null ? null : d.place(PageAddress.pageOf(hash, h.pageCount()));
        return holdsAt(m, key, h, d, hash, seen, member, value) != null;
    }

    /**
     * {@link #holds} of each of {@code members}, all of them read (not only up to the first one missing),
     * for a caller without the key's stripe. Each member found with its value in a page whose place is in
     * the structure's directory gets that place in its slot of {@code seen}: a {@link #put} under the
     * stripe that is given it skips the member while that very place is still in the directory, as the
     * page has not been written since (every write of a page forgets its place, and a place a lookup finds
     * is a new object). The reads may overlap a write, since a place is only ever used as that proof.
     */
    boolean holdsAll(byte[] key, MembersHeader h, List<dev.kvs.core.Member> members, Object[] seen) {
        ChronicleMap<byte[], byte[]> m = map;
        if (h.isEmpty() || m == null) return false;
        PageDirectory d = directoryOf(key, h);
        int k = members.size();
        long[] hashes = new long[k];
        PageDirectory.Place[] places = new PageDirectory.Place[k];
        for (int i = 0; i < k; i++) {
            hashes[i] = ADDRESS.hashBytes(members.get(i).name());
            if (d != null) places[i] = d.place(PageAddress.pageOf(hashes[i], h.pageCount()));
        }
        if (d != null && k > 1) touch(places, hashes);
        boolean all = true;
        for (int i = 0; i < k; i++) {
            dev.kvs.core.Member member = members.get(i);
            PageDirectory.Place at = holdsAt(m, key, h, d, hashes[i], places[i], member.name(), member.value());
            if (at == null) all = false;
            else if (at != UNMARKED) seen[i] = at;
        }
        return all;
    }

    /**
     * Where {@link #touch} leaves what it read, so its reads are made, on the one chance in 2^64 that the
     * sum is this: a store each time would be a line the event loops take from each other.
     */
    @SuppressWarnings("unused")
    private static long touched;

    private static final long TOUCHED = 0x5DEECE66DL;

    /**
     * Reads, for each of several members, the memory its check will read: its page's place, the page's
     * index, the entry its tag points to; one step for all the members before the next. The reads of
     * different members then overlap, where checks made one after the other wait for each miss in turn: in
     * a run of 16 SADDs to a large set each check met three or four cache misses (issue 35). Reads only
     * inside each place's page, as {@link StoredPage#holds(long, int, byte[], byte[])}.
     */
    private static void touch(PageDirectory.Place[] places, long[] hashes) {
        int k = places.length;
        int[][] indexes = new int[k][];
        long sum = 0;
        for (int i = 0; i < k; i++) {
            PageDirectory.Place p = places[i];
            if (p != null && p.known()) indexes[i] = p.index();
        }
        for (int i = 0; i < k; i++) {
            int[] index = indexes[i];
            if (index != null && index.length > 0) sum += index[0] + index[index.length - 1];
        }
        for (int i = 0; i < k; i++) {
            int[] index = indexes[i];
            if (index != null) sum += StoredPage.firstByteOfTag(places[i].address(), index, hashes[i]);
        }
        if (sum == TOUCHED) touched = sum;
    }

    /** The directory a reader without the key's stripe may use for a structure of header {@code h}, or null. */
    private PageDirectory directoryOf(byte[] key, MembersHeader h) {
        return h.pageCount() >= PageDirectory.Directories.MIN_PAGES ? directories.find(key) : null;
    }

    /**
     * Whether the page at {@code place}, a place in a directory, holds {@code member} with {@code value}:
     * through the page's index ({@link StoredPage#index}), made now if the place has none, and counted in
     * the directories' bound. In a page of 32 members the index is read in two cache lines where a scan
     * read every member's bytes (issue 35).
     */
    private boolean holds(PageDirectory.Place place, long hash, byte[] member, byte[] value) {
        int[] index = place.index();
        if (index == null) {
            // past half the bound, places go first: an index made only to be dropped with every other
            // would cost its page's hashes for nothing
            if (!directories.roomForIndexes()) return StoredPage.holds(place.address(), place.length(), member, value);
            index = StoredPage.index(place.address(), place.length());
            if (place.index(index)) directories.grew(PageDirectory.Directories.weight(index));
        }
        return StoredPage.holds(place.address(), place.length(), index, hash, member, value);
    }

    /**
     * Puts where page {@code p} lies after a write of it in place of where it lay (the caller holds the
     * key's stripe, and the write is done): the next read of the page needs no lookup. A write that
     * appended a member at {@code appendedAt} (-1: any other write) to a page whose index was {@code
     * indexBefore} gives the new place that index with the member's entry: no read remakes it.
     */
    private void remember(
            PageDirectory d, int p, PageDirectory.Place written, int[] indexBefore, long hash, int appendedAt) {
        int[] index = appendedAt < 0 || indexBefore == null ? null : StoredPage.appended(indexBefore, hash, appendedAt);
        if (index != null && written.index(index)) directories.grew(PageDirectory.Directories.weight(index));
        directories.grew(d.remember(p, written));
    }

    /** {@link #holdsAt}'s answer for a member held in a page whose place is not in a directory. */
    private static final PageDirectory.Place UNMARKED = new PageDirectory.Place(0, 0);

    /**
     * Where {@code member} (of {@code hash}) was found with {@code value}: the place of its page in {@code d}
     * (as read there, {@code seen}, or as found by a lookup and offered to it in place of {@code seen}),
     * {@link #UNMARKED} if held but not at a place in {@code d}, null if not held.
     */
    private PageDirectory.Place holdsAt(
            ChronicleMap<byte[], byte[]> m,
            byte[] key,
            MembersHeader h,
            PageDirectory d,
            long hash,
            PageDirectory.Place seen,
            byte[] member,
            byte[] value) {
        int p = PageAddress.pageOf(hash, h.pageCount());
        if (seen != null && seen.known()) return holds(seen, hash, member, value) ? seen : null;
        try (ExternalMapQueryContext<byte[], byte[], ?> q = m.queryContext(pageKey(key, p))) {
            q.readLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            if (entry == null) return null;
            PageDirectory.Place found = placeOf(entry.value());
            boolean offered = d != null && d.offer(p, seen, found);
            if (!StoredPage.holds(found.address(), found.length(), member, value)) return null;
            return offered ? found : UNMARKED;
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    boolean contains(byte[] key, MembersHeader h, byte[] member) {
        if (h.isEmpty()) return false;
        byte[] page = read(key, PageAddress.pageOf(ADDRESS.hashBytes(member), h.pageCount()));
        return MemberPage.find(page, member) >= 0;
    }

    /**
     * Sets {@code member} to {@code value}. Setting the value it already has writes nothing.
     *
     * @throws EntryTooLargeException if member plus value is over {@link #MAX_MEMBER_BYTES}, or the
     *     page would pass {@link #PAGE_MAX}; nothing was written
     * @throws dev.kvs.core.StoreFullException if the pages map has no room; nothing was written
     */
    Write put(byte[] key, MembersHeader h, byte[] member, byte[] value, boolean wantPrevious) {
        Pending pending = new Pending();
        Write w = put(key, h, member, value, wantPrevious, NOTHING, pending, null);
        settle(key, w.header(), pending);
        return w;
    }

    private static final Runnable NOTHING = () -> {};

    /**
     * {@link #put}, running {@code beforeWrite} just before the member's page is written, and not at all
     * if the member has that value already: the caller's reservation of room ({@link Structures}). If it
     * throws, nothing was written. A split leaves its page in {@code pending}, to {@link #settle} once the
     * header returned is in the key's record. {@code seen}: null, or where {@link #holdsAll} found the member
     * with {@code value}: if that place is still in the directory, the page was not written since, and the
     * member is not read again.
     */
    Write put(
            byte[] key,
            MembersHeader h,
            byte[] member,
            byte[] value,
            boolean wantPrevious,
            Runnable beforeWrite,
            Pending pending,
            Object seen) {
        checkSize(member.length, value.length);
        int n = Math.max(1, h.pageCount());
        long hash = ADDRESS.hashBytes(member);
        int p = PageAddress.pageOf(hash, n);
        PageDirectory d = directories.of(key, n);
        // the index of the page as it is before this write, read before it ({@link PageDirectory.Place})
        int[] indexBefore = null;
        if (d != null && !h.isEmpty()) {
            PageDirectory.Place place = d.place(p);
            if (place != null && place == seen) {
                assert knownAt(key, p, place) && StoredPage.holds(place.address(), place.length(), member, value)
                        : "page " + p + " changed since its place was seen";
                return new Write(h, true, wantPrevious ? value : null);
            }
            if (place != null && place.known()) {
                if (holds(place, hash, member, value)) {
                    assert knownAt(key, p, place);
                    return new Write(h, true, wantPrevious ? value : null);
                }
                indexBefore = place.index();
            }
        }
        ChronicleMap<byte[], byte[]> m = map;
        Write w;
        // the page's place is replaced after its context is closed: Chronicle stores the entry's checksum
        // as the context lets go of its lock, and a kill before that drops the entry at recovery, so nothing
        // more than before is done between the two
        boolean writing = false;
        PageDirectory.Place written = null;
        int appendedAt = -1;
        try (ExternalMapQueryContext<byte[], byte[], ?> q = (m == null ? map() : m).queryContext(pageKey(key, p))) {
            // one lookup of the page for the whole write: read, then rewritten in place of the entry
            q.updateLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            boolean stored = !h.isEmpty() && entry != null;
            PageDirectory.Place found = stored ? placeOf(entry.value()) : null;
            if (stored && d != null) directories.grew(d.remember(p, found));
            if (stored && StoredPage.holds(found.address(), found.length(), member, value)) {
                // the member has that value already: decided where the page lies, with no copy of the page
                // (about 2 KiB per HSET or SADD of redis-benchmark, most of which change nothing), nor of
                // the previous value, which is the one given
                return new Write(h, true, wantPrevious ? value : null);
            }
            byte[] page = stored ? entry.value().getUsing(null) : MemberPage.EMPTY;
            int at = MemberPage.find(page, member);
            beforeWrite.run();
            // a page split earlier in this write may hold copies of members it gave away: not members of it
            boolean hadMembers = pending.contains(p) || unsettled ? hasMembers(page, p, n) : page.length > 0;
            writing = true;
            w = write(h, n, page, at, member, value, wantPrevious, q, entry, hadMembers);
            if (d != null) {
                written = placeOf(q.entry().value());
                if (at < 0) appendedAt = page.length;
            }
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        } finally {
            if (writing) {
                if (written != null) remember(d, p, written, indexBefore, hash, appendedAt);
                else if (d != null) d.forget(p);
                else directories.forget(key, p);
            }
        }
        MembersHeader next = w.header();
        // after the page's context is closed: a split writes other pages of the map
        if (next != h && overTarget(next.count(), next.bytes(), n) && n < PageAddress.MAX_PAGES) {
            return new Write(split(key, next, pending), w.existed(), w.previous());
        }
        return w;
    }

    /**
     * Whether a structure of {@code count} members in {@code bytes} over {@code n} pages should split one:
     * over {@link #PAGE_TARGET} bytes a page, or over {@link #PAGE_MEMBERS} members a page if its {@code n +
     * 1} pages would still hold over a quarter of {@link #PAGE_TARGET} bytes each. The second keeps {@link
     * #layout}'s room (pages a quarter full) and never meets the merge below a quarter of the bytes: a
     * structure just split by its count is over that quarter, and one just merged is under it, so neither
     * splits nor merges back on its next write.
     */
    static boolean overTarget(long count, long bytes, int n) {
        return bytes > (long) n * PAGE_TARGET
                || (count > (long) n * PAGE_MEMBERS && bytes > (long) (n + 1) * (PAGE_TARGET / 4));
    }

    /** Whether a structure of {@code bytes} over {@code n} pages should merge its last page into its parent. */
    static boolean underTarget(long bytes, int n) {
        return bytes < (long) n * PAGE_TARGET / 4;
    }

    /** The fewest pages, at least 1, for which {@link #overTarget} is false (a structure built whole). */
    static int pagesFor(long count, long bytes) {
        long byBytes = Math.max(1, (bytes + PAGE_TARGET - 1) / PAGE_TARGET);
        long byCount = (count + PAGE_MEMBERS - 1) / PAGE_MEMBERS;
        long byQuarter = Math.max(0, (bytes + PAGE_TARGET / 4 - 1) / (PAGE_TARGET / 4) - 1);
        return (int) Math.min(PageAddress.MAX_PAGES, Math.max(byBytes, Math.min(byCount, byQuarter)));
    }

    /**
     * {@link #put} once the member's page of {@code n} is read, the member at {@code at} in it (-1: absent)
     * with another value: {@code q} holds the page, {@code entry} if stored, and the new page is written
     * through them. The header returned is before any split.
     */
    private Write write(
            MembersHeader h,
            int n,
            byte[] page,
            int at,
            byte[] member,
            byte[] value,
            boolean wantPrevious,
            ExternalMapQueryContext<byte[], byte[], ?> q,
            MapEntry<byte[], byte[]> entry,
            boolean hadMembers) {
        long count = h.count();
        long digest = h.digest();
        long bytes = h.bytes();
        byte[] previous = null;
        if (at >= 0) {
            if (wantPrevious) previous = MemberPage.value(page, at);
            int end = MemberPage.entryEnd(page, at);
            digest -= DIGEST.hashBytes(page, at, end - at);
            bytes -= end - at;
        } else {
            count++;
        }
        byte[] updated = MemberPage.with(page, at, member, value);
        if (updated.length > PAGE_MAX) {
            throw new EntryTooLargeException("page of " + updated.length + " bytes over the limit of " + PAGE_MAX
                    + " bytes (MemberPages.PAGE_MAX): too many large members hash alike");
        }
        WriteFaults.beforeWrite();
        if (entry == null) {
            q.insert(q.absentEntry(), q.wrapValueAsData(updated));
            if (WriteFaults.written != null) WriteFaults.afterWrite(q.entry().value());
        } else {
            overwrite(q, entry, updated);
        }
        int added = MemberPage.entrySize(member.length, value.length);
        digest += DIGEST.hashBytes(updated, updated.length - added, added);
        bytes += added;
        MembersHeader next = new MembersHeader(count, n, h.storedPages() + (hadMembers ? 0 : 1), digest, bytes);
        return new Write(next, at >= 0, previous);
    }

    /** Removes {@code member} if present: the page looked up once, and rewritten or dropped in place of its entry. */
    Write remove(byte[] key, MembersHeader h, byte[] member, boolean wantPrevious) {
        Pending pending = new Pending();
        Write w = remove(key, h, member, wantPrevious, pending);
        settle(key, w.header(), pending);
        return w;
    }

    /** {@link #remove}, a merge's page left in {@code pending} to {@link #settle} once the header is stored. */
    Write remove(byte[] key, MembersHeader h, byte[] member, boolean wantPrevious, Pending pending) {
        ChronicleMap<byte[], byte[]> m = map;
        if (h.isEmpty() || m == null) return new Write(h, false, null);
        int n = h.pageCount();
        int p = PageAddress.pageOf(ADDRESS.hashBytes(member), n);
        Removed r;
        boolean writing = false; // the page's place forgotten once the context is closed (see put)
        try (ExternalMapQueryContext<byte[], byte[], ?> q = m.queryContext(pageKey(key, p))) {
            q.updateLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            if (entry == null) return new Write(h, false, null);
            byte[] page = entry.value().getUsing(null);
            int at = MemberPage.find(page, member);
            if (at < 0) return new Write(h, false, null);
            writing = true;
            r = removeAt(h, page, at, q, entry, false, wantPrevious, pending.contains(p) || unsettled ? p : -1, n);
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        } finally {
            if (writing) directories.forget(key, p);
        }
        return new Write(afterRemove(key, h, r, pending), true, r.value());
    }

    /**
     * SPOP of one member: a member picked as {@link #random} picks it (the same draws of {@code random}),
     * and removed from its page in the same lookup of the page, which {@link #random} then {@link #remove}
     * would make twice. Null if the structure is empty.
     */
    Popped pop(byte[] key, MembersHeader h, RandomGenerator random) {
        Pending pending = new Pending();
        Popped popped = pop(key, h, random, pending);
        if (popped != null) settle(key, popped.header(), pending);
        return popped;
    }

    /** {@link #pop}, a merge's page left in {@code pending} to {@link #settle} once the header is stored. */
    Popped pop(byte[] key, MembersHeader h, RandomGenerator random, Pending pending) {
        ChronicleMap<byte[], byte[]> m = map;
        if (h.isEmpty() || m == null) return null;
        int n = h.pageCount();
        PageDraw draw = new PageDraw(h);
        for (int tries = 0; tries < RANDOM_TRIES; tries++) {
            Removed r = popFrom(m, key, draw.page(random), h, random, draw);
            if (r != null) return popped(key, h, r, pending);
        }
        for (int i = 0, p = random.nextInt(n); i < n; i++, p = (p + 1) % n) {
            Removed r = popFrom(m, key, p, h, random, null);
            if (r != null) return popped(key, h, r, pending);
        }
        throw new IllegalStateException("no member in " + n + " pages of a structure counting " + h.count());
    }

    private Popped popped(byte[] key, MembersHeader h, Removed r, Pending pending) {
        return new Popped(new Member(r.name(), r.value()), afterRemove(key, h, r, pending));
    }

    /** A member {@link #pop} removed, and the structure's header after. */
    record Popped(Member member, MembersHeader header) {}

    /**
     * Removes a member of page {@code p} picked as {@link #random} does ({@code draw} null: any member of
     * a page that has one), or returns null and leaves the page if it has none or the draw rejects it.
     */
    private Removed popFrom(
            ChronicleMap<byte[], byte[]> m, byte[] key, int p, MembersHeader h, RandomGenerator random, PageDraw draw) {
        boolean writing = false; // the page's place forgotten once the context is closed (see put)
        try (ExternalMapQueryContext<byte[], byte[], ?> q = m.queryContext(pageKey(key, p))) {
            q.updateLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            if (entry == null) return null; // an empty page is not stored
            // copied before it is counted: counting it where it lies (StoredPage) measured no cheaper (session 27)
            byte[] page = entry.value().getUsing(null);
            // a pop never follows a split in one write: only a failed settle leaves copies in a page
            byte[] own = unsettled ? ownEntries(page, p, h.pageCount()) : page;
            int k = MemberPage.count(own);
            if (k == 0 || (draw != null && !draw.takes(p, k, random))) return null;
            int at = MemberPage.nth(own, random.nextInt(k));
            if (own != page) at = MemberPage.find(page, MemberPage.member(own, at));
            writing = true;
            return removeAt(h, page, at, q, entry, true, true, own != page ? p : -1, h.pageCount());
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        } finally {
            if (writing) directories.forget(key, p);
        }
    }

    /**
     * What a removal from one page did: the member's name and value removed (each null unless asked for),
     * and what it leaves of the header's figures.
     */
    private record Removed(byte[] name, byte[] value, int entryBytes, long digest, boolean pageLeftEmpty) {}

    /**
     * Removes the entry at {@code at} of {@code page}, stored as {@code entry} of {@code q}: the page
     * rewritten, or dropped if that was its last entry. {@code split} is the page's number if a split
     * earlier in this write left copies of other pages' members in it ({@code n} pages), else -1.
     */
    private Removed removeAt(
            MembersHeader h,
            byte[] page,
            int at,
            ExternalMapQueryContext<byte[], byte[], ?> q,
            MapEntry<byte[], byte[]> entry,
            boolean copyName,
            boolean copyValue,
            int split,
            int n) {
        int end = MemberPage.entryEnd(page, at);
        byte[] name = copyName ? MemberPage.member(page, at) : null;
        byte[] value = copyValue ? MemberPage.value(page, at) : null;
        long digest = h.digest() - DIGEST.hashBytes(page, at, end - at);
        byte[] rest = MemberPage.without(page, at);
        WriteFaults.beforeWrite();
        if (rest.length == 0) q.remove(entry);
        else overwrite(q, entry, rest);
        boolean leftEmpty = split < 0 ? rest.length == 0 : !hasMembers(rest, split, n);
        return new Removed(name, value, end - at, digest, leftEmpty);
    }

    /**
     * The header after {@code r}, once the page's context is closed: a merge writes other pages. No merge
     * after a split in the same write: the split's page still holds copies of the members it gave away,
     * which under the header before the write are its own, and a merge would have to drop them.
     */
    private MembersHeader afterRemove(byte[] key, MembersHeader h, Removed r, Pending pending) {
        // the last member gone: every page below pageCount is empty of members (copies are settled away)
        if (h.count() == 1) return MembersHeader.EMPTY;
        int n = h.pageCount();
        long bytes = h.bytes() - r.entryBytes();
        MembersHeader next =
                new MembersHeader(h.count() - 1, n, h.storedPages() - (r.pageLeftEmpty() ? 1 : 0), r.digest(), bytes);
        if (n > 1 && underTarget(bytes, n) && !pending.split) next = merge(key, next, pending);
        return next;
    }

    /**
     * Calls {@code visitor} with the members of the pages from {@code cursor} on, until about {@code
     * count} members (or ten times as many pages) were visited, and returns the cursor to continue
     * with: 0 when the scan is over. A scan from 0 back to 0 returns every member present from its
     * start to its end at least once, whatever was written between calls, and may return one more than
     * once. Only the cursor's low 32 bits count.
     */
    long scan(byte[] key, MembersHeader h, long cursor, int count, BiConsumer<byte[], byte[]> visitor) {
        if (h.isEmpty()) return 0;
        int n = h.pageCount();
        long c = cursor & 0xFFFF_FFFFL;
        int returned = 0;
        long pagesLeft = Math.max(10L, 10L * count);
        do {
            int p = PageAddress.pageAt(c, n);
            byte[] page = readOwn(key, p, n);
            MemberPage.forEach(page, visitor);
            returned += MemberPage.count(page);
            c = PageAddress.after(c, p, n);
        } while (c != 0 && returned < count && --pagesLeft > 0);
        return c;
    }

    /** Every member and value, page by page: O(size). */
    void forEach(byte[] key, MembersHeader h, BiConsumer<byte[], byte[]> visitor) {
        for (int p = 0; p < h.pageCount(); p++) MemberPage.forEach(readOwn(key, p, h.pageCount()), visitor);
    }

    /**
     * A random member, or null if empty: drawn as {@link PageDraw} says, uniform over the members of
     * pages of at most its cap (nearly all). After {@value #RANDOM_TRIES} rejected pages it takes the
     * member from the next non-empty page, so a sparse structure costs a bounded number of reads.
     */
    Member random(byte[] key, MembersHeader h, RandomGenerator random) {
        if (h.isEmpty()) return null;
        int n = h.pageCount();
        PageDraw draw = new PageDraw(h);
        for (int tries = 0; tries < RANDOM_TRIES; tries++) {
            int p = draw.page(random);
            byte[] page = readOwn(key, p, n);
            int k = MemberPage.count(page);
            if (draw.takes(p, k, random)) return pick(page, k, random);
        }
        for (int i = 0, p = random.nextInt(n); i < n; i++, p = (p + 1) % n) {
            byte[] page = readOwn(key, p, n);
            if (page.length > 0) return pick(page, MemberPage.count(page), random);
        }
        throw new IllegalStateException("no member in " + n + " pages of a structure counting " + h.count());
    }

    private static Member pick(byte[] page, int k, RandomGenerator random) {
        int at = MemberPage.nth(page, random.nextInt(k));
        return new Member(MemberPage.member(page, at), MemberPage.value(page, at));
    }

    /**
     * Removes every page of the structure: O(pageCount) map removals under the caller's lock. A very
     * large structure should instead be unlinked from its record at once and swept page by page later.
     */
    void deleteAll(byte[] key, MembersHeader h) {
        for (int p = 0; p < h.pageCount(); p++) store(key, p, MemberPage.EMPTY);
        directories.drop(key);
    }

    /** The structure's canonical image ({@link StructureImage}): what replication ships whole. */
    byte[] image(byte[] key, MembersHeader h) {
        return StructureImage.of(this, key, h);
    }

    /**
     * Writes the members of a canonical {@code image} as the structure at {@code key}, which must have
     * none (a fresh key, or after {@link #deleteAll}), in as many pages as its size needs, and returns
     * its header. On failure some pages may be written that no header covers: garbage as after a crash
     * (see the class comment), overwritten by the next build or put on that key.
     *
     * @throws IllegalArgumentException if {@code image} is not canonical
     */
    MembersHeader build(byte[] key, byte[] image) {
        return StructureImage.build(this, key, image);
    }

    static void checkSize(int memberLength, int valueLength) {
        long size = (long) memberLength + valueLength;
        if (size > MAX_MEMBER_BYTES) {
            throw new EntryTooLargeException("member + value of " + size + " bytes over the limit of "
                    + MAX_MEMBER_BYTES + " bytes (MemberPages.MAX_MEMBER_BYTES)");
        }
    }

    static long digestOf(byte[] entries, int at, int length) {
        return DIGEST.hashBytes(entries, at, length);
    }

    /**
     * Splits the page at the split pointer: writes page {@code n} with the members that move there, and
     * leaves the split page as it is, in {@code pending}, until the header of {@code n + 1} pages is in
     * the record ({@link #settle} then drops the copies). A crash before the record leaves page {@code n}
     * beyond pageCount and the split page whole; after it, copies in the split page that the header says
     * live in page {@code n}: neither loses a member (see {@link #repair}).
     */
    private MembersHeader split(byte[] key, MembersHeader h, Pending pending) {
        int n = h.pageCount();
        int s = PageAddress.splitting(n);
        long bit = 1L << PageAddress.level(n);
        byte[] page = read(key, s);
        // split before in this write, or a settle failed: copies of other pages' members
        boolean copies = pending.contains(s) || unsettled;
        int staying = 0;
        int moving = 0;
        for (int at = 0; at < page.length; ) {
            int end = MemberPage.entryEnd(page, at);
            long hash = memberHash(page, at);
            if (!copies || PageAddress.pageOf(hash, n) == s) {
                if ((hash & bit) != 0) moving += end - at;
                else staying += end - at;
            }
            at = end;
        }
        byte[] move = new byte[moving];
        for (int at = 0, wm = 0; at < page.length; ) {
            int end = MemberPage.entryEnd(page, at);
            long hash = memberHash(page, at);
            if ((!copies || PageAddress.pageOf(hash, n) == s) && (hash & bit) != 0) {
                System.arraycopy(page, at, move, wm, end - at);
                wm += end - at;
            }
            at = end;
        }
        try {
            store(key, n, move); // page n lies beyond pageCount, unread, until the header says n + 1
        } catch (KvsException e) {
            return h;
        }
        pending.add(s);
        pending.split = true;
        int live = staying + moving;
        int stored = h.storedPages() - (live > 0 ? 1 : 0) + (staying > 0 ? 1 : 0) + (moving > 0 ? 1 : 0);
        return new MembersHeader(h.count(), n + 1, stored, h.digest(), h.bytes());
    }

    private static long memberHash(byte[] page, int at) {
        return ADDRESS.hashBytes(page, MemberPage.memberStart(page, at), MemberPage.memberLength(page, at));
    }

    /** Whether {@code page}, page {@code p} of {@code n}, holds a member whose hash names it. */
    private static boolean hasMembers(byte[] page, int p, int n) {
        for (int at = 0; at < page.length; at = MemberPage.entryEnd(page, at)) {
            if (PageAddress.pageOf(memberHash(page, at), n) == p) return true;
        }
        return false;
    }

    /** The entries of {@code page}, page {@code p} of {@code n}, whose member's hash names it: {@code page} itself if all do. */
    private static byte[] ownEntries(byte[] page, int p, int n) {
        int own = 0;
        for (int at = 0; at < page.length; ) {
            int end = MemberPage.entryEnd(page, at);
            if (PageAddress.pageOf(memberHash(page, at), n) == p) own += end - at;
            at = end;
        }
        if (own == page.length) return page;
        byte[] out = new byte[own];
        for (int at = 0, w = 0; at < page.length; ) {
            int end = MemberPage.entryEnd(page, at);
            if (PageAddress.pageOf(memberHash(page, at), n) == p) {
                System.arraycopy(page, at, out, w, end - at);
                w += end - at;
            }
            at = end;
        }
        return out;
    }

    /**
     * Finishes what a write's splits and merges left in {@code pending}, once {@code h} (the header after
     * the write) is in the key's record: a page below its pageCount keeps only the members its hash
     * names, one at or beyond it is removed. If that fails, the copies stay (a lookup never finds them),
     * every read of whole pages leaves them out from then on ({@link #readOwn}), and the store is marked
     * for {@link #repair} at its next open.
     */
    void settle(byte[] key, MembersHeader h, Pending pending) {
        if (pending.pages == null) return;
        int n = h.pageCount();
        for (int p = pending.pages.nextSetBit(0); p >= 0; p = pending.pages.nextSetBit(p + 1)) {
            try {
                if (p >= n) {
                    store(key, p, MemberPage.EMPTY);
                } else {
                    byte[] page = read(key, p);
                    byte[] own = ownEntries(page, p, n);
                    if (own != page) store(key, p, own);
                }
            } catch (KvsException e) {
                unsettled = true;
                LOG.error(
                        "could not settle page {} of a structure after a split or merge (copies of members left in"
                                + " it until the store's next open repairs it): {}",
                        p,
                        e.toString());
            }
        }
        pending.pages = null;
        pending.split = false;
    }

    /** Whether a {@link #settle} failed since the store opened: its next open must {@link #repair}. */
    boolean unsettled() {
        return unsettled;
    }

    /**
     * After a crash, makes the structure of header {@code h} whole again from its pages below pageCount,
     * and returns the header they make: each page keeps the members its hash names (dropping the copies
     * a split or merge cut short left), and the count, bytes, digest and stored pages are recounted (a
     * write cut short between its pages and its record leaves them behind). Pages at or beyond pageCount
     * are {@link #dropPages}'s. {@link MembersHeader#EMPTY} if no member is left; null, with no page
     * changed, if a page is torn (a kill in the middle of its copy in place: its checksum does not match,
     * or its entries do not parse), and so what the structure held is not known.
     */
    MembersHeader repair(byte[] key, MembersHeader h) {
        int n = h.pageCount();
        for (int p = 0; p < n; p++) {
            if (!intact(key, p)) return null;
        }
        long count = 0;
        long bytes = 0;
        long digest = 0;
        int stored = 0;
        for (int p = 0; p < n; p++) {
            byte[] page = read(key, p);
            byte[] own = ownEntries(page, p, n);
            if (own != page) store(key, p, own);
            if (own.length > 0) stored++;
            for (int at = 0; at < own.length; ) {
                int end = MemberPage.entryEnd(own, at);
                count++;
                bytes += end - at;
                digest += DIGEST.hashBytes(own, at, end - at);
                at = end;
            }
        }
        return count == 0 ? MembersHeader.EMPTY : new MembersHeader(count, n, stored, digest, bytes);
    }

    /**
     * Whether page {@code p} of {@code key} is absent or whole: its checksum matches ({@link
     * PageMarshaller}; a map without them: always) and its entries parse, each ending within the page.
     */
    private boolean intact(byte[] key, int p) {
        ChronicleMap<byte[], byte[]> m = map;
        if (m == null) return true;
        try (ExternalMapQueryContext<byte[], byte[], ?> q = m.queryContext(pageKey(key, p))) {
            q.readLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            if (entry == null) return true;
            Data<byte[]> v = entry.value();
            if (trailer > 0 && !PageMarshaller.intact(v.bytes(), v.offset(), v.size())) return false;
            byte[] page = v.getUsing(null);
            for (int at = 0; at < page.length; ) {
                at = MemberPage.entryEnd(page, at);
                if (at < 0 || at > page.length) return false;
            }
            return true;
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            return false; // a varint that does not end, or an entry past the page's end
        }
    }

    /**
     * Removes every stored page that {@code keep} refuses, given its structure key and page number: after
     * a crash, the pages of structures whose record is gone (a delete or a new structure cut short) and
     * those beyond a structure's pageCount. Returns how many were removed.
     */
    long dropPages(BiPredicate<byte[], Integer> keep) {
        ChronicleMap<byte[], byte[]> m = map;
        if (m == null) return 0;
        long dropped = 0;
        try {
            for (int s = 0; s < m.segments(); s++) {
                List<byte[]> pageKeys = new ArrayList<>();
                try (MapSegmentContext<byte[], byte[], ?> c = m.segmentContext(s)) {
                    c.forEachSegmentEntry(e -> pageKeys.add(e.key().getUsing(null)));
                }
                for (byte[] pageKey : pageKeys) {
                    int length = getInt(pageKey, 0);
                    byte[] key = Arrays.copyOfRange(pageKey, 4, 4 + length);
                    int page = getInt(pageKey, 4 + length);
                    if (!keep.test(key, page)) {
                        m.remove(pageKey);
                        directories.forget(key, page);
                        dropped++;
                    }
                }
            }
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
        return dropped;
    }

    static int getInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    /**
     * What one structure write left to {@link #settle} after its record: the pages its splits and merges
     * wrote around. Owned by the write (one thread, under the key's stripe).
     */
    static final class Pending {
        private BitSet pages; // null until a split or merge: most writes have none
        /** A split happened in this write: no merge may follow it (see {@link #afterRemove}). */
        private boolean split;

        void add(int p) {
            if (pages == null) pages = new BitSet();
            pages.set(p);
        }

        boolean contains(int p) {
            return pages != null && pages.get(p);
        }
    }

    /**
     * Merges the last page into its parent: writes the parent with both pages' members and leaves the
     * last page as it is, in {@code pending}, until the header of one page fewer is in the record ({@link
     * #settle} then removes it). A crash before the record leaves copies in the parent that the header
     * says live in the last page; after it, the last page beyond pageCount: neither loses a member.
     */
    private MembersHeader merge(byte[] key, MembersHeader h, Pending pending) {
        int last = h.pageCount() - 1;
        int parent = PageAddress.parent(last);
        // no copies under any header this write may store (no split came before it); after a failed settle,
        // those of writes done
        byte[] from = readOwn(key, last, h.pageCount());
        if (from.length > 0) {
            byte[] into = readOwn(key, parent, h.pageCount());
            if ((long) into.length + from.length > PAGE_MAX) return h;
            byte[] merged = new byte[into.length + from.length];
            System.arraycopy(into, 0, merged, 0, into.length);
            System.arraycopy(from, 0, merged, into.length, from.length);
            try {
                store(key, parent, merged);
            } catch (KvsException e) {
                return h;
            }
            pending.add(last);
            int stored = h.storedPages() - (into.length > 0 ? 1 : 0);
            return new MembersHeader(h.count(), last, stored, h.digest(), h.bytes());
        }
        return new MembersHeader(h.count(), last, h.storedPages(), h.digest(), h.bytes());
    }

    /**
     * Page {@code p} of {@code n} as a scan sees it: its members. The stored page, unless a {@link #settle}
     * failed since the store opened: then without the copies of other pages' members it may still hold.
     */
    byte[] readOwn(byte[] key, int p, int n) {
        byte[] page = read(key, p);
        return unsettled ? ownEntries(page, p, n) : page;
    }

    byte[] read(byte[] key, int page) {
        try {
            ChronicleMap<byte[], byte[]> m = map;
            byte[] bytes = m == null ? null : m.get(pageKey(key, page));
            return bytes == null ? MemberPage.EMPTY : bytes;
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /**
     * Writes {@code bytes} over the stored page of {@code entry} (in place, most often), with what it held
     * kept in an undo slot meanwhile if the map checksums its pages, so that a kill in the middle of the
     * copy can be undone ({@link #restoreIfTorn}).
     */
    private void overwrite(ExternalMapQueryContext<byte[], byte[], ?> q, MapEntry<byte[], byte[]> entry, byte[] bytes) {
        int slot = undo != null && trailer > 0
                ? undo.begin(UndoSlots.PAGE, entry.key().getUsing(null), entry.value())
                : -1;
        try {
            q.replaceValue(entry, q.wrapValueAsData(bytes));
            if (WriteFaults.written != null) WriteFaults.afterWrite(q.entry().value());
        } finally {
            if (slot >= 0) undo.end(slot);
        }
    }

    /**
     * After a crash: puts back {@code old}, the stored bytes (with their checksum) of the page of {@code
     * pageKey} before a write a kill cut short ({@link UndoSlots}), if the page is torn now (its checksum
     * does not match) or gone. Returns whether it did.
     */
    boolean restoreIfTorn(byte[] pageKey, byte[] old) {
        ChronicleMap<byte[], byte[]> m = map;
        if (m == null || trailer == 0 || !PageMarshaller.intact(BytesStore.wrap(old), 0, old.length)) return false;
        try (ExternalMapQueryContext<byte[], byte[], ?> q = m.queryContext(pageKey)) {
            q.updateLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            if (entry != null
                    && PageMarshaller.intact(
                            entry.value().bytes(),
                            entry.value().offset(),
                            entry.value().size())) {
                return false;
            }
            byte[] page = Arrays.copyOf(old, old.length - PageMarshaller.TRAILER);
            // absent: Chronicle's recovery dropped what the kill left (a slot is taken only over a page there)
            if (entry == null) q.insert(q.absentEntry(), q.wrapValueAsData(page));
            else q.replaceValue(entry, q.wrapValueAsData(page));
            return true;
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    /** Stores {@code bytes} as the page, or removes the page if it is empty. */
    void store(byte[] key, int page, byte[] bytes) {
        WriteFaults.beforeWrite();
        try {
            ChronicleMap<byte[], byte[]> m = map;
            if (bytes.length == 0) {
                if (m != null) m.remove(pageKey(key, page));
            } else {
                try (ExternalMapQueryContext<byte[], byte[], ?> q =
                        (m == null ? map() : m).queryContext(pageKey(key, page))) {
                    q.updateLock().lock();
                    MapEntry<byte[], byte[]> entry = q.entry();
                    if (entry == null) q.insert(q.absentEntry(), q.wrapValueAsData(bytes));
                    else overwrite(q, entry, bytes);
                }
            }
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        } finally {
            directories.forget(key, page);
        }
    }

    /** Length-prefixed key then page number: two (key, page) pairs never share a page key. */
    static byte[] pageKey(byte[] key, int page) {
        byte[] out = new byte[key.length + PAGE_KEY_EXTRA];
        putInt(out, 0, key.length);
        System.arraycopy(key, 0, out, 4, key.length);
        putInt(out, 4 + key.length, page);
        return out;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    /** The directory of the structure at {@code key}, or null: for tests. */
    PageDirectory directory(byte[] key) {
        return directories.find(key);
    }

    PageDirectory.Directories directories() {
        return directories;
    }

    /** For assertions: whether page {@code p} of {@code key} is stored at {@code address} with {@code length} bytes. */
    private boolean knownAt(byte[] key, int p, PageDirectory.Place place) {
        long address = place.address();
        int length = place.length();
        try (ExternalMapQueryContext<byte[], byte[], ?> q = map.queryContext(pageKey(key, p))) {
            q.readLock().lock();
            MapEntry<byte[], byte[]> entry = q.entry();
            if (entry == null) throw new AssertionError("page " + p + " remembered at " + address + " is not stored");
            PageDirectory.Place stored = placeOf(entry.value());
            if (stored.address() != address || stored.length() != length) {
                throw new AssertionError("page " + p + " remembered at " + address + " (" + length
                        + " bytes), stored at " + stored.address() + " (" + stored.length() + ")");
            }
            return true;
        }
    }

    /** Pages stored, in all structures. */
    long size() {
        ChronicleMap<byte[], byte[]> m = map;
        return m == null ? 0 : m.longSize();
    }

    /** Removes every page of every structure (the store's clear, under all its locks). */
    void clear() {
        try {
            directories.clear();
            ChronicleMap<byte[], byte[]> m = map;
            if (m != null) m.clear();
        } catch (RuntimeException e) {
            throw ChronicleMaps.translate(e);
        }
    }

    long offHeapMemoryUsed() {
        ChronicleMap<byte[], byte[]> m = map;
        return m == null ? 0 : m.offHeapMemoryUsed();
    }

    @Override
    public synchronized void close() {
        closed = true;
        directories.clear();
        if (map != null) map.close();
    }
}
