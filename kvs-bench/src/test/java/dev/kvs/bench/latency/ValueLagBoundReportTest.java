package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.replication.ValueLagStatus;
import dev.kvs.wan.WanLink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueLagBoundReportTest {
    private static final ValueLagBoundReport.Settings SETTINGS = new ValueLagBoundReport.Settings(
            20, 8, 4 << 20, "fifo", "id-first", "on", null, 100, 50, 10, 4, 1 << 20, 2, 60);
    private static final PhaseStats IDLE = phase(48, 60, Map.of());
    private static final PhaseStats LOADED = phase(55, 70, Map.of());
    private static final ValueLagBoundReport.Fenced FENCED = new ValueLagBoundReport.Fenced(4, 4L << 20, 4_200);

    private static PhaseStats phase(double p50, double p99, Map<String, Long> failures) {
        return new PhaseStats(1200, 1200, failures, p50, p99, p99 + 1);
    }

    private static KeysUnderLoadReport.Goodput goodput(double percent) {
        return KeysUnderLoadReport.Goodput.of(Math.round(percent * 600_000), 60, 1_000_000, 59_000_000);
    }

    private static LagSampler.Result lag(long maxMillis) {
        return new LagSampler.Result(620, 0, maxMillis, 31.4, 3_900, 100);
    }

    @Test
    void passesWhenTheLagAndWhatTheKillFencedStayWithinTheBound() {
        Verdict v = ValueLagBoundReport.verdict(5_000, lag(6_000), goodput(80), IDLE, LOADED, FENCED);
        assertThat(v.pass()).as(v.render()).isTrue();
        assertThat(v.checks()).hasSize(7).allMatch(Verdict.Check::ok);
        assertThat(v.checks().get(0).limit()).isEqualTo(6_000.0);
        assertThat(v.checks().get(6).limit()).isEqualTo(6_000_000.0); // 1 MB/s for 6 s
    }

    @Test
    void failsOnEachBound() {
        assertThat(ValueLagBoundReport.verdict(5_000, lag(6_001), goodput(90), IDLE, LOADED, FENCED)
                        .pass())
                .as("the lag above the bound + 1 s")
                .isFalse();
        assertThat(ValueLagBoundReport.verdict(5_000, lag(4_000), goodput(79.9), IDLE, LOADED, FENCED)
                        .pass())
                .as("goodput below 80%")
                .isFalse();
        assertThat(ValueLagBoundReport.verdict(5_000, lag(4_000), goodput(90), IDLE, phase(63.1, 70, Map.of()), FENCED)
                        .pass())
                .as("small SETs: loaded p50 above idle p50 + 15 ms")
                .isFalse();
        assertThat(ValueLagBoundReport.verdict(5_000, lag(4_000), goodput(90), IDLE, phase(50, 78.1, Map.of()), FENCED)
                        .pass())
                .as("small SETs: loaded p99 above idle p50 + 30 ms")
                .isFalse();
        assertThat(ValueLagBoundReport.verdict(
                                5_000, lag(4_000), goodput(90), IDLE, phase(50, 60, Map.of("BUSY", 1L)), FENCED)
                        .pass())
                .as("a small SET refused")
                .isFalse();
        assertThat(ValueLagBoundReport.verdict(
                                5_000,
                                lag(4_000),
                                goodput(90),
                                IDLE,
                                LOADED,
                                new ValueLagBoundReport.Fenced(4, 4L << 20, 6_001))
                        .pass())
                .as("a fenced key older than the bound + 1 s")
                .isFalse();
        assertThat(ValueLagBoundReport.verdict(
                                5_000,
                                lag(4_000),
                                goodput(90),
                                IDLE,
                                LOADED,
                                new ValueLagBoundReport.Fenced(7, 7L << 20, 4_000))
                        .pass())
                .as("more fenced bytes than the link carries in the bound + 1 s")
                .isFalse();
    }

    @Test
    void aRunWithoutLagSamplesOrFencedKeysReadFails() {
        Verdict v = ValueLagBoundReport.verdict(
                5_000, new LagSampler.Result(0, 12, -1, 0, 0, 100), goodput(90), IDLE, LOADED, null);
        assertThat(v.pass()).isFalse();
        assertThat(v.checks().get(0).measured()).isNull();
        assertThat(v.checks().get(5).measured()).isNull();
    }

    private static ValueLagBoundReport report(LagSampler.Result lag) {
        return new ValueLagBoundReport(
                "value-lag",
                SETTINGS,
                5_000,
                IDLE,
                LOADED,
                new BulkWriters.Result(4, 1 << 20, 57, 57L << 20, Map.of("BUSY", 2L)),
                goodput(93.5),
                lag,
                new ValueLagStatus(5_000, 3_400, 981_000, 310, 250_000),
                FENCED,
                ValueLagBoundReport.verdict(5_000, lag, goodput(93.5), IDLE, LOADED, FENCED),
                Provenance.now(Path.of("/tmp/run")));
    }

    @Test
    void tableShowsTheLagTheGoodputTheSmallSetsWhatWasFencedAndTheVerdict() {
        String text = report(lag(4_850)).render();

        assertThat(text)
                .contains("value lag: max 4,850 ms (at 31.4 s of 620 samples, one every 100 ms; mean 3900 ms);"
                        + " bound 5,000 ms")
                .contains("the bound at the end: projected lag 3,400 ms, drain rate 981 kB/s, 310 writes held for"
                        + " 250,000 ms in all")
                .contains("value goodput: 935 kB/s over 60.0 s = 93.5% of the link's 1.00 MB/s")
                .contains("writers: 57 SETs of 1 MiB acknowledged (57 MiB), 2 failed (BUSY 2)")
                .contains("loaded      1,200  1,200       0    55.0    70.0    71.0")
                .contains("after the kill: the promoted backup fenced 4 keys (4 MiB of values), the oldest 4,200 ms"
                        + " before the kill")
                .contains("PASS: every bound met")
                .contains("met      oldest unshipped value <= maxValueLagMs + 1 s: 4850 ms (limit 6000 ms)");
    }

    @Test
    void jsonHasEveryField() throws Exception {
        JsonNode j = Report.JSON.readTree(Report.JSON.writeValueAsString(report(lag(4_850))));

        assertThat(j.path("benchmark").asText()).isEqualTo("value-lag");
        assertThat(j.path("settings").path("maxValueLagMs").isNull()).isTrue();
        assertThat(j.path("maxValueLagMillis").asLong()).isEqualTo(5_000);
        assertThat(j.path("lag").path("maxLagMillis").asLong()).isEqualTo(4_850);
        assertThat(j.path("primary").path("waits").asLong()).isEqualTo(310);
        assertThat(j.path("fenced").path("oldestAgeMillis").asLong()).isEqualTo(4_200);
        assertThat(j.path("verdict").path("checks")).hasSize(7);
    }

    @Test
    void describeSaysWhatRuns() {
        LinkSettings link = new LinkSettings(Duration.ofMillis(20), 8_000_000, 4 << 20, WanLink.Queueing.FIFO);
        assertThat(ValueLagBoundReport.describe(SETTINGS, link))
                .isEqualTo("WAN 20 ms each way, 8 Mbit/s, fifo queueing, 4 MiB buffer; maxValueLagMs at its default;"
                        + " 4 writers write 1 MiB values back to back in id-first for 62 s (measured after 2 s),"
                        + " beside 100 B SETs every 50 ms (10 s idle first); then kill -9 of the primary and"
                        + " promotion of the backup; flow control on");
    }
}
