package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PageDirectory}: a put of what a large structure holds already reads its page where the
 * directory says it lies, and every write of a page forgets where it lay. The histories here are mostly
 * such puts (the fast path) between the writes that move, rewrite or remove pages: any write that left
 * a stale place would read freed or rewritten memory and answer from it. {@code MemberPages}' own
 * assertion (on in tests) also checks each answer's place against a lookup of the map. Replay a history
 * with {@code -Dkvs.test.seed=}.
 */
class PageDirectoryTest {
    private static final StoreConfig CONFIG =
            StoreConfig.builder().maxBytes(64L << 20).build();

    @TempDir
    Path tempDir;

    private static byte[] b(String s) {
        return s.getBytes();
    }

    /** Where page {@code p} of {@code key} lies in the map, by a lookup: 0 if not stored. */
    private static long storedAt(MemberPages pages, byte[] key, int p) {
        try (ExternalMapQueryContext<byte[], byte[], ?> q = pages.map().queryContext(MemberPages.pageKey(key, p))) {
            q.readLock().lock();
            MapEntry<byte[], byte[]> e = q.entry();
            return e == null ? 0 : e.value().bytes().addressForRead(e.value().offset());
        }
    }

    private static long storedLength(MemberPages pages, byte[] key, int p) {
        try (ExternalMapQueryContext<byte[], byte[], ?> q = pages.map().queryContext(MemberPages.pageKey(key, p))) {
            q.readLock().lock();
            return q.entry().value().size();
        }
    }

    @Test
    void aPutOfAMemberThereKnowsWhereItsPageLiesAndASmallStructureHasNoDirectory() {
        try (MemberPages pages = MemberPages.open(CONFIG, null)) {
            byte[] small = b("small");
            MembersHeader hs =
                    pages.put(small, MembersHeader.EMPTY, b("a"), b(""), false).header();
            pages.put(small, hs, b("a"), b(""), false);
            assertThat(pages.directory(small)).as("a one-page set").isNull();

            byte[] key = b("large");
            MembersHeader h = MembersHeader.EMPTY;
            for (int i = 0; i < 2_000; i++)
                h = pages.put(key, h, b("member:" + i), b(""), false).header();
            assertThat(h.pageCount()).isGreaterThanOrEqualTo(PageDirectory.Directories.MIN_PAGES);
            PageDirectory d = pages.directory(key);
            int known = 0;
            for (int i = 0; i < 2_000; i++) {
                byte[] m = b("member:" + i);
                MemberPages.Write w = pages.put(key, h, m, b(""), false);
                assertThat(w.existed()).isTrue();
                assertThat(w.header()).isSameAs(h);
                d = pages.directory(key);
                int p = PageAddress.pageOf(MemberPages.ADDRESS.hashBytes(m), h.pageCount());
                assertThat(d.place(p).address())
                        .as("page %d of member %d", p, i)
                        .isEqualTo(storedAt(pages, key, p));
                known++;
            }
            assertThat(known).isEqualTo(2_000);
            // a member's page rewritten: its place forgotten, then found again by the next lookup
            byte[] m = b("member:7");
            int p = PageAddress.pageOf(MemberPages.ADDRESS.hashBytes(m), h.pageCount());
            h = pages.remove(key, h, m, false).header();
            assertThat(pages.directory(key).place(p).known())
                    .as("after the page's rewrite")
                    .isFalse();
            h = pages.put(key, h, m, b(""), false).header();
            // a pop rewrites its member's page: forgotten too (after puts that find every page again)
            for (int i = 0; i < 2_000; i++) pages.put(key, h, b("member:" + i), b(""), false);
            assertThat(pages.directory(key).place(p).address())
                    .as("found again")
                    .isEqualTo(storedAt(pages, key, p));
            MemberPages.Popped popped = pages.pop(key, h, new Random(1));
            h = popped.header();
            int q = PageAddress.pageOf(
                    MemberPages.ADDRESS.hashBytes(popped.member().name()), h.pageCount());
            assertThat(pages.directory(key).place(q).known())
                    .as("after a pop from its page")
                    .isFalse();
            // and so does a store of a page (a split's, a merge's, a settle's, a build's)
            int r = (q + 1) % h.pageCount();
            assertThat(pages.directory(key).place(r).known()).isTrue();
            pages.store(key, r, pages.read(key, r));
            assertThat(pages.directory(key).place(r).known())
                    .as("after a store of the page")
                    .isFalse();
            pages.deleteAll(key, h);
            assertThat(pages.directory(key)).as("after deleteAll").isNull();
        }
    }

    /**
     * A page's index ({@link StoredPage#index}) is made by the first read through its place, and counted
     * in the directories' bound as the slots its bytes take; a write that appends a member to the page
     * gives its new place the index with the member's entry, which is the index a read would make of the
     * new page; any other write of the page leaves its index behind with its place.
     */
    @Test
    void aPagesIndexIsMadeByTheFirstReadThroughItsPlaceAndCountedInTheBound() {
        try (MemberPages pages = MemberPages.open(CONFIG, null)) {
            byte[] key = b("large");
            MembersHeader h = MembersHeader.EMPTY;
            for (int i = 0; i < 2_000; i++)
                h = pages.put(key, h, b("member:" + i), b(""), false).header();
            // dropped, then made again by a put under the key's stripe (readers only use a directory)
            pages.directories().clear();
            pages.put(key, h, b("member:0"), b(""), false);
            // the first pass finds each page's place, the second reads there
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < 2_000; i++) {
                    assertThat(pages.holds(key, h, b("member:" + i), b(""))).isTrue();
                }
            }
            assertThat(pages.holds(key, h, b("absent"), b(""))).isFalse();
            PageDirectory d = pages.directory(key);
            long weights = 0;
            for (int p = 0; p < h.pageCount(); p++) {
                int[] index = d.place(p).index();
                assertThat(index).as("page %d", p).isNotNull().isNotSameAs(StoredPage.NO_INDEX);
                weights += PageDirectory.Directories.weight(index);
            }
            assertThat(weights).isGreaterThan(h.pageCount());
            assertThat(pages.directories().slots()).isEqualTo(d.slots() + weights);

            // an append: the new place's index is the one a read of the new page makes
            byte[] added = b("member:" + 2_000);
            int q = PageAddress.pageOf(MemberPages.ADDRESS.hashBytes(added), h.pageCount());
            int[] before = d.place(q).index();
            h = pages.put(key, h, added, b(""), false).header();
            PageDirectory.Place place = pages.directory(key).place(q);
            assertThat(place.address()).isEqualTo(storedAt(pages, key, q));
            assertThat(place.index())
                    .as("the appended index of page %d", q)
                    .isEqualTo(StoredPage.index(place.address(), place.length()))
                    .hasSize(MemberPage.count(pages.read(key, q)));
            assertThat(pages.directories().slots())
                    .as("the page's old index no longer counted, its new one counted")
                    .isEqualTo(d.slots()
                            + weights
                            - PageDirectory.Directories.weight(before)
                            + PageDirectory.Directories.weight(place.index()));

            byte[] m = b("member:7");
            int p = PageAddress.pageOf(MemberPages.ADDRESS.hashBytes(m), h.pageCount());
            h = pages.remove(key, h, m, false).header();
            assertThat(pages.holds(key, h, m, b("")))
                    .as("after the page's rewrite")
                    .isFalse();
            assertThat(pages.directory(key).place(p).index())
                    .as("a place just found")
                    .isNull();
            assertThat(pages.holds(key, h, b("member:" + firstOtherOn(h, p)), b("")))
                    .isTrue();
            assertThat(pages.directory(key).place(p).index()).isNotNull();
        }
    }

    /**
     * Past half the directories' bound, places go first: a read through a place makes no index, and a
     * member is still found by a scan of its page.
     */
    @Test
    void pastHalfTheBoundAReadMakesNoIndex() {
        try (MemberPages pages = MemberPages.open(CONFIG, null, 100)) {
            byte[] key = b("large");
            MembersHeader h = MembersHeader.EMPTY;
            for (int i = 0; i < 2_000; i++)
                h = pages.put(key, h, b("member:" + i), b(""), false).header();
            assertThat(pages.directory(key))
                    .as("the directory, not dropped for the indexes of its pages' writes")
                    .isNotNull();
            assertThat(pages.directory(key).slots()).as("over half of 100").isEqualTo(64);
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < 2_000; i++) {
                    assertThat(pages.holds(key, h, b("member:" + i), b(""))).isTrue();
                }
            }
            PageDirectory d = pages.directory(key);
            assertThat(d).as("the directory, not dropped for indexes").isNotNull();
            int known = 0;
            for (int p = 0; p < h.pageCount(); p++) {
                PageDirectory.Place place = d.place(p);
                if (place != null && place.known()) known++;
                if (place != null) assertThat(place.index()).as("page %d", p).isNull();
            }
            assertThat(known).isEqualTo(h.pageCount());
            assertThat(pages.directories().slots()).isEqualTo(64);
        }
    }

    /** A member of page {@code p} other than member:7, of those put above. */
    private static int firstOtherOn(MembersHeader h, int p) {
        for (int i = 0; ; i++) {
            if (i != 7 && PageAddress.pageOf(MemberPages.ADDRESS.hashBytes(b("member:" + i)), h.pageCount()) == p) {
                return i;
            }
        }
    }

    /**
     * Seeded histories on three structures (two that grow past {@link PageDirectory.Directories#MIN_PAGES}
     * pages, one that stays small), against a model: puts of the value a member has (four in ten), new
     * values, new members, removes, pops, deletes of a whole structure, rebuilds from an image, and a
     * clear now and then; with room for few directories, so they are dropped and made again. In memory and
     * in a file.
     */
    @ParameterizedTest(name = "persisted: {0}")
    @ValueSource(booleans = {false, true})
    void historiesOfRePutsBetweenPageWritesMatchAModel(boolean persisted) {
        for (int run = 0; run < 3; run++) {
            long seed = Long.getLong("kvs.test.seed", System.nanoTime() + run);
            System.out.println(
                    "historiesOfRePutsBetweenPageWritesMatchAModel persisted=" + persisted + " seed " + seed);
            DataDir dir = persisted ? DataDir.open(tempDir.resolve("run" + run)) : null;
            try (MemberPages pages = MemberPages.open(CONFIG, dir, 256)) {
                history(pages, seed);
            } finally {
                if (dir != null) dir.close(true);
            }
        }
    }

    private static void history(MemberPages pages, long seed) {
        Random r = new Random(seed);
        byte[][] keys = {b("big-a"), b("big-b"), b("tiny")};
        int[] universe = {3_000, 1_500, 20};
        List<Map<ByteBuffer, byte[]>> models = new ArrayList<>();
        MembersHeader[] hs = new MembersHeader[keys.length];
        for (int k = 0; k < keys.length; k++) {
            models.add(new HashMap<>());
            hs[k] = MembersHeader.EMPTY;
        }
        for (int op = 0; op < 60_000; op++) {
            int k = r.nextInt(keys.length);
            byte[] key = keys[k];
            Map<ByteBuffer, byte[]> model = models.get(k);
            byte[] m = b("m" + r.nextInt(universe[k]));
            ByteBuffer mk = ByteBuffer.wrap(m);
            String context = "seed " + seed + ", op " + op + ", " + new String(key) + " " + new String(m);
            int kind = r.nextInt(1000);
            if (kind < 400 && model.containsKey(mk)) {
                byte[] v = model.get(mk).clone();
                MemberPages.Write w = pages.put(key, hs[k], m, v, true);
                assertThat(w.existed()).as(context).isTrue();
                assertThat(w.previous()).as(context).isEqualTo(v);
                assertThat(w.header()).as(context).isEqualTo(hs[k]);
            } else if (kind < 750) {
                byte[] v = b(r.nextInt(4) == 0 ? "" : "v" + r.nextInt(1000));
                MemberPages.Write w = pages.put(key, hs[k], m, v, true);
                byte[] old = model.put(mk, v);
                assertThat(w.existed()).as(context).isEqualTo(old != null);
                assertThat(w.previous()).as(context).isEqualTo(old);
                hs[k] = w.header();
            } else if (kind < 900) {
                MemberPages.Write w = pages.remove(key, hs[k], m, true);
                byte[] old = model.remove(mk);
                assertThat(w.existed()).as(context).isEqualTo(old != null);
                assertThat(w.previous()).as(context).isEqualTo(old);
                hs[k] = w.header();
            } else if (kind < 990) {
                MemberPages.Popped popped = pages.pop(key, hs[k], r);
                if (model.isEmpty()) {
                    assertThat(popped).as(context).isNull();
                } else {
                    byte[] old = model.remove(ByteBuffer.wrap(popped.member().name()));
                    assertThat(popped.member().value()).as(context).isEqualTo(old);
                    hs[k] = popped.header();
                }
            } else if (kind < 995) {
                // the whole structure rewritten in place: deleted, then built again from its image
                byte[] image = pages.image(key, hs[k]);
                pages.deleteAll(key, hs[k]);
                hs[k] = model.isEmpty() ? MembersHeader.EMPTY : pages.build(key, image);
            } else if (kind < 998) {
                pages.deleteAll(key, hs[k]);
                hs[k] = MembersHeader.EMPTY;
                model.clear();
            } else {
                pages.clear();
                for (int j = 0; j < keys.length; j++) {
                    hs[j] = MembersHeader.EMPTY;
                    models.get(j).clear();
                }
            }
            assertThat(hs[k].count()).as(context).isEqualTo(model.size());
            assertThat(pages.directories().slots()).as(context).isLessThanOrEqualTo(256);
        }
        for (int k = 0; k < keys.length; k++) {
            Map<ByteBuffer, byte[]> all = new HashMap<>();
            pages.forEach(keys[k], hs[k], (m, v) -> all.put(ByteBuffer.wrap(m), v));
            assertThat(all.keySet()).as("seed " + seed).isEqualTo(models.get(k).keySet());
            for (Map.Entry<ByteBuffer, byte[]> e : models.get(k).entrySet()) {
                assertThat(all.get(e.getKey())).as("seed " + seed).isEqualTo(e.getValue());
            }
        }
    }

    /**
     * A reader without the key's stripe ({@link MemberPages#holds}, as {@code putMembersIfUnchanged}
     * reads) looks up a page while its writer has looked it up and is about to write it: the writer's
     * {@link WriteFaults} hook runs the reader on another thread and waits for it. Chronicle lets the
     * reader's read lock in beside the writer's update lock, so the reader finds the page as it is before
     * the write, and may offer its place. After the write the directory must not hold that place: it
     * knows nothing of the page, or where it lies now with its length now. A forget made before the write
     * instead of after it lets the reader's offer stand (the page's old place, or its old length where
     * the page grew in place).
     */
    @Test
    void aPlaceFoundWhileAWriteIsUnderWayDoesNotOutliveTheWrite() throws Exception {
        byte[] key = b("hot");
        byte[] field = b("field");
        try (MemberPages pages = MemberPages.open(CONFIG, null)) {
            MembersHeader h = hotSet(pages, key, field);
            MembersHeader h0 = h;
            int p = PageAddress.pageOf(MemberPages.ADDRESS.hashBytes(field), h0.pageCount());
            ExecutorService reader = Executors.newSingleThreadExecutor();
            Thread writer = Thread.currentThread();
            AtomicLong readsDuringWrites = new AtomicLong();
            AtomicLong armed = new AtomicLong();
            WriteFaults.hook = () -> {
                if (Thread.currentThread() != writer || armed.getAndSet(0) == 0) return;
                try {
                    // the slot empty at the write, so the reader looks the page up and offers its place: as
                    // a remove or a pop finds it (they remember nothing) after an earlier write forgot it
                    pages.directory(key).forget(p);
                    reader.submit(() -> pages.holds(key, h0, field, valueOf(0))).get(10, TimeUnit.SECONDS);
                    readsDuringWrites.incrementAndGet();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            try {
                for (long k = 1; k <= 40; k++) {
                    armed.set(1);
                    h = pages.put(key, h, field, valueOf(k), false).header();
                    assertThat(h.pageCount()).isEqualTo(h0.pageCount());
                    PageDirectory.Place place = pages.directory(key).place(p);
                    if (place != null && place.known()) {
                        assertThat(place.address()).as("write %d: address", k).isEqualTo(storedAt(pages, key, p));
                        assertThat(place.length()).as("write %d: length", k).isEqualTo(storedLength(pages, key, p));
                    }
                }
            } finally {
                WriteFaults.hook = null;
                reader.shutdownNow();
            }
            assertThat(readsDuringWrites.get())
                    .as("reads made while a write was under way")
                    .isEqualTo(40);
            // and the next reader finds the page again, and answers from it
            assertThat(pages.holds(key, h, field, valueOf(40))).isTrue();
            assertThat(pages.holds(key, h, field, valueOf(39))).isFalse();
            assertThat(pages.directory(key).place(p).address()).isEqualTo(storedAt(pages, key, p));
        }
    }

    /**
     * A run's member read without the key's stripe while a write of its page is under way (the writer's
     * {@link WriteFaults} hook runs the read on another thread, after the writer's lookup and before its
     * write) is found with its old value and marked with the page's place. The write then puts the page's
     * new place in the directory, so a put of the old value under the stripe with that mark writes it
     * again: a mark made before a write never outlives it. Without the new place, the put trusts the mark
     * and writes nothing: the store's assertion that a skipped page lies where its mark says fails, or
     * without assertions "the old value written again".
     */
    @Test
    void aMarkMadeWhileAWriteIsUnderWayDoesNotOutliveTheWrite() throws Exception {
        byte[] key = b("hot");
        byte[] field = b("field");
        try (MemberPages pages = MemberPages.open(CONFIG, null)) {
            MembersHeader h = hotSet(pages, key, field);
            ExecutorService reader = Executors.newSingleThreadExecutor();
            Thread writer = Thread.currentThread();
            AtomicReference<Object> mark = new AtomicReference<>();
            AtomicReference<MembersHeader> readAt = new AtomicReference<>();
            AtomicReference<byte[]> oldValue = new AtomicReference<>();
            AtomicLong armed = new AtomicLong();
            WriteFaults.hook = () -> {
                if (Thread.currentThread() != writer || armed.getAndSet(0) == 0) return;
                try {
                    reader.submit(() -> {
                                Object[] seen = new Object[1];
                                boolean held = pages.holdsAll(
                                        key,
                                        readAt.get(),
                                        List.of(new dev.kvs.core.Member(field, oldValue.get())),
                                        seen);
                                assertThat(held)
                                        .as("the old value, read before the write")
                                        .isTrue();
                                mark.set(seen[0]);
                            })
                            .get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            try {
                for (long k = 1; k <= 20; k++) {
                    // the page read once first, so its place is in the directory for the read in the hook
                    assertThat(pages.holds(key, h, field, valueOf(k - 1))).isTrue();
                    readAt.set(h);
                    oldValue.set(valueOf(k - 1));
                    mark.set(null);
                    armed.set(1);
                    h = pages.put(key, h, field, valueOf(k), false).header();
                    assertThat(mark.get())
                            .as("write %d: a mark made during it", k)
                            .isNotNull();
                    MemberPages.Pending pending = new MemberPages.Pending();
                    MemberPages.Write w = pages.put(key, h, field, valueOf(k - 1), true, () -> {}, pending, mark.get());
                    pages.settle(key, w.header(), pending);
                    assertThat(w.previous()).as("write %d: the value before", k).isEqualTo(valueOf(k));
                    assertThat(pages.get(key, w.header(), field))
                            .as("write %d: the old value written again", k)
                            .isEqualTo(valueOf(k - 1));
                    h = pages.put(key, w.header(), field, valueOf(k), false).header();
                }
            } finally {
                WriteFaults.hook = null;
                reader.shutdownNow();
            }
        }
    }

    /**
     * A reader's offer of a place it found before a write of the page forgot it does not stand: it is
     * made only if the slot still holds what the reader saw before its lookup.
     */
    @Test
    void anOfferMadeOnASlotAWriteForgotSinceFails() {
        byte[] key = b("large");
        try (MemberPages pages = MemberPages.open(CONFIG, null)) {
            MembersHeader h = MembersHeader.EMPTY;
            for (int i = 0; i < 2_000; i++)
                h = pages.put(key, h, b("member:" + i), b(""), false).header();
            PageDirectory d = pages.directory(key);
            int p = 3;
            PageDirectory.Place seen = d.place(p); // what a reader saw before its lookup
            d.forget(p); // a write of the page, finished meanwhile
            try (ExternalMapQueryContext<byte[], byte[], ?> q = pages.map().queryContext(MemberPages.pageKey(key, p))) {
                q.readLock().lock();
                d.offer(p, seen, pages.placeOf(q.entry().value()));
            }
            assertThat(d.place(p).known()).as("a stale offer").isFalse();
            PageDirectory.Place now = d.place(p);
            try (ExternalMapQueryContext<byte[], byte[], ?> q = pages.map().queryContext(MemberPages.pageKey(key, p))) {
                q.readLock().lock();
                d.offer(p, now, pages.placeOf(q.entry().value()));
            }
            assertThat(d.place(p).address()).as("an offer on the slot as seen").isEqualTo(storedAt(pages, key, p));
        }
    }

    /** The store's stats count the directories' slots, within their bound, and a clear drops them. */
    @Test
    void theStoresStatsShowTheDirectoriesSlotsAndTheirBound() {
        try (ChronicleKvStore store = ChronicleKvStore.open(CONFIG)) {
            assertThat(store.stats().pageDirectorySlots()).isZero();
            assertThat(store.stats().maxPageDirectorySlots()).isEqualTo(MemberPages.DIRECTORY_SLOTS);
            List<dev.kvs.core.Member> members = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) members.add(dev.kvs.core.Member.of(b("member:" + i)));
            store.putMembers(b("set"), dev.kvs.core.ValueType.SET, members, false, () -> dev.kvs.core.TxId.of(1, 1));
            store.putMembers(b("set"), dev.kvs.core.ValueType.SET, members, false, () -> dev.kvs.core.TxId.of(1, 2));
            long slots = store.stats().pageDirectorySlots();
            assertThat(slots).isBetween((long) PageDirectory.Directories.MIN_PAGES, MemberPages.DIRECTORY_SLOTS);
            store.clear();
            assertThat(store.stats().pageDirectorySlots()).isZero();
        }
    }

    /** The field's value after its k-th write: short and long in turn, so its page is reallocated. */
    /**
     * 3,000 members and {@code field} at {@code valueOf(0)}, its long value written once first: the splits
     * it makes come now, so writes of the field's values after keep the page count.
     */
    private static MembersHeader hotSet(MemberPages pages, byte[] key, byte[] field) {
        MembersHeader h = MembersHeader.EMPTY;
        for (int i = 0; i < 3_000; i++)
            h = pages.put(key, h, b("m:" + i), b(""), false).header();
        h = pages.put(key, h, field, valueOf(1), false).header();
        return pages.put(key, h, field, valueOf(0), false).header();
    }

    private static byte[] valueOf(long k) {
        String v = "v" + k;
        return b(k % 2 == 0 ? v : v + "-".repeat(600));
    }
}
