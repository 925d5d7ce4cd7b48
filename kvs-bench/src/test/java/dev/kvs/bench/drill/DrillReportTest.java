package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DrillReportTest {
    @TempDir
    Path dir;

    private static ModeResult result(String mode, long complete, long detected, long lost, long unreadable) {
        LoadResult load = new LoadResult(
                mode,
                4,
                1024,
                120,
                complete + detected + lost + unreadable,
                20,
                Map.of("NoPrimaryException", 20L),
                2.0,
                10_500,
                30_000);
        return ModeResult.of(
                mode,
                load,
                new Classification(
                        complete + detected + lost + unreadable,
                        complete,
                        detected,
                        lost,
                        unreadable,
                        lost > 0 ? List.of("k1") : List.of()),
                1.25);
    }

    private static DrillReport report(List<ModeResult> modes) {
        return new DrillReport(
                "drill",
                "kill-primary",
                7L,
                4,
                1024L,
                2.0,
                5.0,
                1000.0,
                "/tmp/x",
                "loopback",
                "wanlink",
                "2026-11-21T00:00:00Z",
                "17",
                2,
                modes,
                DrillReport.ok(modes));
    }

    @Test
    void jsonHasEveryCountAndReadsBack() throws Exception {
        DrillReport r = report(List.of(result("id-first", 90, 10, 0, 0), result("async", 50, 0, 50, 0)));
        Path file = dir.resolve("out/report.json");

        r.write(file);

        JsonNode json = new ObjectMapper().readTree(file.toFile());
        assertThat(json.get("ok").asBoolean()).isTrue();
        assertThat(json.get("seed").asLong()).isEqualTo(7);
        JsonNode idFirst = json.get("modes").get(0);
        assertThat(idFirst.get("mode").asText()).isEqualTo("id-first");
        assertThat(idFirst.get("acked").asLong()).isEqualTo(100);
        assertThat(idFirst.get("complete").asLong()).isEqualTo(90);
        assertThat(idFirst.get("errorDetect").asLong()).isEqualTo(10);
        assertThat(idFirst.get("dataLoss").asLong()).isZero();
        assertThat(idFirst.get("writesPerSecond").asDouble()).isEqualTo(50.0);
        assertThat(idFirst.get("p50Ms").asDouble()).isEqualTo(10.5);
        assertThat(idFirst.get("disasterAtSeconds").asDouble()).isEqualTo(1.25);
        assertThat(json.get("modes").get(1).get("lossExamples").get(0).asText()).isEqualTo("k1");
        assertThat(DrillReport.read(file)).isEqualTo(r);
    }

    @Test
    void silentLossIsForbiddenInSyncAndIdFirstOnly() {
        assertThat(DrillReport.ok(List.of(result("async", 1, 0, 9, 0)))).isTrue();
        assertThat(DrillReport.ok(List.of(result("id-first-after-reply", 1, 0, 9, 0))))
                .isTrue();
        assertThat(DrillReport.ok(List.of(result("id-first", 1, 0, 1, 0)))).isFalse();
        assertThat(DrillReport.ok(List.of(result("sync", 1, 0, 1, 0)))).isFalse();
        assertThat(DrillReport.ok(List.of(result("async", 1, 0, 0, 1))))
                .as("unreadable")
                .isFalse();
    }

    @Test
    void tablesShowEveryMode() {
        List<ModeResult> modes = List.of(result("id-first", 90, 10, 0, 0), result("async", 50, 0, 50, 0));

        assertThat(ResultTable.render(modes))
                .contains("mode", "acked", "complete", "error-detect", "data loss", "p99 ms")
                .contains("id-first", "90 (90.0%)", "10 (10.0%)")
                .contains("async", "50 (50.0%)");
        assertThat(ResultTable.columns(modes).lines().findFirst().orElseThrow())
                .contains("id-first")
                .contains("async");
        assertThat(ResultTable.columns(modes)).contains("silently lost").contains("detected (fenced)");
    }
}
