package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;

class PageKeyAccessTest {
    private static final int SEGMENTS = 64;
    private static final byte[] SET = "myset".getBytes(StandardCharsets.US_ASCII);

    private static long seed(String test) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println(test + " seed " + seed);
        return seed;
    }

    private static ChronicleMapBuilder<byte[], Long> builder(DataAccess<byte[]> access) {
        return ChronicleMap.of(byte[].class, Long.class)
                .name("pages")
                .actualSegments(SEGMENTS)
                .entries(40_000)
                .averageKeySize(16)
                .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, access);
    }

    /** The segment of each stored key, as Chronicle placed it. */
    private static Map<Integer, Integer> segmentOfEachPage(ChronicleMap<byte[], Long> map) {
        Map<Integer, Integer> segments = new HashMap<>();
        for (int s = 0; s < map.segments(); s++) {
            int segment = s;
            try (var c = map.segmentContext(s)) {
                c.forEachSegmentEntry(e -> segments.put(e.value().get().intValue(), segment));
            }
        }
        return segments;
    }

    /**
     * Each run of {@link PageKeyAccess#GROUP_PAGES} pages of one structure lies in one segment of a real
     * map: what makes a lookup among the pages of a large set touch a few segments' memory, not all of it.
     * With {@link KeyBytesAccess} (each page hashed alone) ten groups' pages spread over all 64 segments.
     */
    @Test
    void eachGroupOfAStructuresPagesLiesInOneSegmentOfARealMap() {
        int groups = 10;
        int pages = groups * PageKeyAccess.GROUP_PAGES;
        try (ChronicleMap<byte[], Long> map =
                builder(new PageKeyAccess(SEGMENTS)).create()) {
            for (int p = 0; p < pages; p++) map.put(MemberPages.pageKey(SET, p), (long) p);
            Map<Integer, Integer> segmentOf = segmentOfEachPage(map);
            assertThat(segmentOf).hasSize(pages);
            for (int g = 0; g < groups; g++) {
                Set<Integer> used = new HashSet<>();
                for (int p = g * PageKeyAccess.GROUP_PAGES; p < (g + 1) * PageKeyAccess.GROUP_PAGES; p++) {
                    used.add(segmentOf.get(p));
                }
                assertThat(used).as("segments of group %d", g).hasSize(1);
            }
            assertThat(new HashSet<>(segmentOf.values()).size()).isBetween(2, groups);
            for (int p = 0; p < pages; p++)
                assertThat(map.get(MemberPages.pageKey(SET, p))).isEqualTo(p);
        }
    }

    /**
     * The bits above the segment's (where Chronicle finds a key's slot in its segment) stay spread within
     * a group, so the pages of one group do not probe the same slots; and the groups of many structures
     * spread over all segments.
     */
    @Test
    void slotBitsWithinAGroupAndSegmentsAcrossStructuresStaySpread() {
        Random random = new Random(seed("slotBitsWithinAGroupAndSegmentsAcrossStructuresStaySpread"));
        int bits = Integer.numberOfTrailingZeros(SEGMENTS);
        PageKeyAccess access = new PageKeyAccess(SEGMENTS);
        LongHashFunction xx = LongHashFunction.xx_r39();
        for (int k = 0; k < 50; k++) {
            byte[] key = new byte[1 + random.nextInt(40)];
            random.nextBytes(key);
            int first = random.nextInt(1000) * PageKeyAccess.GROUP_PAGES;
            Set<Long> slots = new HashSet<>();
            for (int p = first; p < first + PageKeyAccess.GROUP_PAGES; p++) {
                slots.add((access.getData(MemberPages.pageKey(key, p)).hash(xx) >>> bits) & 1023);
            }
            // 64 pages spread over 1024 slots land on about 62 distinct ones; a hash whose group bits
            // reached above the segment's would put a whole group on one slot
            assertThat(slots.size())
                    .as("distinct slots of a group of key %d", k)
                    .isGreaterThanOrEqualTo(52);
        }
        int[] perSegment = new int[SEGMENTS];
        for (int k = 0; k < 64 * SEGMENTS; k++) {
            long hash = access.getData(MemberPages.pageKey(("key:" + k).getBytes(StandardCharsets.US_ASCII), 0))
                    .hash(xx);
            perSegment[(int) (hash & (SEGMENTS - 1))]++;
        }
        for (int s = 0; s < SEGMENTS; s++) {
            assertThat(perSegment[s])
                    .as("structures in segment %d (64 expected)", s)
                    .isBetween(30, 110);
        }
    }
}
