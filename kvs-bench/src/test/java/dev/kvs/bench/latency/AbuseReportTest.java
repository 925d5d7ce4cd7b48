package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@link AbuseReport#verdict}: issue 12's three bounds, each met, missed and unmeasured. */
class AbuseReportTest {
    private static final AbuseReport.Settings SETTINGS =
            new AbuseReport.Settings(110, 1000, 1 << 20, 2000, 5, 2, "2g", 100, "on", 9800);

    private static AbuseReport.Scenario heap(long before, long peak) {
        return new AbuseReport.Scenario(1, 1, before, peak, before, 10, true, null, "");
    }

    private static AbuseReport.Scenario auth(Double millis) {
        return new AbuseReport.Scenario(2000, 2000, 1, 1, 1, 10, true, millis, "");
    }

    @Test
    void allThreeMetPass() {
        Verdict v = AbuseReport.verdict(
                SETTINGS,
                heap(26_000_000, 29_000_000),
                heap(30_000_000, 40_000_000),
                auth(13.4),
                (ClientMemoryAttack.Result) null);
        assertThat(v.pass()).isTrue();
        assertThat(v.checks()).extracting(Verdict.Check::ok).containsExactly(true, true, true);
        assertThat(v.checks()).extracting(Verdict.Check::measured).containsExactly(3.0, 40.0, 13.4);
        assertThat(v.checks()).extracting(Verdict.Check::limit).containsExactly(50.0, 100.0, 2000.0);
    }

    @Test
    void bulkHeaderGrowthIsPeakMinusBeforeAndStrictlyBelow50Mb() {
        Verdict atLimit = AbuseReport.verdict(
                SETTINGS,
                heap(100_000_000, 150_000_000),
                heap(30_000_000, 40_000_000),
                auth(1.0),
                (ClientMemoryAttack.Result) null);
        assertThat(atLimit.pass()).isFalse();
        assertThat(atLimit.checks().get(0).ok()).isFalse();
        assertThat(atLimit.checks().get(0).measured()).isEqualTo(50.0);
        Verdict justBelow = AbuseReport.verdict(
                SETTINGS,
                heap(100_000_000, 149_900_000),
                heap(30_000_000, 40_000_000),
                auth(1.0),
                (ClientMemoryAttack.Result) null);
        assertThat(justBelow.pass()).isTrue();
    }

    @Test
    void outputBufferBoundIsOnThePeakNotTheGrowth() {
        Verdict v = AbuseReport.verdict(
                SETTINGS,
                heap(26_000_000, 27_000_000),
                heap(95_000_000, 100_000_000),
                auth(1.0),
                (ClientMemoryAttack.Result) null);
        assertThat(v.pass()).isFalse();
        assertThat(v.checks()).extracting(Verdict.Check::ok).containsExactly(true, false, true);
    }

    @Test
    void aClientLockedOutOrTooSlowFails() {
        Verdict lockedOut =
                AbuseReport.verdict(SETTINGS, heap(1, 2), heap(1, 2), auth(null), (ClientMemoryAttack.Result) null);
        assertThat(lockedOut.pass()).isFalse();
        assertThat(lockedOut.checks().get(2).measured()).isNull();
        Verdict slow =
                AbuseReport.verdict(SETTINGS, heap(1, 2), heap(1, 2), auth(2000.0), (ClientMemoryAttack.Result) null);
        assertThat(slow.checks().get(2).ok()).isFalse();
    }

    @Test
    void anUnreadHeapIsNotMet() {
        Verdict v =
                AbuseReport.verdict(SETTINGS, heap(-1, 5), heap(1, -1), auth(1.0), (ClientMemoryAttack.Result) null);
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
                null,
                AbuseReport.verdict(SETTINGS, bulk, out, idle, admin),
                Provenance.now(Path.of("/tmp/x")));
        assertThat(r.render())
                .contains("110 x 64 MiB bulk header", "SET + 1000 x GET 1 MiB", "2000 idle sockets")
                .contains("26.6", "39.6")
                .contains("admin port: 2200 unauthenticated POSTs", "PING p99 3.2 ms")
                .contains("PASS: every bound met");
        assertThat(r.verdict().checks()).hasSize(7);
    }

    private static ClientMemoryAttack.Result memory(long peak, long bound, long failures, Double pingP99) {
        return new ClientMemoryAttack.Result(
                9800,
                9800,
                8000,
                163_900,
                bound,
                peak,
                peak,
                8000,
                40_000_000,
                600_000_000,
                400_000_000,
                45_000_000,
                2_147_483_648L,
                100,
                5000,
                failures,
                pingP99,
                20.0,
                1.2,
                30.0,
                20_000);
    }

    @Test
    void theClientMemoryCaseAddsItsThreeBounds() {
        AbuseReport.Scenario ok = heap(1, 2);
        Verdict met = AbuseReport.verdict(SETTINGS, ok, ok, auth(1.0), memory(530_000_000, 536_870_900, 0, 3.0));
        assertThat(met.pass()).isTrue();
        assertThat(met.checks()).hasSize(6);
        assertThat(met.checks().get(3).measured()).isEqualTo(530.0);

        Verdict over = AbuseReport.verdict(SETTINGS, ok, ok, auth(1.0), memory(540_000_000, 536_870_900, 0, 3.0));
        assertThat(over.checks()).extracting(Verdict.Check::ok).containsExactly(true, true, true, false, true, true);
        Verdict unserved = AbuseReport.verdict(SETTINGS, ok, ok, auth(1.0), memory(1, 536_870_900, 2, null));
        assertThat(unserved.checks())
                .extracting(Verdict.Check::ok)
                .containsExactly(true, true, true, true, false, false);
    }

    @Test
    void eachClientStaysWithinRedisPreAuthCapsAndNeverCompletesACommand() {
        String p = new String(ClientMemoryAttack.PAYLOAD, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(p).startsWith("*10\r\n$16384\r\n");
        assertThat(p.split("\\$16384\r\n", -1)).hasSize(11);
        assertThat(ClientMemoryAttack.PAYLOAD).hasSize(5 + 10 * 8 + 10 * 16384 - 1 + 9 * 2);
    }
}
