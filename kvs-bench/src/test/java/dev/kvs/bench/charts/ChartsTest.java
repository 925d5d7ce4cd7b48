package dev.kvs.bench.charts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.bench.cli.InProcessKvs;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON to series extraction of {@code kvs bench charts}, on small fixtures, and the command. */
class ChartsTest {
    @TempDir
    Path dir;

    private static Path fixture(Path dir, String name) throws Exception {
        Path p = dir.resolve(name);
        try (InputStream in = ChartsTest.class.getResourceAsStream("/charts/" + name)) {
            assertThat(in).as(name).isNotNull();
            Files.copy(in, p);
        }
        return p;
    }

    @Test
    void aBenchmarkIsKnownByItsClassAndMethodWhateverItsPackage() {
        // runs from before the JMH classes moved into packages mirroring the code they measure chart too
        assertThat(JmhLatencies.classAndMethod("dev.kvs.bench.jmh.WanLinkBenchmark.roundTrip"))
                .isEqualTo(JmhLatencies.LINK_ROUND_TRIP);
        assertThat(JmhLatencies.classAndMethod("dev.kvs.bench.jmh.wan.WanLinkBenchmark.roundTrip"))
                .isEqualTo(JmhLatencies.LINK_ROUND_TRIP);
        assertThat(JmhLatencies.classAndMethod("dev.kvs.bench.jmh.core.StoreBenchmark.put"))
                .isEqualTo("StoreBenchmark.put");
    }

    @Test
    void fig3SeriesAreTheMediansInMillisecondsPerModeAndSize() throws Exception {
        JmhLatencies l = JmhLatencies.read(fixture(dir, "jmh-results.json"));

        // strongest guarantee first, Redis last; StoreBenchmark ignored
        assertThat(l.protection().keySet()).containsExactly("sync", "id-first", "async", JmhLatencies.REDIS);
        assertThat(l.protection().get("id-first")).containsExactly(Map.entry(100L, 10.8), Map.entry(1048576L, 20.0));
        assertThat(l.protection().get("async")).containsExactly(Map.entry(100L, 0.5), Map.entry(1048576L, 2.5));
        // us/op and ms/op both become milliseconds
        assertThat(l.protection().get(JmhLatencies.REDIS))
                .containsExactly(Map.entry(100L, 12.0), Map.entry(1048576L, 25.0));

        assertThat(l.valueOnBackup().keySet()).containsExactly("id-first", "async", JmhLatencies.REDIS);
        assertThat(l.valueOnBackup().get("async")).containsExactly(Map.entry(100L, 6.0));
        assertThat(l.sizes()).containsExactly(100L, 1048576L);
    }

    @Test
    void theTableHasTheMediansAndEachModesRatioToRedis() throws Exception {
        JmhLatencies l = JmhLatencies.read(fixture(dir, "jmh-results.json"));

        assertThat(l.protectionTable()).isEqualTo("""
                        | value | sync p50 ms | id-first p50 ms | async p50 ms | Redis SET+WAIT p50 ms | sync / Redis | id-first / Redis | async / Redis |
                        |---|---:|---:|---:|---:|---:|---:|---:|
                        | 100 B | 11.4 | 10.8 | 0.50 | 12.0 | 0.95 | 0.90 | 0.04 |
                        | 1 MiB | - | 20.0 | 2.50 | 25.0 | - | 0.80 | 0.10 |
                        """);
    }

    @Test
    void theFloorIsTheLocalWritePlusTheRoundTripOfTheEndToEndLink() throws Exception {
        ObjectMapper json = new ObjectMapper();
        var results = (com.fasterxml.jackson.databind.node.ArrayNode)
                json.readTree(Files.readString(fixture(dir, "jmh-results.json")));
        JmhLatencies withoutLink = JmhLatencies.of(results);
        assertThat(withoutLink.floor()).as("no link round trip in the run").isEmpty();
        // the 4.6 ms link is the emulator's accuracy check, not the end-to-end benchmarks' link
        results.add(json.readTree(linkRoundTrip(4600, 9_300)));
        assertThat(JmhLatencies.of(results).floor()).isEmpty();
        results.add(json.readTree(linkRoundTrip(5000, 10_000)));

        JmhLatencies l = JmhLatencies.of(results);

        assertThat(l.floor()).containsExactly(Map.entry(100L, 10.5), Map.entry(1048576L, 12.5));
        assertThat(l.protectionTable())
                .contains("| floor ms | id-first / floor |")
                .contains("| 100 B | 11.4 | 10.8 | 0.50 | 12.0 | 0.95 | 0.90 | 0.04 | 10.5 | 1.03 |")
                .contains("| 1 MiB | - | 20.0 | 2.50 | 25.0 | - | 0.80 | 0.10 | 12.5 | 1.60 |");
        assertThat(ChartsCommand.withFloor(l)).containsKey(JmhLatencies.FLOOR);
        assertThat(ChartsCommand.withFloor(withoutLink)).doesNotContainKey(JmhLatencies.FLOOR);
    }

    private static String linkRoundTrip(long delayMicros, double p50Micros) {
        return "{\"benchmark\":\"" + JmhLatencies.LINK_ROUND_TRIP + "\",\"params\":{\"delayMicros\":\""
                + delayMicros + "\"},\"primaryMetric\":{\"scorePercentiles\":{\"50.0\":" + p50Micros
                + "},\"scoreUnit\":\"us/op\"}}";
    }

    @Test
    void aResultWithoutAMedianOrWithAnotherUnitIsRefused() throws Exception {
        ObjectMapper json = new ObjectMapper();
        String noMedian = "[{\"benchmark\":\"" + JmhLatencies.PROTECTION
                + "\",\"params\":{\"mode\":\"sync\",\"valueSize\":\"100\"},"
                + "\"primaryMetric\":{\"score\":1.0,\"scoreUnit\":\"us/op\"}}]";
        assertThatThrownBy(() -> JmhLatencies.of(json.readTree(noMedian)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no median");
        String throughput = noMedian.replace("\"score\":1.0", "\"scorePercentiles\":{\"50.0\":3.0}")
                .replace("us/op", "ops/s");
        assertThatThrownBy(() -> JmhLatencies.of(json.readTree(throughput)))
                .hasMessageContaining("not a time per operation: ops/s");
        assertThatThrownBy(() -> JmhLatencies.of(json.readTree("{}"))).hasMessageContaining("not JMH JSON");
    }

    @Test
    void sizesAreLabelledAsInThePaper() {
        assertThat(JmhLatencies.size(100)).isEqualTo("100 B");
        assertThat(JmhLatencies.size(100_000)).isEqualTo("100 kB");
        assertThat(JmhLatencies.size(102_400)).isEqualTo("100 KiB");
        assertThat(JmhLatencies.size(1 << 20)).isEqualTo("1 MiB");
        assertThat(JmhLatencies.size(10L << 20)).isEqualTo("10 MiB");
    }

    @Test
    void fig4IsEachModesOutcomesOfItsAcknowledgedWrites() throws Exception {
        DrillOutcomes d = DrillOutcomes.read(fixture(dir, "drill.json"));

        assertThat(d.title()).isEqualTo("Fig. 4: acknowledged writes after kill-primary, 1 MiB values, 5 ms one way");
        assertThat(d.modes())
                .containsExactly(
                        new DrillOutcomes.Mode("id-first", 200, 150, 50, 0),
                        new DrillOutcomes.Mode("async", 400, 100, 0, 300));
        assertThat(d.modes().get(1).percent(300)).isCloseTo(75.0, within(1e-9));
        assertThat(new DrillOutcomes.Mode("sync", 0, 0, 0, 0).percent(0)).isZero();
        assertThatThrownBy(() -> DrillOutcomes.of(new ObjectMapper().readTree("{\"modes\":[]}")))
                .hasMessageContaining("not a drill report");
    }

    @Test
    void theCommandWritesThreePngsAndPrintsTheTable() throws Exception {
        Path jmh = fixture(dir, "jmh-results.json");
        Path drill = fixture(dir, "drill.json");
        Path out = dir.resolve("docs");
        InProcessKvs kvs = new InProcessKvs();

        assertThat(kvs.run(
                        "bench",
                        "charts",
                        "--jmh",
                        jmh.toString(),
                        "--drill",
                        drill.toString(),
                        "--out",
                        out.toString()))
                .as(kvs.toString())
                .isZero();

        for (String f : new String[] {ChartsCommand.FIG3A, ChartsCommand.FIG3B, ChartsCommand.FIG4}) {
            byte[] png = Files.readAllBytes(out.resolve(f));
            assertThat(png).as(f).startsWith(0x89, 'P', 'N', 'G');
        }
        assertThat(kvs.out()).contains("| 100 B | 11.4 | 10.8 | 0.50 | 12.0 | 0.95 | 0.90 | 0.04 |");
        assertThat(kvs.err()).contains("wrote " + out.resolve(ChartsCommand.FIG4));
    }

    @Test
    void theCommandNeedsAnInput() {
        InProcessKvs kvs = new InProcessKvs();
        assertThat(kvs.run("bench", "charts", "--out", dir.toString())).isEqualTo(2);
        assertThat(kvs.err()).contains("give --jmh FILE, --drill FILE or both");
    }

    @Test
    void aSeriesMissingASizeLeavesAGapInItsChart() {
        SortedMap<Long, Double> s = new TreeMap<>(Map.of(100L, 1.0));
        var chart = ChartsCommand.latencyChart("t", Map.of("sync", s), java.util.List.of(100L, 1000L));
        assertThat(chart.getSeries("sync").getYData()).containsExactly(1.0, Double.NaN);
    }
}
