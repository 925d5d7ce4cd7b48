package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * Seeded random histories against a {@link HashMap} model: growth to 100,000 members and shrink back,
 * with gets, overwrites, removes, scans and random draws along the way; and the scan guarantee while
 * the structure grows and shrinks between the calls of one scan. Replay with {@code -Dkvs.test.seed=}.
 */
class MemberPagesModelTest {
    private static final byte[] KEY = "structure".getBytes();
    private final MemberPages pages =
            MemberPages.open(StoreConfig.builder().maxBytes(256L << 20).build(), null);

    @AfterEach
    void close() {
        pages.close();
    }

    private static long seed(String test, RepetitionInfo repetition) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime() + repetition.getCurrentRepetition());
        System.out.println(test + " seed " + seed);
        return seed;
    }

    /** Members 0..n as bytes; the model keys them as ByteBuffers (content equality). */
    private static byte[] member(int i) {
        return ("m" + i).getBytes();
    }

    private static byte[] value(Random r) {
        byte[] v = new byte[r.nextInt(10) == 0 ? r.nextInt(2000) : r.nextInt(24)];
        r.nextBytes(v);
        return v;
    }

    @RepeatedTest(2)
    void randomHistoriesMatchAHashMapThroughGrowthAndShrink(RepetitionInfo repetition) {
        long seed = seed("randomHistoriesMatchAHashMapThroughGrowthAndShrink", repetition);
        Random r = new Random(seed);
        Map<ByteBuffer, byte[]> model = new HashMap<>();
        List<ByteBuffer> present = new ArrayList<>(); // the model's members, to remove one at random
        Map<ByteBuffer, Integer> slot = new HashMap<>();
        MembersHeader h = MembersHeader.EMPTY;
        int peakPages = 0;
        int target = 100_000;
        boolean growing = true;
        for (int op = 0; growing || !model.isEmpty(); op++) {
            if (growing && model.size() >= target) growing = false;
            int kind = r.nextInt(100);
            byte[] m = kind >= (growing ? 70 : 20) && kind < 85 && !present.isEmpty()
                    ? present.get(r.nextInt(present.size())).array()
                    : member(r.nextInt(2 * target));
            ByteBuffer k = ByteBuffer.wrap(m);
            String context = "seed " + seed + ", op " + op + ", " + new String(m);
            if (kind < (growing ? 70 : 20)) {
                byte[] v = value(r);
                MemberPages.Write w = pages.put(KEY, h, m, v, true);
                byte[] old = model.put(k, v);
                if (old == null) {
                    slot.put(k, present.size());
                    present.add(k);
                }
                assertThat(w.existed()).as(context).isEqualTo(old != null);
                assertThat(w.previous()).as(context).isEqualTo(old);
                h = w.header();
            } else if (kind < 85) {
                MemberPages.Write w = pages.remove(KEY, h, m, r.nextBoolean());
                byte[] old = model.remove(k);
                if (old != null) {
                    int i = slot.remove(k);
                    ByteBuffer last = present.remove(present.size() - 1);
                    if (i < present.size()) {
                        present.set(i, last);
                        slot.put(last, i);
                    }
                }
                assertThat(w.existed()).as(context).isEqualTo(old != null);
                if (w.previous() != null) assertThat(w.previous()).as(context).isEqualTo(old);
                h = w.header();
            } else if (kind < 99) {
                assertThat(pages.get(KEY, h, m)).as(context).isEqualTo(model.get(k));
                assertThat(pages.contains(KEY, h, m)).as(context).isEqualTo(model.containsKey(k));
            } else if (!model.isEmpty()) {
                MemberPages.Member drawn = pages.random(KEY, h, r);
                assertThat(drawn.value()).as(context).isEqualTo(model.get(ByteBuffer.wrap(drawn.name())));
            }
            assertThat(h.count()).as(context).isEqualTo(model.size());
            peakPages = Math.max(peakPages, h.pageCount());
            if (op % 20_000 == 0) assertWhole(h, model, "seed " + seed + ", op " + op);
        }
        assertThat(peakPages).as("pages at 100k members").isGreaterThan(1000);
        assertThat(h).isEqualTo(MembersHeader.EMPTY);
        assertThat(pages.size()).as("pages left once empty").isZero();
    }

    /** Iteration, a full scan, bytes, stored pages and digest all agree with the model. */
    private void assertWhole(MembersHeader h, Map<ByteBuffer, byte[]> model, String context) {
        Map<ByteBuffer, byte[]> all = new HashMap<>();
        pages.forEach(
                KEY,
                h,
                (m, v) -> assertThat(all.put(ByteBuffer.wrap(m), v)).as(context).isNull());
        assertThat(all).as(context).containsOnlyKeys(model.keySet());
        model.forEach((m, v) -> assertThat(all.get(m)).as(context).isEqualTo(v));
        Set<ByteBuffer> scanned = new HashSet<>();
        long cursor = 0;
        do {
            cursor = pages.scan(KEY, h, cursor, 50, (m, v) -> scanned.add(ByteBuffer.wrap(m)));
        } while (cursor != 0);
        assertThat(scanned).as(context).isEqualTo(model.keySet());
        long bytes = 0;
        long digest = 0;
        for (Map.Entry<ByteBuffer, byte[]> e : model.entrySet()) {
            byte[] entry = MemberPage.with(MemberPage.EMPTY, -1, e.getKey().array(), e.getValue());
            bytes += entry.length;
            digest += MemberPages.digestOf(entry, 0, entry.length);
        }
        assertThat(h.bytes()).as(context).isEqualTo(bytes);
        assertThat(h.digest()).as(context).isEqualTo(digest);
        assertThat(pages.size()).as(context).isEqualTo(h.storedPages());
    }

    @RepeatedTest(3)
    void aScanReturnsEveryMemberPresentThroughoutWhileTheStructureGrowsAndShrinks(RepetitionInfo repetition) {
        long seed = seed("aScanReturnsEveryMemberPresentThroughoutWhileTheStructureGrowsAndShrinks", repetition);
        Random r = new Random(seed);
        MembersHeader h = MembersHeader.EMPTY;
        Set<String> stable = new HashSet<>();
        for (int i = 0; i < 3000; i++) {
            h = pages.put(KEY, h, member(i), value(r), false).header();
            stable.add("m" + i);
        }
        List<byte[]> churn = new ArrayList<>();
        int nextChurn = 1_000_000;
        boolean growing = r.nextBoolean();
        int minPages = h.pageCount();
        int maxPages = h.pageCount();
        Set<String> returned = new HashSet<>();
        long cursor = 0;
        int calls = 0;
        do {
            cursor = pages.scan(KEY, h, cursor, 1 + r.nextInt(20), (m, v) -> returned.add(new String(m)));
            calls++;
            // between calls: grow to about 10x, shrink back to the stable members, again and again
            if (growing && churn.size() > 30_000) growing = false;
            if (!growing && churn.isEmpty()) growing = true;
            for (int i = 0, n = 200 + r.nextInt(400); i < n; i++) {
                if (growing) {
                    byte[] m = member(nextChurn++);
                    churn.add(m);
                    h = pages.put(KEY, h, m, value(r), false).header();
                } else if (!churn.isEmpty()) {
                    byte[] m = churn.remove(churn.size() - 1);
                    h = pages.remove(KEY, h, m, false).header();
                }
            }
            minPages = Math.min(minPages, h.pageCount());
            maxPages = Math.max(maxPages, h.pageCount());
        } while (cursor != 0);
        System.out.println("scan: " + calls + " calls, pages between " + minPages + " and " + maxPages);
        assertThat(maxPages).as("seed %d: the scan saw growth", seed).isGreaterThan(4 * minPages);
        Set<String> missed = new HashSet<>(stable);
        missed.removeAll(returned);
        assertThat(missed)
                .as("seed %d: members present throughout but not returned", seed)
                .isEmpty();
    }
}
