package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.MapSegmentContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemberPagesTest {
    private static final byte[] KEY = "h".getBytes();
    private static final StoreConfig CONFIG =
            StoreConfig.builder().maxBytes(64L << 20).build();

    @TempDir
    Path tempDir;

    private final MemberPages pages = MemberPages.open(CONFIG, null);

    @AfterEach
    void close() {
        pages.close();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private MembersHeader putAll(MemberPages into, byte[] key, MembersHeader h, Map<String, String> members) {
        for (Map.Entry<String, String> e : members.entrySet()) {
            h = into.put(key, h, b(e.getKey()), b(e.getValue()), false).header();
        }
        return h;
    }

    private static Map<String, String> contents(MemberPages from, byte[] key, MembersHeader h) {
        Map<String, String> out = new HashMap<>();
        from.forEach(key, h, (m, v) -> out.put(new String(m), new String(v)));
        return out;
    }

    private static Map<String, String> members(int n, String valuePrefix) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) m.put("field" + i, valuePrefix + i);
        return m;
    }

    @Test
    void putReportsWhetherNewAndThePreviousValueOnlyWhenAsked() {
        MemberPages.Write first = pages.put(KEY, MembersHeader.EMPTY, b("f"), b("1"), true);
        assertThat(first.existed()).isFalse();
        assertThat(first.previous()).isNull();
        MemberPages.Write second = pages.put(KEY, first.header(), b("f"), b("2"), true);
        assertThat(second.existed()).isTrue();
        assertThat(second.previous()).isEqualTo(b("1"));
        MemberPages.Write third = pages.put(KEY, second.header(), b("f"), b("3"), false);
        assertThat(third.previous()).isNull();
        assertThat(third.header().count()).isEqualTo(1);
        assertThat(pages.get(KEY, third.header(), b("f"))).isEqualTo(b("3"));
    }

    @Test
    void settingTheSameValueReturnsTheSameHeader() {
        MembersHeader h =
                pages.put(KEY, MembersHeader.EMPTY, b("f"), b("v"), false).header();
        assertThat(pages.put(KEY, h, b("f"), b("v"), false).header()).isSameAs(h);
    }

    /**
     * A put that changes nothing is decided where the page lies (StoredPage), 8 bytes at a time then byte
     * by byte: a difference in any byte of member or value, or in a length (one- and two-byte varints),
     * must still write.
     */
    @Test
    void aPutChangesNothingOnlyIfEveryByteOfMemberAndValueIsTheSame() {
        MembersHeader h = MembersHeader.EMPTY;
        List<byte[]> members = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        int[] memberLengths = {1, 7, 8, 9, 17, 130};
        int[] valueLengths = {0, 1, 7, 8, 9, 16, 200, 1025};
        for (int m : memberLengths) {
            for (int v : valueLengths) {
                byte[] member = new byte[m];
                byte[] value = new byte[v];
                for (int i = 0; i < m; i++) member[i] = (byte) ('a' + (i * 7 + v) % 26);
                if (m > 1) member[m - 1] = 'z'; // members end alike: the last-byte check alone tells none apart
                for (int i = 0; i < v; i++) value[i] = (byte) (i * 31 + m);
                h = pages.put(KEY, h, member, value, false).header();
                members.add(member);
                values.add(value);
            }
        }
        for (int i = 0; i < members.size(); i++) {
            byte[] member = members.get(i);
            byte[] value = values.get(i);
            MemberPages.Write same = pages.put(KEY, h, member.clone(), value.clone(), true);
            assertThat(same.header()).as("member %d", i).isSameAs(h);
            assertThat(same.existed()).isTrue();
            assertThat(same.previous()).isEqualTo(value);
            for (int at : new int[] {0, value.length / 2, value.length - 1}) {
                if (value.length == 0) break;
                byte[] other = value.clone();
                other[at] ^= 1;
                MemberPages.Write w = pages.put(KEY, h, member, other, true);
                assertThat(w.header()).as("member %d, value byte %d", i, at).isNotEqualTo(h);
                assertThat(w.previous()).isEqualTo(value);
                assertThat(pages.get(KEY, w.header(), member)).isEqualTo(other);
                h = pages.put(KEY, w.header(), member, value, false).header();
            }
            byte[] longer = Arrays.copyOf(value, value.length + 1);
            MemberPages.Write w = pages.put(KEY, h, member, longer, false);
            assertThat(w.header()).as("member %d, longer value", i).isNotEqualTo(h);
            assertThat(pages.get(KEY, w.header(), member)).isEqualTo(longer);
            h = pages.put(KEY, w.header(), member, value, false).header();
            if (member.length > 1) {
                byte[] another = member.clone();
                another[0] ^= 1;
                if (members.stream().noneMatch(x -> Arrays.equals(x, another))) {
                    MemberPages.Write added = pages.put(KEY, h, another, value, false);
                    assertThat(added.existed()).as("member %d, first byte", i).isFalse();
                    h = pages.remove(KEY, added.header(), another, false).header();
                }
            }
        }
        assertThat(h.count()).isEqualTo(members.size());
    }

    @Test
    void aSetIsAHashWithEmptyValues() {
        MembersHeader h = MembersHeader.EMPTY;
        for (String m : List.of("a", "b", "c"))
            h = pages.put(KEY, h, b(m), new byte[0], false).header();
        assertThat(pages.contains(KEY, h, b("b"))).isTrue();
        assertThat(pages.contains(KEY, h, b("z"))).isFalse();
        assertThat(pages.get(KEY, h, b("a"))).isEmpty();
        assertThat(h.bytes()).isEqualTo(3 * 3);
    }

    @Test
    void structuresUnderDifferentKeysDoNotMix() {
        MembersHeader a = putAll(pages, b("a"), MembersHeader.EMPTY, members(500, "a"));
        MembersHeader ab = putAll(pages, b("ab"), MembersHeader.EMPTY, members(300, "ab"));
        assertThat(contents(pages, b("a"), a)).isEqualTo(members(500, "a"));
        assertThat(contents(pages, b("ab"), ab)).isEqualTo(members(300, "ab"));
        assertThat(MemberPages.pageKey(b("a"), 0x62000000)).isNotEqualTo(MemberPages.pageKey(b("ab"), 0));
    }

    @Test
    void equalContentsReachedByDifferentHistoriesHaveEqualDigestsAndImages() {
        // values of about 100 bytes: the direct history splits its pages by their bytes, the other by the
        // count of its small extra members, and removing those merges nothing (pages stay over a quarter full)
        Map<String, String> target = members(2000, "v".repeat(100));
        MembersHeader direct = putAll(pages, b("x"), MembersHeader.EMPTY, target);

        List<String> order = new ArrayList<>(target.keySet());
        Collections.shuffle(order, new Random(7));
        MembersHeader other = MembersHeader.EMPTY;
        for (int i = 0; i < 5000; i++)
            other = pages.put(b("y"), other, b("extra" + i), b("e"), false).header();
        for (String m : order)
            other = pages.put(b("y"), other, b(m), b("old"), false).header();
        for (String m : order)
            other = pages.put(b("y"), other, b(m), b(target.get(m)), false).header();
        for (int i = 0; i < 5000; i++)
            other = pages.remove(b("y"), other, b("extra" + i), false).header();

        assertThat(other.pageCount()).isNotEqualTo(direct.pageCount());
        assertThat(other.digest()).isEqualTo(direct.digest());
        assertThat(other.count()).isEqualTo(direct.count());
        assertThat(other.bytes()).isEqualTo(direct.bytes());
        assertThat(pages.image(b("y"), other)).isEqualTo(pages.image(b("x"), direct));

        MembersHeader changed =
                pages.put(b("y"), other, b("field7"), b("v8"), false).header();
        assertThat(changed.digest()).isNotEqualTo(direct.digest());
        MembersHeader swapped =
                pages.put(b("y"), changed, b("field8"), b("v7"), false).header();
        assertThat(swapped.digest()).as("values swapped between members").isNotEqualTo(direct.digest());
    }

    @Test
    void anImageRebuildsTheSameStructureAnywhere() {
        Map<String, String> target = members(5000, "value-");
        MembersHeader h = putAll(pages, KEY, MembersHeader.EMPTY, target);
        byte[] image = pages.image(KEY, h);
        try (MemberPages other = MemberPages.open(CONFIG, null)) {
            MembersHeader rebuilt = other.build(b("elsewhere"), image);
            assertThat(contents(other, b("elsewhere"), rebuilt)).isEqualTo(target);
            assertThat(rebuilt.digest()).isEqualTo(h.digest());
            assertThat(rebuilt.bytes()).isEqualTo(h.bytes());
            assertThat(rebuilt.storedPages()).isEqualTo((int) other.size());
            assertThat(other.image(b("elsewhere"), rebuilt)).isEqualTo(image);
            MembersHeader grown =
                    other.put(b("elsewhere"), rebuilt, b("new"), b("1"), false).header();
            assertThat(other.get(b("elsewhere"), grown, b("field42"))).isEqualTo(b("value-42"));
        }
        assertThat(pages.build(b("empty"), pages.image(b("empty"), MembersHeader.EMPTY)))
                .isEqualTo(MembersHeader.EMPTY);
    }

    @Test
    void aNonCanonicalImageIsRefused() {
        MembersHeader h = putAll(pages, KEY, MembersHeader.EMPTY, Map.of("a", "1", "b", "2"));
        byte[] image = pages.image(KEY, h);
        byte[] swapped = image.clone();
        swapped[3] = 'b'; // entries: [1]['a'][1]['1'] then [1]['b']...: now "b" comes before "b"
        assertThatThrownBy(() -> pages.build(b("copy"), swapped))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("members out of order");
        assertThatThrownBy(() -> pages.build(b("copy"), Arrays.copyOf(image, image.length - 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a canonical structure image");
        byte[] hugeCount = {StructureImage.FORMAT, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F};
        assertThatThrownBy(() -> pages.build(b("copy"), hugeCount))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a canonical structure image: count 268435455 at byte 1");
        assertThat(pages.size()).as("nothing written").isEqualTo(h.storedPages());
    }

    @Test
    void deleteAllRemovesEveryPage() {
        MembersHeader h = putAll(pages, KEY, MembersHeader.EMPTY, members(3000, "v"));
        assertThat(pages.size()).isEqualTo(h.storedPages()).isGreaterThan(10);
        pages.deleteAll(KEY, h);
        assertThat(pages.size()).isZero();
        assertThat(pages.put(KEY, MembersHeader.EMPTY, b("f"), b("v"), false)
                        .header()
                        .count())
                .isEqualTo(1);
    }

    @ParameterizedTest(name = "closed cleanly: {0}")
    @ValueSource(booleans = {true, false})
    void aPersistedStructureIsThereAfterReopening(boolean clean) {
        StoreConfig config = StoreConfig.builder().from(CONFIG).dataDir(tempDir).build();
        Map<String, String> target = members(4000, "persisted");
        MembersHeader h;
        DataDir dir = DataDir.open(tempDir);
        try (MemberPages persisted = MemberPages.open(config, dir)) {
            h = putAll(persisted, KEY, MembersHeader.EMPTY, target);
        } finally {
            dir.close(clean); // not clean: the next open recovers the file (ChronicleMaps.open)
        }
        ByteBuffer saved = ByteBuffer.allocate(MembersHeader.BYTES);
        h.writeTo(saved);
        MembersHeader reread = MembersHeader.readFrom(saved.flip());
        assertThat(reread).isEqualTo(h);
        DataDir again = DataDir.open(tempDir);
        assertThat(again.recoveryNeeded()).isEqualTo(!clean);
        try (MemberPages reopened = MemberPages.open(config, again)) {
            assertThat(contents(reopened, KEY, reread)).isEqualTo(target);
            assertThat(reopened.size()).isEqualTo(reread.storedPages());
        } finally {
            again.close(true);
        }
        assertThat(tempDir.resolve("member-pages.dat")).exists();
    }

    @Test
    void aMemberAndValueOverTheLimitIsRefusedNamingIt() {
        byte[] member = new byte[1000];
        MembersHeader h = pages.put(
                        KEY, MembersHeader.EMPTY, member, new byte[MemberPages.MAX_MEMBER_BYTES - 1000], false)
                .header();
        assertThatThrownBy(() -> pages.put(KEY, h, b("g"), new byte[MemberPages.MAX_MEMBER_BYTES], false))
                .isInstanceOf(EntryTooLargeException.class)
                .hasMessage(
                        "member + value of 16385 bytes over the limit of 16384 bytes (MemberPages.MAX_MEMBER_BYTES)");
        assertThat(pages.get(KEY, h, b("g"))).isNull();
        assertThat(h.count()).isEqualTo(1);
    }

    @Test
    void aFullPagesMapRefusesWithStoreFullAndKeepsWhatItHad() {
        StoreConfig tiny =
                StoreConfig.builder().maxEntries(100).maxBytes(64 << 10).build();
        try (MemberPages small = MemberPages.open(tiny, null)) {
            int written = 0;
            Throwable failure = null;
            for (; written < 1_000_000 && failure == null; written++) {
                try {
                    small.put(b("key" + written), MembersHeader.EMPTY, b("m"), new byte[200], false);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            assertThat(failure)
                    .isInstanceOf(StoreFullException.class)
                    .hasMessageStartingWith("store full: a backing map has no room left");
            MembersHeader first = new MembersHeader(1, 1, 1, 0, 0);
            assertThat(small.get(b("key0"), first, b("m"))).hasSize(200);
        }
    }

    @Test
    void aDefaultStoresPagesMapReservesLessThanItsMaxBytesUpFront() {
        StoreConfig defaults = StoreConfig.defaults();
        MapLayout layout = MemberPages.layout(defaults);
        assertThat(layout.baseBytes()).isLessThan(defaults.maxBytes());
        long pageMaxEntry = MemberPages.PAGE_MAX + defaults.maxKeyBytes() + MemberPages.PAGE_KEY_EXTRA;
        assertThat(layout.chunksPerTier() * layout.chunkSize()).isGreaterThanOrEqualTo(2 * pageMaxEntry);
    }

    /**
     * In memory, the pages of a structure lie in one segment per {@link PageKeyAccess#GROUP_PAGES} of
     * them (issue 35: a lookup among the pages of a large set touches a few segments' memory, not all
     * of the map's): a set of 30,000 small members.
     */
    @Test
    void inMemoryEachGroupOfALargeSetsPagesSharesASegment() {
        MembersHeader h = MembersHeader.EMPTY;
        for (int i = 0; i < 30_000; i++)
            h = pages.put(KEY, h, b("element:" + i), new byte[0], false).header();
        ChronicleMap<byte[], byte[]> map = pages.map();
        Set<Integer> used = new HashSet<>();
        for (int s = 0; s < map.segments(); s++) {
            int segment = s;
            try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(s)) {
                c.forEachSegmentEntry(e -> used.add(segment));
            }
        }
        int groups = (h.pageCount() + PageKeyAccess.GROUP_PAGES - 1) / PageKeyAccess.GROUP_PAGES;
        assertThat(h.pageCount()).isGreaterThan(8 * PageKeyAccess.GROUP_PAGES);
        assertThat(map.segments()).isGreaterThan(4 * groups);
        assertThat(used).hasSizeBetween(2, groups);
    }

    @Test
    void randomMembersAreAboutUniform() {
        Map<String, String> target = members(1000, "v");
        MembersHeader h = putAll(pages, KEY, MembersHeader.EMPTY, target);
        Map<String, Integer> drawn = new HashMap<>();
        Random r = new Random(3);
        int draws = 200_000;
        for (int i = 0; i < draws; i++)
            drawn.merge(new String(pages.random(KEY, h, r).name()), 1, Integer::sum);
        assertThat(drawn).containsOnlyKeys(target.keySet());
        int expected = draws / target.size();
        assertThat(Collections.min(drawn.values())).isGreaterThan(expected / 2);
        assertThat(Collections.max(drawn.values())).isLessThan(expected * 2);
    }

    /**
     * redis-benchmark's set members (16 bytes a page entry) would fill pages of {@link
     * MemberPages#PAGE_TARGET} bytes 128 at a time, and each lookup scans its page: pages split by their
     * count too, to about {@link MemberPages#PAGE_MEMBERS} members, while members of 1 KiB still fill
     * pages by bytes.
     */
    @Test
    void pagesOfSmallMembersSplitByTheirCountAndPagesOfLargeOnesByTheirBytes() {
        MembersHeader small = MembersHeader.EMPTY;
        for (int i = 0; i < 20_000; i++)
            small = pages.put(KEY, small, b("element:" + (100_000 + i)), MemberPage.EMPTY, false)
                    .header();
        assertThat(small.count() / (double) small.pageCount())
                .as("members a page, of %d in %d bytes", small.count(), small.bytes())
                .isBetween(MemberPages.PAGE_MEMBERS / 2.0, MemberPages.PAGE_MEMBERS * 1.25);

        byte[] kib = new byte[1024];
        MembersHeader large = MembersHeader.EMPTY;
        for (int i = 0; i < 2_000; i++)
            large = pages.put(b("large"), large, b("f" + i), kib, false).header();
        assertThat(large.bytes() / (double) large.pageCount())
                .as("bytes a page")
                .isBetween(MemberPages.PAGE_TARGET / 2.0, MemberPages.PAGE_TARGET * 1.0);
    }

    /**
     * The split rule never meets the merge rule: a structure just split (by bytes or by count) is not under
     * the merge threshold, a structure just merged is not over the split one, and a structure built whole
     * from an image gets the fewest pages not over it. Seeded random counts, sizes and page counts.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void aStructureNeverSplitsAndMergesBackOnItsNextWrite(long seed) {
        System.out.println("seed " + seed);
        Random random = new Random(seed);
        for (int i = 0; i < 100_000; i++) {
            int n = 1 + random.nextInt(random.nextBoolean() ? 8 : 10_000);
            long count = random.nextInt(n * MemberPages.PAGE_MEMBERS * 3 + 1);
            long bytes = count * (2 + random.nextInt(random.nextBoolean() ? 40 : 4000));
            String at = "count " + count + ", bytes " + bytes + ", pages " + n;
            if (MemberPages.overTarget(count, bytes, n))
                assertThat(MemberPages.underTarget(bytes, n + 1)).as(at).isFalse();
            if (n > 1 && MemberPages.underTarget(bytes, n))
                assertThat(MemberPages.overTarget(count, bytes, n - 1)).as(at).isFalse();
            int built = MemberPages.pagesFor(count, bytes);
            assertThat(MemberPages.overTarget(count, bytes, built)).as(at).isFalse();
            if (built > 1)
                assertThat(MemberPages.overTarget(count, bytes, built - 1))
                        .as(at)
                        .isTrue();
        }
    }

    /**
     * SPOP's cost is the pages it looks at before one takes a member: each page looked at draws one
     * random value, and one more to take or pass it. Pages picked by the share of the hash space they
     * cover ({@link PageDraw}) take a member after 1.5 to 2 pages on a set of short members as
     * redis-benchmark's; a page picked by number and a cap of four times the mean took about four.
     */
    @Test
    void popLooksAtAboutTwoPagesAMember() {
        MembersHeader h = MembersHeader.EMPTY;
        for (int i = 0; i < 20_000; i++)
            h = pages.put(KEY, h, b("element:" + (100_000 + i)), MemberPage.EMPTY, false)
                    .header();
        long[] drawn = new long[1];
        Random seeded = new Random(11);
        java.util.random.RandomGenerator counting = () -> {
            drawn[0]++;
            return seeded.nextLong();
        };
        int pops = 10_000;
        for (int i = 0; i < pops; i++) h = pages.pop(KEY, h, counting).header();
        assertThat(h.count()).isEqualTo(10_000);
        // per pop: two values for each page looked at (the page, take or pass) and one for the member
        double pagesPerPop = (drawn[0] / (double) pops - 1) / 2;
        assertThat(pagesPerPop).as("pages looked at per pop").isLessThan(2.2);
    }

    /**
     * A structure of one page (a small set, a session's hash) holds every member in the page any draw
     * looks at: a pop takes one of them there, drawing the page and the member, with no draw to take
     * or pass the page.
     */
    @Test
    void popOfAStructureOfOnePageLooksAtThatPageOnce() {
        MembersHeader h = putAll(pages, KEY, MembersHeader.EMPTY, members(10, "v"));
        assertThat(h.pageCount()).isEqualTo(1);
        long[] drawn = new long[1];
        Random seeded = new Random(13);
        java.util.random.RandomGenerator counting = () -> {
            drawn[0]++;
            return seeded.nextLong();
        };
        for (int i = 0; i < 7; i++) h = pages.pop(KEY, h, counting).header();
        assertThat(h.count()).isEqualTo(3);
        assertThat(drawn[0]).as("values drawn by 7 pops").isEqualTo(14);
    }

    /**
     * With pages split and not yet split (the deeper hold half the hash space of the others), the draw
     * weighs each page by its share of the hash space and caps it by its expected members: a member of
     * either kind of page is drawn as often. Measured as the share of draws that land in deep pages
     * against the share of members those pages hold.
     */
    @Test
    void randomDrawsMembersOfDeepAndShallowPagesAlike() {
        MembersHeader h = MembersHeader.EMPTY;
        for (int i = 0; i < 3_000; i++)
            h = pages.put(KEY, h, b("element:" + i), MemberPage.EMPTY, false).header();
        int n = h.pageCount();
        int level = PageAddress.level(n);
        assertThat(n).as("pages of two depths").isNotEqualTo(1 << level);
        Map<String, Boolean> deep = new HashMap<>();
        for (int p = 0; p < n; p++) {
            boolean d = PageAddress.depth(p, n) > level;
            MemberPage.forEach(pages.read(KEY, p), (m, v) -> deep.put(new String(m), d));
        }
        double deepShare = deep.values().stream().filter(d -> d).count() / (double) deep.size();
        Random r = new Random(5);
        int draws = 200_000;
        int inDeep = 0;
        for (int i = 0; i < draws; i++)
            if (deep.get(new String(pages.random(KEY, h, r).name()))) inDeep++;
        // a binomial share of 200,000 draws: one standard deviation is about 0.0011
        assertThat(inDeep / (double) draws).isCloseTo(deepShare, org.assertj.core.data.Offset.offset(0.006));
    }

    /**
     * A put decides where the page lies whether the member has the value already ({@link StoredPage},
     * eight bytes at a time, then byte by byte): the same value writes nothing, and a value that differs
     * only in its last byte, or only in its length, is written.
     */
    @ParameterizedTest(name = "value of {0} bytes")
    @ValueSource(ints = {0, 9, 1_000, 15_000})
    void aPutOfTheValueAMemberHasWritesNothingOnPagesOfAnySize(int length) {
        MembersHeader h = MembersHeader.EMPTY;
        for (int i = 0; i < 20; i++)
            h = pages.put(KEY, h, b("field" + i), b("v" + i), false).header();
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) 'x');
        h = pages.put(KEY, h, b("field7"), value, false).header();
        assertThat(pages.put(KEY, h, b("field7"), value.clone(), false).header())
                .isSameAs(h);
        if (length > 0) {
            byte[] last = value.clone();
            last[length - 1] = 'y';
            MemberPages.Write w = pages.put(KEY, h, b("field7"), last, true);
            assertThat(w.header()).isNotEqualTo(h);
            assertThat(w.previous()).isEqualTo(value);
            h = w.header();
            value = last;
        }
        byte[] longer = Arrays.copyOf(value, length + 1);
        MembersHeader grown = pages.put(KEY, h, b("field7"), longer, false).header();
        assertThat(grown).isNotEqualTo(h);
        assertThat(pages.get(KEY, grown, b("field7"))).isEqualTo(longer);
    }

    @Test
    void aSparseStructureStillGivesARandomMember() {
        MembersHeader grown = MembersHeader.EMPTY;
        for (int i = 0; i < 40; i++)
            grown = pages.put(KEY, grown, b("big" + i), new byte[15_000], false).header();
        // built from its image, it gets pages for its bytes: about 7 per member, nearly all empty
        MembersHeader h = pages.build(b("sparse"), pages.image(KEY, grown));
        assertThat(h.pageCount()).isGreaterThan(h.storedPages() * 4);
        Random r = new Random(1);
        for (int i = 0; i < 100; i++)
            assertThat(new String(pages.random(b("sparse"), h, r).name())).startsWith("big");
        assertThat(pages.random(KEY, MembersHeader.EMPTY, r)).isNull();
    }

    /**
     * SPOP's one lookup ({@link MemberPages#pop}) against what it replaces, {@code random} then {@code
     * remove}: with the same draws, the same member every time and the same header after (count, digest,
     * bytes, pages, merges as it shrinks), down to empty; also through a sparse structure's fallback.
     */
    @ParameterizedTest(name = "sparse: {0}")
    @ValueSource(booleans = {false, true})
    void popTakesTheMemberRandomWouldAndLeavesTheHeaderRemoveWould(boolean sparse) {
        MembersHeader grown = MembersHeader.EMPTY;
        for (int i = 0; i < (sparse ? 40 : 600); i++) {
            grown = pages.put(KEY, grown, b("m" + i), sparse ? new byte[15_000] : b("v" + i), false)
                    .header();
        }
        byte[] viaRemove = b("viaRemove");
        byte[] viaPop = b("viaPop");
        MembersHeader a = pages.build(viaRemove, pages.image(KEY, grown));
        MembersHeader p = pages.build(viaPop, pages.image(KEY, grown));
        Random ra = new Random(7);
        Random rp = new Random(7);
        int popped = 0;
        while (!a.isEmpty()) {
            MemberPages.Member picked = pages.random(viaRemove, a, ra);
            a = pages.remove(viaRemove, a, picked.name(), false).header();
            MemberPages.Popped got = pages.pop(viaPop, p, rp);
            assertThat(new String(got.member().name())).isEqualTo(new String(picked.name()));
            assertThat(got.member().value()).isEqualTo(picked.value());
            assertThat(got.header()).isEqualTo(a);
            p = got.header();
            popped++;
        }
        assertThat(popped).isEqualTo(grown.count());
        assertThat(p).isEqualTo(MembersHeader.EMPTY);
        assertThat(pages.pop(viaPop, p, rp)).isNull();
        pages.deleteAll(KEY, grown);
        assertThat(pages.size()).as("no page left of either copy").isZero();
    }
}
