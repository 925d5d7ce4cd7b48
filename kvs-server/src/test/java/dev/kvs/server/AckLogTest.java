package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The overlap check on hand-made logs (times in ms as nanoseconds would be, only their order matters). */
class AckLogTest {
    @Test
    void aCleanHandoverIsOneSureSwitchWithinOneEpochMove() {
        AckLog log = new AckLog();
        log.add("p", 0, 2);
        log.add("p", 3, 5);
        log.add("b", 100, 102);
        log.add("b", 103, 105);
        assertThat(log.sureSwitches()).isEqualTo(1);
        assertThat(log.overlaps(1)).isFalse();
        assertThat(log.overlaps(0)).as("a switch with no promotion").isTrue();
        assertThat(log.smallestSwitchGapMs()).isZero(); // 95 ns
    }

    @Test
    void twoNodesAcknowledgingByTurnsAreAnOverlap() {
        AckLog log = new AckLog();
        for (int i = 0; i < 10; i++) {
            log.add("p", i * 10, i * 10 + 2);
            log.add("b", i * 10 + 5, i * 10 + 7);
        }
        assertThat(log.sureSwitches()).isEqualTo(19);
        assertThat(log.overlaps(1)).isTrue();
        assertThat(log.describeChain(2)).startsWith("[p 0.0..0.0 ms, b 0.0..0.0 ms, ...]");
    }

    @Test
    void acknowledgementsWhoseOrderIsUncertainAreNoSwitch() {
        AckLog log = new AckLog();
        // b's write was sent before p's was received: either may have been acknowledged first
        log.add("p", 0, 10);
        log.add("b", 5, 15);
        log.add("p", 12, 20);
        assertThat(log.sureSwitches()).isZero();
        assertThat(log.overlaps(0)).isFalse();
        assertThat(log.smallestSwitchGapMs()).isEqualTo(Long.MAX_VALUE);
    }
}
