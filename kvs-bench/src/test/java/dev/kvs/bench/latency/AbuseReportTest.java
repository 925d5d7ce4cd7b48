package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@link AbuseReport#verdict}: issue 12's three bounds, each met, missed and unmeasured. */
class AbuseReportTest {
    private static final AbuseReport.Settings SETTINGS =
            new AbuseReport.Settings(110, 1000, 1 << 20, 2000, 5, 2, "2g", 100, "on");

    private static AbuseReport.Scenario heap(long before, long peak) {
        return new AbuseReport.Scenario(1, 1, before, peak, before, 10, true, null, "");
    }

    private static AbuseReport.Scenario auth(Double millis) {
        return new AbuseReport.Scenario(2000, 2000, 1, 1, 1, 10, true, millis, "");
    }

    @Test
    void allThreeMetPass() {
        Verdict v =
                AbuseReport.verdict(SETTINGS, heap(26_000_000, 29_000_000), heap(30_000_000, 40_000_000), auth(13.4));
        assertThat(v.pass()).isTrue();
        assertThat(v.checks()).extracting(Verdict.Check::ok).containsExactly(true, true, true);
        assertThat(v.checks()).extracting(Verdict.Check::measured).containsExactly(3.0, 40.0, 13.4);
        assertThat(v.checks()).extracting(Verdict.Check::limit).containsExactly(50.0, 100.0, 2000.0);
    }

    @Test
    void bulkHeaderGrowthIsPeakMinusBeforeAndStrictlyBelow50Mb() {
        Verdict atLimit =
                AbuseReport.verdict(SETTINGS, heap(100_000_000, 150_000_000), heap(30_000_000, 40_000_000), auth(1.0));
        assertThat(atLimit.pass()).isFalse();
        assertThat(atLimit.checks().get(0).ok()).isFalse();
        assertThat(atLimit.checks().get(0).measured()).isEqualTo(50.0);
        Verdict justBelow =
                AbuseReport.verdict(SETTINGS, heap(100_000_000, 149_900_000), heap(30_000_000, 40_000_000), auth(1.0));
        assertThat(justBelow.pass()).isTrue();
    }

    @Test
    void outputBufferBoundIsOnThePeakNotTheGrowth() {
        Verdict v =
                AbuseReport.verdict(SETTINGS, heap(26_000_000, 27_000_000), heap(95_000_000, 100_000_000), auth(1.0));
        assertThat(v.pass()).isFalse();
        assertThat(v.checks()).extracting(Verdict.Check::ok).containsExactly(true, false, true);
    }

    @Test
    void aClientLockedOutOrTooSlowFails() {
        Verdict lockedOut = AbuseReport.verdict(SETTINGS, heap(1, 2), heap(1, 2), auth(null));
        assertThat(lockedOut.pass()).isFalse();
        assertThat(lockedOut.checks().get(2).measured()).isNull();
        Verdict slow = AbuseReport.verdict(SETTINGS, heap(1, 2), heap(1, 2), auth(2000.0));
        assertThat(slow.checks().get(2).ok()).isFalse();
    }

    @Test
    void anUnreadHeapIsNotMet() {
        Verdict v = AbuseReport.verdict(SETTINGS, heap(-1, 5), heap(1, -1), auth(1.0));
        assertThat(v.checks()).extracting(Verdict.Check::ok).containsExactly(false, false, true);
        assertThat(v.checks().get(0).measured()).isNull();
        assertThat(v.checks().get(1).measured()).isNull();
    }

    @Test
    void renderShowsEveryScenarioAndTheVerdict() {
        AbuseReport.Scenario bulk = heap(26_600_000, 29_500_000);
        AbuseReport.Scenario out = heap(29_500_000, 39_600_000);
        AbuseReport.Scenario idle = auth(13.4);
        AdminAbuse.Result admin = AdminAbuseTest.result(40L << 20, 45L << 20, 3.2, 2);
        AbuseReport r = new AbuseReport(
                "abuse",
                SETTINGS,
                bulk,
                out,
                idle,
                null,
                admin,
                AbuseReport.verdict(SETTINGS, bulk, out, idle, admin),
                Provenance.now(Path.of("/tmp/x")));
        assertThat(r.render())
                .contains("110 x 64 MiB bulk header", "SET + 1000 x GET 1 MiB", "2000 idle sockets")
                .contains("26.6", "39.6")
                .contains("admin port: 2200 unauthenticated POSTs", "PING p99 3.2 ms")
                .contains("PASS: every bound met");
        assertThat(r.verdict().checks()).hasSize(7);
    }
}
