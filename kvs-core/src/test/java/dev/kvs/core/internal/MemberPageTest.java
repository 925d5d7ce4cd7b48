package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * The in-place search of a page (in off-heap memory, as a map entry's value lies) answers as the
 * search of its copy on the heap. Randomised; replay with {@code -Dkvs.test.seed=}.
 */
class MemberPageTest {
    private static long seed(RepetitionInfo repetition) {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime() + repetition.getCurrentRepetition());
        System.out.println("MemberPageTest seed " + seed);
        return seed;
    }

    @RepeatedTest(20)
    void searchInPlaceFindsWhatTheHeapSearchFinds(RepetitionInfo repetition) {
        Random random = new Random(seed(repetition));
        List<byte[]> members = new ArrayList<>();
        byte[] page = MemberPage.EMPTY;
        int n = random.nextInt(40);
        for (int i = 0; i < n; i++) {
            // same-length members that share a prefix, and some of other lengths (0 included)
            byte[] member = random.nextInt(4) == 0
                    ? bytes(random, random.nextInt(20))
                    : ("field:" + (100_000 + random.nextInt(900_000))).getBytes();
            if (MemberPage.find(page, member) >= 0) continue;
            page = MemberPage.with(page, -1, member, bytes(random, random.nextInt(300)));
            members.add(member);
        }
        int base = 1 + random.nextInt(15); // not aligned
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(base + page.length + 16);
        try {
            store.write(base, page, 0, page.length);
            for (byte[] member : members) {
                int at = MemberPage.find(page, member);
                assertThat(MemberPage.find(store, base, page.length, member)).isEqualTo(at);
                byte[] value = MemberPage.value(page, at);
                assertThat(MemberPage.valueEquals(store, base, at, value)).isTrue();
                if (value.length > 0) {
                    byte[] other = value.clone();
                    other[random.nextInt(other.length)] ^= 1;
                    assertThat(MemberPage.valueEquals(store, base, at, other)).isFalse();
                }
                assertThat(MemberPage.valueEquals(store, base, at, Arrays.copyOf(value, value.length + 1)))
                        .isFalse();
                byte[] absent = member.clone();
                if (absent.length > 0) {
                    absent[absent.length - 1 - random.nextInt(absent.length)] ^= 0x40;
                    assertThat(MemberPage.find(store, base, page.length, absent))
                            .isEqualTo(MemberPage.find(page, absent));
                }
            }
            assertThat(MemberPage.find(store, base, page.length, "not a member".getBytes()))
                    .isEqualTo(-1);
        } finally {
            store.releaseLast();
        }
    }

    private static byte[] bytes(Random random, int length) {
        byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }
}
