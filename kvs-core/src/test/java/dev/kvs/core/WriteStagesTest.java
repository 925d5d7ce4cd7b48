package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.WriteStages.Stage;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WriteStagesTest {
    private final AtomicLong now = new AtomicLong(1_000_000);

    @AfterEach
    void off() {
        WriteStages.disable();
    }

    private void at(long nanos, Runnable mark) {
        now.set(nanos);
        mark.run();
    }

    @Test
    void offNothingIsRecorded() {
        WriteStages.begin();
        WriteStages.mark(Stage.COMMITTED);
        WriteStages.end();
        assertThat(WriteStages.enabled()).isFalse();
        assertThat(WriteStages.writes()).isZero();
        assertThat(WriteStages.table()).isEmpty();
    }

    /** Three writes: the table has each stage's median and quartiles from the commit, in µs, in stage order. */
    @Test
    void theTableHasEachStagesTimeFromTheCommit() {
        WriteStages.enable(10, now::get);
        for (int w = 0; w < 3; w++) {
            long t0 = 10_000_000L * (w + 1);
            long extra = w * 1_000L; // 0, 1 and 2 µs more per write
            at(t0, WriteStages::begin);
            at(t0 + 50_000, () -> WriteStages.mark(Stage.COMMITTED));
            at(t0 + 60_000 + extra, () -> WriteStages.mark(Stage.FIRST_VALUE_FRAME));
            at(t0 + 70_000, () -> WriteStages.mark(Stage.FIRST_VALUE_FRAME)); // not the first: kept out
            at(t0 + 80_000, () -> WriteStages.markLast(Stage.LAST_VALUE_FRAME));
            at(t0 + 90_000 + extra, () -> WriteStages.markLast(Stage.LAST_VALUE_FRAME)); // the last: kept
            at(t0 + 150_000, WriteStages::end);
        }
        assertThat(WriteStages.writes()).isEqualTo(3);
        assertThat(WriteStages.table())
                .isEqualTo("| stage (µs from the commit) | p50 | p25 | p75 | writes |\n"
                        + "|---|---:|---:|---:|---:|\n"
                        + "| the client starts sending the SET | -50 | -50 | -50 | 3 |\n"
                        + "| the write commits on the primary | 0 | 0 | 0 | 3 |\n"
                        + "| the value's first frame is written | 11 | 10 | 12 | 3 |\n"
                        + "| the value's last frame is written | 41 | 40 | 42 | 3 |\n"
                        + "| the client has the reply | 100 | 100 | 100 | 3 |\n");
    }

    @Test
    void aWriteWithoutItsReplyOrCommitIsLeftOutAndTheTraceStopsWhenFull() {
        WriteStages.enable(2, now::get);
        at(1_000, WriteStages::begin);
        at(2_000, () -> WriteStages.mark(Stage.COMMITTED)); // never answered: left out
        at(3_000, WriteStages::begin);
        at(4_000, () -> WriteStages.mark(Stage.COMMITTED));
        at(9_000, WriteStages::end);
        at(10_000, WriteStages::begin); // a third write: past maxWrites, not recorded
        at(11_000, () -> WriteStages.mark(Stage.COMMITTED));
        at(12_000, WriteStages::end);
        assertThat(WriteStages.writes()).isEqualTo(2);
        assertThat(WriteStages.table()).contains("| the client has the reply | 5 | 5 | 5 | 1 |\n");
        assertThatThrownBy(() -> WriteStages.enable(0)).hasMessage("maxWrites <= 0: 0");
    }
}
