package dev.kvs.bench.charts;

import dev.kvs.server.cli.KvsVersionProvider;
import java.awt.Color;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvs bench charts}: the paper's figures as PNG files, from the JSON of {@code kvs bench jmh}
 * (Fig. 3(a) and 3(b)) and of {@code kvs drill} (Fig. 4), drawn with XChart. Prints the Markdown table
 * of Fig. 3(a)'s medians with each mode's ratio to Redis.
 */
@Command(
        name = "charts",
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        description = {
            "PNG charts of the paper's figures: from --jmh (kvs bench jmh --json) Fig. 3(a), the median time to"
                    + " consistency protection per mode and value size, and Fig. 3(b), the median time until the"
                    + " value is on the backup, both with Redis SET+WAIT when the run has it; from --drill (kvs"
                    + " drill --json) Fig. 4, complete / error-detect / data loss per mode. Prints the table of"
                    + " Fig. 3(a)'s medians and ratios to Redis, and, when the run has WanLinkBenchmark at 5 ms,"
                    + " the physical floor (async's local write + the link's round trip) and id-first's ratio to"
                    + " it."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:charts written", "1:a file could not be read or written", "2:bad flag"})
public final class ChartsCommand implements Callable<Integer> {
    /** File names of the figures in {@code --out}. */
    static final String FIG3A = "fig3a-time-to-consistency-protection.png";

    static final String FIG3B = "fig3b-time-to-value-on-backup.png";
    static final String FIG4 = "fig4-drill-outcomes.png";

    /** One colour per series, the same mode in the same colour in every figure. */
    private static final Map<String, Color> COLORS = Map.of(
            "sync",
            new Color(0x1f77b4),
            "id-first",
            new Color(0x2ca02c),
            "id-first-after-reply",
            new Color(0x9467bd),
            "async",
            new Color(0xff7f0e),
            JmhLatencies.REDIS,
            new Color(0xd62728),
            JmhLatencies.FLOOR,
            new Color(0x7f7f7f));

    @Spec
    private CommandSpec spec;

    @Option(names = "--jmh", paramLabel = "FILE", description = "JMH JSON results (kvs bench jmh --json)")
    private Path jmh;

    @Option(names = "--drill", paramLabel = "FILE", description = "A drill's JSON results (kvs drill --json)")
    private Path drill;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Where the PNG files go (default: docs)",
            defaultValue = "docs")
    private Path out;

    @Override
    public Integer call() {
        if (jmh == null && drill == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --jmh FILE, --drill FILE or both");
        }
        System.setProperty("java.awt.headless", "true");
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter stderr = spec.commandLine().getErr();
        try {
            Files.createDirectories(out);
            List<Path> written = new ArrayList<>();
            if (jmh != null) {
                JmhLatencies l = JmhLatencies.read(jmh);
                if (l.protection().isEmpty() && l.valueOnBackup().isEmpty()) {
                    stderr.println("kvs bench charts: " + jmh
                            + " has no ReplicationLatencyBenchmark or RedisWaitBenchmark results");
                    return 1;
                }
                written.add(save(
                        latencyChart(
                                "Fig. 3(a): time to consistency protection (median; 5 ms one way, 1000 Mbit/s FIFO)",
                                withFloor(l),
                                l.sizes()),
                        FIG3A));
                written.add(save(
                        latencyChart(
                                "Fig. 3(b): time until the value is on the backup (median; same link)",
                                l.valueOnBackup(),
                                l.sizes()),
                        FIG3B));
                stdout.print(l.protectionTable());
            }
            if (drill != null) written.add(save(drillChart(DrillOutcomes.read(drill)), FIG4));
            for (Path p : written) stderr.println("kvs bench charts: wrote " + p);
            stdout.flush();
            return 0;
        } catch (IOException | RuntimeException e) {
            stderr.println("kvs bench charts: " + e.getMessage());
            return 1;
        }
    }

    /** Fig. 3(a)'s series, and the physical floor last when the run has it. */
    static Map<String, SortedMap<Long, Double>> withFloor(JmhLatencies l) {
        Map<String, SortedMap<Long, Double>> series = new LinkedHashMap<>(l.protection());
        if (!l.floor().isEmpty()) series.put(JmhLatencies.FLOOR, l.floor());
        return series;
    }

    private Path save(CategoryChart chart, String name) throws IOException {
        Path file = out.resolve(name);
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }

    /** Grouped bars: one group per value size, one bar per series, log-scale milliseconds. */
    static CategoryChart latencyChart(String title, Map<String, SortedMap<Long, Double>> series, List<Long> sizes) {
        CategoryChart c = new CategoryChartBuilder()
                .width(900)
                .height(520)
                .title(title)
                .xAxisTitle("value size")
                .yAxisTitle("milliseconds (log scale)")
                .build();
        style(c);
        c.getStyler().setYAxisLogarithmic(true);
        // bars start at the axis minimum, which XChart makes 0 unless set: a decade below the smallest
        double min = series.values().stream()
                .flatMap(s -> s.values().stream())
                .mapToDouble(Double::doubleValue)
                .filter(v -> v > 0)
                .min()
                .orElse(1);
        c.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(min))));
        List<String> labels = sizes.stream().map(JmhLatencies::size).toList();
        List<Color> colors = new ArrayList<>();
        for (Map.Entry<String, SortedMap<Long, Double>> s : series.entrySet()) {
            List<Double> ys = new ArrayList<>();
            // a size the run lacks for this series: null, no bar
            for (long size : sizes) ys.add(s.getValue().get(size));
            c.addSeries(s.getKey(), labels, ys);
            colors.add(COLORS.getOrDefault(s.getKey(), Color.GRAY));
        }
        c.getStyler().setSeriesColors(colors.toArray(new Color[0]));
        return c;
    }

    /** Stacked bars per mode: percent of acknowledged writes complete, fenced, silently lost. */
    static CategoryChart drillChart(DrillOutcomes d) {
        CategoryChart c = new CategoryChartBuilder()
                .width(900)
                .height(520)
                .title(d.title())
                .xAxisTitle("replication mode")
                .yAxisTitle("% of acknowledged writes")
                .build();
        style(c);
        c.getStyler().setStacked(true);
        c.getStyler().setYAxisMax(100.0);
        List<String> modes = new ArrayList<>();
        List<Double> complete = new ArrayList<>();
        List<Double> detected = new ArrayList<>();
        List<Double> lost = new ArrayList<>();
        for (DrillOutcomes.Mode m : d.modes()) {
            modes.add(m.mode() + " (" + m.acked() + " acked)");
            complete.add(m.percent(m.complete()));
            detected.add(m.percent(m.errorDetect()));
            lost.add(m.percent(m.dataLoss()));
        }
        c.addSeries("complete", modes, complete);
        c.addSeries("error-detect (fenced)", modes, detected);
        c.addSeries("data loss (silent)", modes, lost);
        c.getStyler().setSeriesColors(new Color[] {new Color(0x2ca02c), new Color(0xffbf00), new Color(0xd62728)});
        return c;
    }

    private static void style(CategoryChart c) {
        c.getStyler()
                .setLegendPosition(Styler.LegendPosition.OutsideE)
                .setChartBackgroundColor(Color.WHITE)
                .setAntiAlias(true);
        c.getStyler().setPlotGridVerticalLinesVisible(false);
    }
}
