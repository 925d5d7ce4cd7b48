package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ResyncReportTest {
    private static final long FULL_BYTES = 1_000_000L * 1024;
    private static final ResyncKeys.Check ALL_MATCH = new ResyncKeys.Check(1_000_000, 0, 0, 0);

    private static ResyncReport.Phase phase(long valueBytesShipped, Double seconds, ResyncKeys.Check check) {
        return new ResyncReport.Phase(
                valueBytesShipped < FULL_BYTES ? 10_000 : 0,
                2.5,
                seconds,
                1,
                1_000_000,
                valueBytesShipped / 1024,
                valueBytesShipped,
                valueBytesShipped,
                FULL_BYTES - valueBytesShipped,
                valueBytesShipped + 40_000_000,
                1_000_000,
                1_000_000,
                check);
    }

    private static ResyncReport.Phase incremental(double percentOfFull) {
        return phase(Math.round(FULL_BYTES * percentOfFull / 100), 8.0, ALL_MATCH);
    }

    private static ResyncReport.Phase full() {
        return phase(FULL_BYTES, 60.0, ALL_MATCH);
    }

    @Test
    void anIncrementalResyncShippingOnePercentOfTheFullOnePasses() {
        Verdict v = ResyncReport.verdict(incremental(1), full(), 600);

        assertThat(v.pass()).as(v.render()).isTrue();
        assertThat(v.render())
                .startsWith("PASS: every bound met\n")
                .contains("met      incremental value bytes shipped <= 5% of the full resync's: 1% (limit 5%)");
    }

    @Test
    void anIncrementalResyncShippingSixPercentOfTheFullOneFails() {
        Verdict v = ResyncReport.verdict(incremental(6), full(), 600);

        assertThat(v.pass()).isFalse();
        assertThat(v.render())
                .startsWith("FAIL: 1 of 5 bounds not met\n")
                .contains("NOT MET  incremental value bytes shipped <= 5% of the full resync's: 6% (limit 5%)");
    }

    @Test
    void exactlyFivePercentIsEnough() {
        assertThat(ResyncReport.verdict(incremental(5), full(), 600).pass()).isTrue();
    }

    @Test
    void aFullResyncThatShippedNothingGivesNoRatioAndFails() {
        ResyncReport.Phase nothing = phase(0, 1.0, ALL_MATCH);

        assertThat(ResyncReport.shippedPercent(incremental(1), nothing)).isNull();
        Verdict v = ResyncReport.verdict(incremental(1), nothing, 600);
        assertThat(v.pass()).isFalse();
        assertThat(v.render()).contains("NOT MET  incremental value bytes shipped <= 5% of the full resync's: none");
    }

    @Test
    void aResyncThatDidNotConvergeFails() {
        Verdict v = ResyncReport.verdict(incremental(1), phase(FULL_BYTES, null, ALL_MATCH), 600);

        assertThat(v.pass()).isFalse();
        assertThat(v.render())
                .contains("NOT MET  full: resync acknowledged and value lag 0 within the timeout: none (limit 600 s)")
                .contains("met      incremental: resync acknowledged and value lag 0 within the timeout: 8 s");
    }

    @Test
    void aBackupMissingOrHoldingAnOlderValueFails() {
        ResyncReport.Phase stale = phase(FULL_BYTES / 100, 8.0, new ResyncKeys.Check(1_000_000, 0, 0, 3));
        Verdict v = ResyncReport.verdict(stale, full(), 600);
        assertThat(v.pass()).isFalse();
        assertThat(v.render())
                .contains("NOT MET  incremental: keys missing, unfinished, different or extra on the backup = 0: 3");

        ResyncReport.Phase missing = phase(FULL_BYTES, 60.0, new ResyncKeys.Check(1_000_000, 2, 1, 0));
        assertThat(ResyncReport.verdict(incremental(1), missing, 600).render())
                .contains("NOT MET  full: keys missing, unfinished, different or extra on the backup = 0: 3");
    }

    @Test
    void aBackupHoldingAKeyThePrimaryDoesNotFails() {
        ResyncReport.Phase p = full();
        ResyncReport.Phase extra = new ResyncReport.Phase(
                0, 2, 60.0, 1, 1_000_000, 0, FULL_BYTES, FULL_BYTES, 0, FULL_BYTES, 1_000_000, 1_000_001, p.check());

        assertThat(extra.differing()).isEqualTo(1);
        assertThat(ResyncReport.verdict(incremental(1), extra, 600).pass()).isFalse();
    }

    @Test
    void theTableShowsBothResyncsSideBySideAndTheRatio() {
        String text = report().render();

        assertThat(text)
                .contains("loaded 1,000,000 keys (1,024,000,000 value bytes) in 42.0 s, replicated")
                .containsPattern("keys changed while away +10,000 +0\n")
                .containsPattern("value bytes shipped +10,240,000 +1,024,000,000")
                .containsPattern("start until converged s +8\\.0 +60\\.0")
                .containsPattern("keys on primary / backup +1,000,000 / 1,000,000 +1,000,000 / 1,000,000")
                .contains("incremental / full value bytes shipped: 1.00%")
                .contains("PASS: every bound met");
    }

    @Test
    void jsonHasEveryField() throws Exception {
        JsonNode j = Report.JSON.readTree(Report.JSON.writeValueAsString(report()));

        assertThat(j.path("benchmark").asText()).isEqualTo("resync");
        assertThat(j.path("settings").path("changedKeys").asInt()).isEqualTo(10_000);
        assertThat(j.path("settings").path("maxEntries").asLong()).isEqualTo(1_200_000);
        assertThat(j.path("load").path("seconds").asDouble()).isEqualTo(42.0);
        assertThat(j.path("incremental").path("valueBytesShipped").asLong()).isEqualTo(10_240_000);
        assertThat(j.path("incremental").path("resyncValueBytesSaved").asLong()).isEqualTo(FULL_BYTES - 10_240_000);
        assertThat(j.path("incremental").path("check").path("different").asLong())
                .isZero();
        assertThat(j.path("full").path("secondsToConverge").asDouble()).isEqualTo(60.0);
        assertThat(j.path("shippedPercent").asDouble()).isCloseTo(1.0, within(1e-9));
        assertThat(j.path("verdict").path("checks")).hasSize(5);
        assertThat(j.path("runDir").asText()).isEqualTo("/tmp/run");
    }

    private static ResyncReport report() {
        ResyncReport.Phase incremental = incremental(1);
        ResyncReport.Phase full = full();
        return new ResyncReport(
                "resync",
                new ResyncReport.Settings(1_000_000, 1024, 1, 10_000, 0, 0, "on", "1g", 1_200_000, 2_176_000_000L, 600),
                new ResyncReport.Load(1_000_000, FULL_BYTES, 42.0),
                incremental,
                full,
                ResyncReport.shippedPercent(incremental, full),
                ResyncReport.verdict(incremental, full, 600),
                Provenance.now(Path.of("/tmp/run")));
    }
}
