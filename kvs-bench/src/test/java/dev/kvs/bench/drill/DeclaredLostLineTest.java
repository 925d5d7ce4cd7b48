package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The drill's line that reconciles the promoted backup's lost count with the table's error-detect. */
class DeclaredLostLineTest {
    @Test
    void splitsTheBackupsCountIntoAcknowledgedFencedAndNeverAcknowledged() {
        assertThat(DrillRun.declaredLost(1406, 1398))
                .isEqualTo("1,406 keys declared lost by the promoted backup (its unfinished keys: 1,398"
                        + " acknowledged writes fenced + 8 never acknowledged to a client)");
    }

    @Test
    void syncFencesNoAcknowledgedWriteSoEveryDeclaredKeyWasNeverAcknowledged() {
        assertThat(DrillRun.declaredLost(17, 0))
                .isEqualTo("17 keys declared lost by the promoted backup (its unfinished keys: 0"
                        + " acknowledged writes fenced + 17 never acknowledged to a client)");
    }

    @Test
    void anEmptyQueueSaysSo() {
        assertThat(DrillRun.declaredLost(0, 0))
                .isEqualTo("0 keys declared lost by the promoted backup (its unfinished-key queue was empty)");
    }

    @Test
    void moreFencedWritesThanDeclaredKeysIsReportedWithoutASubtraction() {
        assertThat(DrillRun.declaredLost(3, 5))
                .isEqualTo("3 keys declared lost by the promoted backup; 5 acknowledged writes read back fenced");
    }
}
