package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.WriteStages.Stage;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class WriteStagesTest {
    private final AtomicLong now = new AtomicLong(1_000_000);

    private void at(long nanos, Runnable mark) {
        now.set(nanos);
        mark.run();
    }

    @Test
    void offNothingIsRecorded() {
        WriteStages off = WriteStages.OFF;
        off.begin();
        off.mark(Stage.COMMITTED);
        off.end();
        off.restart();
        assertThat(off.enabled()).isFalse();
        assertThat(off.writes()).isZero();
        assertThat(off.table()).isEmpty();
    }

    /** Three writes: the table has each stage's median and quartiles from the commit, in µs, in stage order. */
    @Test
    void theTableHasEachStagesTimeFromTheCommit() {
        WriteStages stages = WriteStages.recording(10, now::get);
        for (int w = 0; w < 3; w++) {
            long t0 = 10_000_000L * (w + 1);
            long extra = w * 1_000L; // 0, 1 and 2 µs more per write
            at(t0, stages::begin);
            at(t0 + 50_000, () -> stages.mark(Stage.COMMITTED));
            at(t0 + 60_000 + extra, () -> stages.mark(Stage.FIRST_VALUE_FRAME));
            at(t0 + 70_000, () -> stages.mark(Stage.FIRST_VALUE_FRAME)); // not the first: kept out
            at(t0 + 80_000, () -> stages.markLast(Stage.LAST_VALUE_FRAME));
            at(t0 + 90_000 + extra, () -> stages.markLast(Stage.LAST_VALUE_FRAME)); // the last: kept
            at(t0 + 150_000, stages::end);
        }
        assertThat(stages.enabled()).isTrue();
        assertThat(stages.writes()).isEqualTo(3);
        assertThat(stages.table())
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
        WriteStages stages = WriteStages.recording(2, now::get);
        at(1_000, stages::begin);
        at(2_000, () -> stages.mark(Stage.COMMITTED)); // never answered: left out
        at(3_000, stages::begin);
        at(4_000, () -> stages.mark(Stage.COMMITTED));
        at(9_000, stages::end);
        at(10_000, stages::begin); // a third write: past maxWrites, not recorded
        at(11_000, () -> stages.mark(Stage.COMMITTED));
        at(12_000, stages::end);
        assertThat(stages.writes()).isEqualTo(2);
        assertThat(stages.table()).contains("| the client has the reply | 5 | 5 | 5 | 1 |\n");
        assertThatThrownBy(() -> WriteStages.recording(0)).hasMessage("maxWrites <= 0: 0");
    }

    /** A benchmark's iteration records afresh: what the one before recorded is forgotten. */
    @Test
    void aRestartForgetsWhatWasRecorded() {
        WriteStages stages = WriteStages.recording(2, now::get);
        at(1_000, stages::begin);
        at(2_000, () -> stages.mark(Stage.COMMITTED));
        at(3_000, stages::end);

        stages.restart();
        assertThat(stages.writes()).isZero();
        assertThat(stages.table()).isEmpty();

        at(4_000, stages::begin);
        at(5_000, () -> stages.mark(Stage.COMMITTED));
        at(7_000, stages::end);
        assertThat(stages.writes()).isEqualTo(1);
        assertThat(stages.table()).contains("| the client has the reply | 2 | 2 | 2 | 1 |\n");
    }
}
