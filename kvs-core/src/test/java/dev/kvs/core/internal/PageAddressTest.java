package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class PageAddressTest {
    @Test
    void aPageHoldsExactlyTheHashesWhoseLowDepthBitsAreItsNumber() {
        Random r = new Random(11);
        for (int n = 1; n <= 70; n++) {
            for (int i = 0; i < 2000; i++) {
                long hash = r.nextLong();
                int p = PageAddress.pageOf(hash, n);
                assertThat(p).isBetween(0, n - 1);
                int depth = PageAddress.depth(p, n);
                assertThat(hash & ((1L << depth) - 1))
                        .as("n %d hash %x", n, hash)
                        .isEqualTo(p);
            }
        }
    }

    @Test
    void aSplitMovesTheMembersWithTheLevelBitToTheNewPage() {
        Random r = new Random(12);
        for (int n = 1; n <= 70; n++) {
            int s = PageAddress.splitting(n);
            long bit = 1L << PageAddress.level(n);
            for (int i = 0; i < 2000; i++) {
                long hash = r.nextLong();
                if (PageAddress.pageOf(hash, n) != s) continue;
                assertThat(PageAddress.pageOf(hash, n + 1)).isEqualTo((hash & bit) != 0 ? n : s);
            }
            assertThat(PageAddress.parent(n))
                    .as("page %d merges back into the one it split from", n)
                    .isEqualTo(s);
        }
    }

    @Test
    void aFullScanVisitsEveryPageOnceInReverseBinaryOrder() {
        for (int n = 1; n <= 70; n++) {
            boolean[] seen = new boolean[n];
            long cursor = 0;
            do {
                int p = PageAddress.pageAt(cursor, n);
                assertThat(seen[p]).as("n %d page %d twice", n, p).isFalse();
                seen[p] = true;
                cursor = PageAddress.after(cursor, p, n);
            } while (cursor != 0);
            for (int p = 0; p < n; p++)
                assertThat(seen[p]).as("n %d page %d", n, p).isTrue();
        }
        assertThat(PageAddress.after(0, 0, 4)).isEqualTo(2); // 00 -> 10 -> 01 -> 11
        assertThat(PageAddress.after(2, 2, 4)).isEqualTo(1);
    }

    @Test
    void noPagesIsNotAnAddress() {
        assertThatThrownBy(() -> PageAddress.pageOf(1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n < 1: 0");
    }
}
