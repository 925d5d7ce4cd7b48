package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AssemblyBudgetTest {
    private final AssemblyBudget budget = new AssemblyBudget(100, 80);
    private final AtomicInteger changes = new AtomicInteger();

    private AssemblyBudget.Lease lease() {
        return budget.open(changes::incrementAndGet);
    }

    @Test
    void reservationsAddUpOverChannelsAndReleasesGiveBack() {
        AssemblyBudget.Lease a = lease();
        AssemblyBudget.Lease b = lease();

        a.reserve(30);
        b.reserve(20);
        assertThat(budget.used()).isEqualTo(50);
        assertThat(a.held()).isEqualTo(30);

        a.release(30);
        assertThat(budget.used()).isEqualTo(20);
        assertThat(a.held()).isZero();
    }

    @Test
    void aChannelAloneOverTheBoundKeepsReadingBecausePausingItWouldFreeNothing() {
        AssemblyBudget.Lease a = lease();
        a.reserve(500);

        assertThat(a.pauseIfOver()).isFalse();
        assertThat(a.isPaused()).isFalse();
        assertThat(changes).hasValue(0);
    }

    @Test
    void aChannelOverTheTotalPausesWhileAnotherChannelCanFreeMemoryAndResumesWhenItDoes() {
        AssemblyBudget.Lease a = lease();
        AssemblyBudget.Lease b = lease();
        b.reserve(60);
        a.reserve(50);

        assertThat(a.pauseIfOver()).isTrue();
        assertThat(a.isPaused()).isTrue();
        assertThat(budget.paused()).isEqualTo(1);
        assertThat(b.pauseIfOver()).isFalse(); // the only other holder is paused: b must go on
        assertThat(changes).hasValue(1);

        b.release(60);

        assertThat(a.isPaused()).isFalse();
        assertThat(changes).hasValue(2);
    }

    @Test
    void aChannelOverItsOwnShareWaitsForTheOthersToFinish() {
        AssemblyBudget.Lease a = lease();
        AssemblyBudget.Lease b = lease();
        b.reserve(5);
        a.reserve(90); // over 80 per channel, and 95 <= 100 in total

        assertThat(a.pauseIfOver()).isTrue();
        b.release(5); // no other holder left: a must resume even though it is over its share

        assertThat(a.isPaused()).isFalse();
    }

    @Test
    void whenEveryHolderIsPausedTheOneHoldingMostResumes() {
        AssemblyBudget.Lease a = lease();
        AssemblyBudget.Lease b = lease();
        AssemblyBudget.Lease c = lease();
        a.reserve(70);
        b.reserve(40);
        c.reserve(10);
        assertThat(a.pauseIfOver()).isTrue(); // b and c still read
        assertThat(b.pauseIfOver()).isTrue(); // c still reads

        c.release(10); // 110 > 100: both still over, but nobody left to free memory

        assertThat(a.isPaused()).isFalse();
        assertThat(b.isPaused()).isTrue();
        a.release(70);
        assertThat(b.isPaused()).isFalse();
    }

    @Test
    void closingALeaseGivesBackWhatItHeldAndResumesTheOthers() {
        AssemblyBudget.Lease a = lease();
        AssemblyBudget.Lease b = lease();
        b.reserve(90);
        a.reserve(20);
        assertThat(a.pauseIfOver()).isTrue();

        b.close();
        b.close(); // idempotent
        b.release(10); // after close: ignored

        assertThat(budget.used()).isEqualTo(20);
        assertThat(a.isPaused()).isFalse();
    }

    @Test
    void releasingMoreThanHeldIsABug() {
        AssemblyBudget.Lease a = lease();
        a.reserve(5);
        assertThatThrownBy(() -> a.release(6))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("release 6 > held 5");
    }

    @Test
    void boundsMustBePositive() {
        assertThatThrownBy(() -> new AssemblyBudget(0, 1)).hasMessage("maxTotal <= 0: 0");
        assertThatThrownBy(() -> new AssemblyBudget(1, -1)).hasMessage("maxPerChannel <= 0: -1");
    }
}
