package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class MembersHeaderTest {
    @Test
    void writesAndReadsBackInItsFixedLength() {
        MembersHeader h = new MembersHeader(100_000, 1500, 1400, -42L, 3_000_000);
        ByteBuffer b = ByteBuffer.allocate(MembersHeader.BYTES);
        h.writeTo(b);
        assertThat(b.hasRemaining()).isFalse();
        assertThat(MembersHeader.readFrom(b.flip())).isEqualTo(h);
    }

    @Test
    void footprintCountsEachStoredPagesKey() {
        MembersHeader h = new MembersHeader(10, 4, 3, 0, 500);
        assertThat(h.footprint(5)).isEqualTo(500 + 3 * (5 + MemberPages.PAGE_KEY_EXTRA + MembersHeader.PAGE_OVERHEAD));
    }

    @Test
    void inconsistentNumbersAreRefusedQuotingThem() {
        assertThatThrownBy(() -> new MembersHeader(0, 1, 1, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count 0 with 1 stored pages");
        assertThatThrownBy(() -> new MembersHeader(3, 2, 3, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("storedPages 3 not in [0, 2]");
        assertThatThrownBy(() -> new MembersHeader(-1, 0, 0, 0, 0)).hasMessage("count < 0: -1");
    }
}
