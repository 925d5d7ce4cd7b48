package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.ValueLagStatus;
import dev.kvs.wan.WanLink;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeysUnderLoadReportTest {
    private static final KeysUnderLoadReport.Settings SETTINGS = new KeysUnderLoadReport.Settings(
            20, 8, 4 << 20, "fifo", "id-first", "on", 100, 50, 10, 4, 1 << 20, 2, 20, "on");

    private static PhaseStats phase(double p50, double p99, Map<String, Long> failures) {
        return new PhaseStats(200, 200, failures, p50, p99, p99 + 1);
    }

    private static KeysUnderLoadReport.Goodput goodput(double percent) {
        return KeysUnderLoadReport.Goodput.of(Math.round(percent * 200_000), 20, 1_000_000, 19_000_000);
    }

    @Test
    void goodputIsTheRelayedRateOverTheLinkRate() {
        KeysUnderLoadReport.Goodput g = KeysUnderLoadReport.Goodput.of(18_000_000, 20, 1_000_000, 21_000_000);
        assertThat(g.bytesPerSecond()).isEqualTo(900_000.0);
        assertThat(g.percentOfLink()).isEqualTo(90.0);
        assertThat(g.primaryShippedBytes()).isEqualTo(21_000_000);
        assertThat(g.source()).contains("WAN link relayed");
        assertThat(KeysUnderLoadReport.Goodput.of(100, 1, 0, 0).percentOfLink())
                .as("an unlimited link has no share")
                .isNull();
    }

    @Test
    void passesWhenLoadedLatencyStaysNearIdleAndValuesGetTheLink() {
        Verdict v = KeysUnderLoadReport.verdict(phase(48, 60, Map.of()), phase(63, 78, Map.of()), goodput(80));
        assertThat(v.pass()).as(v.render()).isTrue();
        assertThat(v.checks()).hasSize(4).allMatch(Verdict.Check::ok);
        assertThat(v.checks().get(0).limit()).isEqualTo(63.0);
        assertThat(v.checks().get(1).limit()).isEqualTo(78.0);
    }

    @Test
    void failsOnEachBound() {
        PhaseStats idle = phase(48, 60, Map.of());
        assertThat(KeysUnderLoadReport.verdict(idle, phase(63.1, 70, Map.of()), goodput(90))
                        .pass())
                .as("loaded p50 above idle p50 + 15 ms")
                .isFalse();
        assertThat(KeysUnderLoadReport.verdict(idle, phase(50, 78.1, Map.of()), goodput(90))
                        .pass())
                .as("loaded p99 above idle p50 + 30 ms")
                .isFalse();
        assertThat(KeysUnderLoadReport.verdict(idle, phase(50, 60, Map.of()), goodput(79.9))
                        .pass())
                .as("goodput below 80%")
                .isFalse();
        assertThat(KeysUnderLoadReport.verdict(idle, phase(50, 60, Map.of("NOREPLICA", 1L)), goodput(90))
                        .pass())
                .as("a small SET failed")
                .isFalse();
    }

    @Test
    void aPhaseWithoutAnsweredSetsFails() {
        PhaseStats none = PhaseStats.of(10, Latencies.of(), Map.of("timeout", 10L));
        Verdict v = KeysUnderLoadReport.verdict(phase(48, 60, Map.of()), none, goodput(90));
        assertThat(v.pass()).isFalse();
        assertThat(v.checks().get(0).measured()).isNull();
        assertThat(v.render()).contains("NOT MET  loaded p50 <= idle p50 + 15 ms: none (limit 63 ms)");
    }

    @Test
    void tableShowsBothPhasesTheGoodputTheControllerAndTheVerdict() {
        String text = report(phase(48.1, 52.3, Map.of()), phase(4175, 4212, Map.of("NOREPLICA", 2L)), goodput(99.1))
                .render();

        assertThat(text)
                .contains("small SETs  sent   ok           failed  p50 ms  p99 ms  max ms")
                .contains("idle         200  200                0    48.1    52.3    53.3")
                .contains("loaded       200  200  2 (NOREPLICA 2)  4175.0  4212.0  4213.0")
                .contains("writers: 95 SETs of 1 MiB acknowledged (95 MiB), 1 failed (BUSY 1)")
                .contains("value goodput: 991 kB/s over 20.0 s = 99.1% of the link's 1.00 MB/s")
                .contains("flow control     on, steady")
                .contains("window           256 KiB (128 KiB in flight)")
                .contains("queueing delay   3.50 ms (target 10.0 ms, external 2.00 ms)")
                .contains("base delay       20.2 ms")
                .contains("goodput          988 kB/s")
                .contains("min-rate alarm   ON")
                .contains("value lag        5 MiB in 5 values, oldest 1250.0 ms")
                .contains("FAIL: 3 of 4 bounds not met\n")
                .contains("NOT MET  loaded p50 <= idle p50 + 15 ms: 4175 ms (limit 63.1 ms)")
                .contains("met      value goodput >= 80% of the link: 99.1% (limit 80%)");
    }

    @Test
    void jsonHasEveryField() throws Exception {
        KeysUnderLoadReport r = report(phase(48, 52, Map.of()), phase(60, 70, Map.of()), goodput(90));
        JsonNode j = Report.JSON.readTree(Report.JSON.writeValueAsString(r));

        assertThat(j.path("benchmark").asText()).isEqualTo("keys-under-load");
        assertThat(j.path("settings").path("bandwidthMbit").asDouble()).isEqualTo(8.0);
        assertThat(j.path("settings").path("queueing").asText()).isEqualTo("fifo");
        assertThat(j.path("idle").path("p50Ms").asDouble()).isEqualTo(48.0);
        assertThat(j.path("loaded").path("p99Ms").asDouble()).isEqualTo(70.0);
        assertThat(j.path("writers").path("failures").path("BUSY").asLong()).isEqualTo(1);
        assertThat(j.path("goodput").path("percentOfLink").asDouble()).isEqualTo(90.0);
        assertThat(j.path("primary").path("flowControl").path("windowBytes").asLong())
                .isEqualTo(262_144);
        assertThat(j.path("primary").path("oldestPendingValueMillis").asLong()).isEqualTo(1_250);
        assertThat(j.path("verdict").path("pass").asBoolean()).isTrue();
        assertThat(j.path("verdict").path("checks")).hasSize(4);
        assertThat(j.path("date").asText()).isNotBlank();
        assertThat(j.fieldNames())
                .toIterable()
                .containsExactly(
                        "benchmark",
                        "settings",
                        "idle",
                        "loaded",
                        "writers",
                        "goodput",
                        "primary",
                        "verdict",
                        "runDir",
                        "date",
                        "java",
                        "cores");
    }

    @Test
    void describeSaysWhatRuns() {
        LinkSettings link = new LinkSettings(Duration.ofMillis(20), 8_000_000, 4 << 20, WanLink.Queueing.FIFO);
        assertThat(KeysUnderLoadReport.describe(SETTINGS, link))
                .isEqualTo(
                        "WAN 20 ms each way, 8 Mbit/s, fifo queueing, 4 MiB buffer; 100 B SETs every 50 ms in"
                                + " id-first, 10 s idle, then 20 s while 4 writers write 1 MiB values back to back"
                                + " (measured after 2 s of them); flow control on; cluster secret on (a MAC on every replication frame)");
    }

    private static KeysUnderLoadReport report(PhaseStats idle, PhaseStats loaded, KeysUnderLoadReport.Goodput g) {
        BenchCluster.Replication primary = new BenchCluster.Replication(
                "streaming",
                0,
                5,
                5L << 20,
                1_250,
                123,
                new FlowControlStatus(
                        true, "steady", 262_144, 131_072, 1_000_000, 20_150, 3_500, 2_000, 10_000, 987_654, true, 7),
                ValueLagStatus.off());
        return new KeysUnderLoadReport(
                "keys-under-load",
                SETTINGS,
                idle,
                loaded,
                new BulkWriters.Result(4, 1 << 20, 95, 95L << 20, Map.of("BUSY", 1L)),
                g,
                primary,
                KeysUnderLoadReport.verdict(idle, loaded, g),
                new Provenance("/tmp/run", "2025-01-01T00:00:00Z", "17", 2));
    }
}
