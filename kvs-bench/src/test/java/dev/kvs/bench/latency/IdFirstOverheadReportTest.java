package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IdFirstOverheadReportTest {
    private static final IdFirstOverheadReport.Settings SETTINGS = new IdFirstOverheadReport.Settings(
            5, 1000, 4 << 20, "fifo", "on", List.of(100L, 10L << 20), 30, 10, 3, 30, 0, "on");

    private static PhaseStats p50(double ms) {
        return new PhaseStats(30, 30, Map.of(), ms, ms + 2, ms + 3);
    }

    @Test
    void overheadIsTheP50DifferenceInLinkRoundTrips() {
        IdFirstOverheadReport.SizeResult r = IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(10.5), 10.0);
        assertThat(r.overheadMs()).isCloseTo(10.0, within(1e-9));
        assertThat(r.overheadRoundTrips()).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void withoutASuccessfulSetThereIsNoOverhead() {
        PhaseStats none = PhaseStats.of(30, Latencies.of(), Map.of("timeout", 30L));
        IdFirstOverheadReport.SizeResult r = IdFirstOverheadReport.SizeResult.of(100, p50(0.5), none, 10.0);
        assertThat(r.overheadMs()).isNull();
        assertThat(r.overheadRoundTrips()).isNull();
        assertThat(IdFirstOverheadReport.verdict(List.of(r), 10.0).pass()).isFalse();
    }

    @Test
    void largeValuesUseTheLargeCount() {
        assertThat(SETTINGS.countFor(1 << 20)).isEqualTo(30);
        assertThat(SETTINGS.countFor((1 << 20) + 1)).isEqualTo(10);
    }

    @Test
    void passesAtMostOnePointTwoRoundTripsForEverySize() {
        Verdict pass = IdFirstOverheadReport.verdict(
                List.of(
                        IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(12.5), 10.0),
                        IdFirstOverheadReport.SizeResult.of(10 << 20, p50(30), p50(42), 10.0)),
                10.0);
        assertThat(pass.pass()).as(pass.render()).isTrue();

        Verdict fail = IdFirstOverheadReport.verdict(
                List.of(
                        IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(12.5), 10.0),
                        IdFirstOverheadReport.SizeResult.of(10 << 20, p50(30), p50(42.1), 10.0)),
                10.0);
        assertThat(fail.pass()).isFalse();
        assertThat(fail.render())
                .startsWith("FAIL: 1 of 5 bounds not met\n")
                .contains("NOT MET  10 MiB: (id-first p50 - async p50) / RTT <= 1.2: 1.21 (limit 1.20)");
    }

    @Test
    void anIdFirstSetAnsweredInLessThanPointEightRoundTripsFails() {
        // 7.9 ms over a 10 ms link: the write did not wait for its key packet's acknowledgement
        Verdict v = IdFirstOverheadReport.verdict(
                List.of(
                        IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(7.9), 10.0),
                        IdFirstOverheadReport.SizeResult.of(10 << 20, p50(30), p50(38), 10.0)),
                10.0);
        assertThat(v.pass()).isFalse();
        assertThat(v.render())
                .startsWith("FAIL: 1 of 5 bounds not met\n")
                .contains("NOT MET  100 B: id-first p50 >= 0.8 RTT: 7.90 ms (limit 8 ms)")
                .contains("met      10 MiB: id-first p50 >= 0.8 RTT: 38 ms (limit 8 ms)");
        // an id-first that answered like async: no overhead at all, well under the upper bound
        Verdict likeAsync = IdFirstOverheadReport.verdict(
                List.of(IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(0.5), 10.0)), 10.0);
        assertThat(likeAsync.pass()).isFalse();
        assertThat(likeAsync.render()).contains("NOT MET  100 B: id-first p50 >= 0.8 RTT: 0.50 ms (limit 8 ms)");
        // exactly 0.8 round trips is enough
        assertThat(IdFirstOverheadReport.verdict(
                                List.of(IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(8.0), 10.0)), 10.0)
                        .pass())
                .isTrue();
    }

    @Test
    void withoutALinkRoundTripTheLowerBoundIsNotMet() {
        Verdict v = IdFirstOverheadReport.verdict(
                List.of(IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(10.5), null)), null);
        assertThat(v.pass()).isFalse();
        assertThat(v.render()).contains("NOT MET  100 B: id-first p50 >= 0.8 RTT: 10.5 ms (limit none)");
    }

    @Test
    void aFailedSetFails() {
        PhaseStats withFailure = new PhaseStats(30, 29, Map.of("NOREPLICA", 1L), 10.0, 11.0, 12.0);
        Verdict v = IdFirstOverheadReport.verdict(
                List.of(IdFirstOverheadReport.SizeResult.of(100, p50(0.5), withFailure, 10.0)), 10.0);
        assertThat(v.pass()).isFalse();
        assertThat(v.render()).contains("NOT MET  SETs failed = 0: 1 (limit 0)");
    }

    @Test
    void tableShowsOneLinePerSizeAndTheVerdict() {
        String text = report().render();

        assertThat(text)
                .contains("link round trip: p50 10.2 ms, p99 12.2 ms (30 PINGs")
                .contains(
                        "value size  SETs  failed  async p50 ms  id-first p50 ms  id-first p99 ms  overhead ms  / RTT")
                .contains(
                        "100 B         30       0          0.50             10.5             12.5         10.0   0.98")
                .contains(
                        "10 MiB        30       0          30.0             90.0             92.0         60.0   5.88")
                .contains("FAIL: 1 of 5 bounds not met");
    }

    @Test
    void jsonHasEveryField() throws Exception {
        JsonNode j = Report.JSON.readTree(Report.JSON.writeValueAsString(report()));

        assertThat(j.path("benchmark").asText()).isEqualTo("id-first-overhead");
        assertThat(j.path("settings").path("valueSizes")).hasSize(2);
        assertThat(j.path("linkRoundTrip").path("p50Ms").asDouble()).isEqualTo(10.2);
        JsonNode big = j.path("sizes").get(1);
        assertThat(big.path("valueSize").asLong()).isEqualTo(10L << 20);
        assertThat(big.path("async").path("p50Ms").asDouble()).isEqualTo(30.0);
        assertThat(big.path("idFirst").path("p50Ms").asDouble()).isEqualTo(90.0);
        assertThat(big.path("overheadMs").asDouble()).isEqualTo(60.0);
        assertThat(big.path("overheadRoundTrips").asDouble()).isCloseTo(5.88, within(0.01));
        assertThat(j.path("verdict").path("pass").asBoolean()).isFalse();
        assertThat(j.fieldNames())
                .toIterable()
                .containsExactly(
                        "benchmark",
                        "settings",
                        "linkRoundTrip",
                        "sizes",
                        "verdict",
                        "runDir",
                        "date",
                        "java",
                        "cores");
    }

    private static IdFirstOverheadReport report() {
        List<IdFirstOverheadReport.SizeResult> sizes = List.of(
                IdFirstOverheadReport.SizeResult.of(100, p50(0.5), p50(10.5), 10.2),
                IdFirstOverheadReport.SizeResult.of(10 << 20, p50(30), p50(90), 10.2));
        return new IdFirstOverheadReport(
                "id-first-overhead",
                SETTINGS,
                new PhaseStats(30, 30, Map.of(), 10.2, 12.2, 12.5),
                sizes,
                IdFirstOverheadReport.verdict(sizes, 10.2),
                new Provenance("/tmp/run", "2025-01-01T00:00:00Z", "17", 2));
    }
}
