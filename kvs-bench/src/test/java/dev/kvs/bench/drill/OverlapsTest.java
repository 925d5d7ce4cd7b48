package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The overlap check on hand-made acknowledgements (ms on one clock, as nanoseconds). */
class OverlapsTest {
    private static Overlaps.Ack ack(String node, long sentMs, long answeredMs) {
        return new Overlaps.Ack(node, sentMs * 1_000_000, answeredMs * 1_000_000);
    }

    @Test
    void aCleanHandOverIsNoOverlap() {
        Overlaps.Result r =
                Overlaps.check(List.of(ack("a", 0, 1), ack("a", 5, 6), ack("b", 900, 901), ack("b", 950, 951)));
        assertThat(r.definite()).isZero();
        assertThat(r.ambiguousMs()).isZero();
    }

    @Test
    void theOldPrimaryAcknowledgingAWriteSentAfterTheNewOnesFirstAckIsADefiniteOverlap() {
        // b's first write answered at 901; a acknowledges one sent at 910: both served at once
        Overlaps.Result r =
                Overlaps.check(List.of(ack("a", 0, 1), ack("b", 900, 901), ack("a", 910, 912), ack("b", 950, 951)));
        assertThat(r.definite()).isEqualTo(1); // a's write sent at 910, after b's first was answered
        assertThat(r.pairs()).containsExactly("a/b");
    }

    @Test
    void anOldReplyArrivingAfterTheNewNodesFirstSendIsAmbiguousNotDefinite() {
        // a's last write, sent at 100, is answered at 905, after b's first write was sent (900)
        Overlaps.Result r = Overlaps.check(List.of(ack("a", 0, 1), ack("a", 100, 905), ack("b", 900, 901)));
        assertThat(r.definite()).isZero();
        assertThat(r.ambiguousMs()).isEqualTo(5.0);
    }
}
