package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreFullException;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BackupRefusalsTest {
    private final AtomicLong nanos = new AtomicLong(1_000);
    private final BackupRefusals refusals = new BackupRefusals(nanos::get);

    @Test
    void aStoreExceptionNamesItsReason() {
        assertThat(BackupRefusals.reasonOf(new StoreFullException("full"))).isEqualTo(StoreRefusal.STORE_FULL);
        assertThat(BackupRefusals.reasonOf(new EntryTooLargeException("big"))).isEqualTo(StoreRefusal.VALUE_TOO_LARGE);
        assertThat(BackupRefusals.reasonOf(new StorageException("closed"))).isEqualTo(StoreRefusal.STORE_ERROR);
    }

    @Test
    void aLineIsLoggedWhenTheReasonChangesThenOnlyOncePerPeriod() {
        assertThat(refusals.refused(StoreRefusal.STORE_FULL, "full", "p")).isTrue();
        for (int i = 0; i < 10_000; i++) {
            nanos.addAndGet(1_000_000); // 10 s in all: less than the period
            assertThat(refusals.refused(StoreRefusal.STORE_FULL, "full", "p")).isFalse();
        }
        nanos.addAndGet(BackupRefusals.LOG_PERIOD_NANOS);
        assertThat(refusals.refused(StoreRefusal.STORE_FULL, "full", "p"))
                .as("the period's count")
                .isTrue();
        assertThat(refusals.refused(StoreRefusal.STORE_FULL, "full", "p")).isFalse();
        assertThat(refusals.refused(StoreRefusal.VALUE_TOO_LARGE, "big", "p"))
                .as("a new reason")
                .isTrue();
        assertThat(refusals.refused(StoreRefusal.STORE_FULL, "full", "p"))
                .as("and back")
                .isTrue();
    }

    @Test
    void theSnapshotCountsByReasonAndKeepsTheLast() {
        assertThat(refusals.snapshot().reason()).isEmpty();
        assertThat(refusals.snapshot().total()).isZero();
        refusals.refused(StoreRefusal.STORE_FULL, "store full: 2 entries (maxEntries 2)", "p");
        refusals.refused(StoreRefusal.STORE_FULL, "store full: 2 entries (maxEntries 2)", "p");
        refusals.refused(StoreRefusal.STORE_ERROR, "store closed", "p");

        assertThat(refusals.snapshot().reason()).isEqualTo("store error");
        assertThat(refusals.snapshot().detail()).isEqualTo("store closed");
        assertThat(refusals.snapshot().byReason())
                .containsEntry("store full", 2L)
                .containsEntry("value too large", 0L)
                .containsEntry("store error", 1L);
    }
}
