package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kvs.bench.cluster.LinkSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How the benchmarks print numbers and tables, and write their reports as JSON. */
final class Report {
    /** {@code --json} without a file, or with {@code -}: the JSON goes to stdout. */
    static final Path STDOUT = Path.of("-");

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Report() {}

    /** Writes {@code report} as JSON to {@code target}, or to {@code out} if it is {@link #STDOUT}. */
    static void writeJson(Object report, Path target, PrintWriter out) {
        try {
            if (target.equals(STDOUT)) {
                out.println(JSON.writeValueAsString(report));
                out.flush();
                return;
            }
            Path parent = target.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            JSON.writeValue(target.toFile(), report);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    /** {@code 20}, {@code 2.5}: whole numbers without a fraction. */
    static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /** {@code 100 B}, {@code 100 kB}, {@code 1 MiB}, {@code 1.5 MiB}. */
    static String bytes(double n) {
        if (n >= 1 << 20 && n % (1 << 20) == 0) return (long) n / (1 << 20) + " MiB";
        if (n >= 1 << 10 && n % (1 << 10) == 0) return (long) n / (1 << 10) + " KiB";
        if (n >= 1000_000 && n % 1000_000 == 0) return (long) n / 1000_000 + " MB";
        if (n >= 1000 && n % 1000 == 0) return (long) n / 1000 + " kB";
        if (n >= 1 << 20) return String.format(Locale.ROOT, "%.1f MiB", n / (1 << 20));
        if (n >= 1 << 10) return String.format(Locale.ROOT, "%.1f KiB", n / (1 << 10));
        return number(Math.round(n)) + " B";
    }

    /** A rate in decimal units, as link rates are given: {@code 980 kB/s}, {@code 1.01 MB/s}. */
    static String rate(double bytesPerSecond) {
        double b = bytesPerSecond;
        if (b >= 1e9) return String.format(Locale.ROOT, "%.2f GB/s", b / 1e9);
        if (b >= 1e6) return String.format(Locale.ROOT, "%.2f MB/s", b / 1e6);
        if (b >= 1e3) return String.format(Locale.ROOT, "%.0f kB/s", b / 1e3);
        return String.format(Locale.ROOT, "%.0f B/s", b);
    }

    /** {@code 20 ms each way, 8 Mbit/s, fifo queueing, 4 MiB buffer}. */
    static String link(LinkSettings link) {
        return String.format(
                Locale.ROOT,
                "%s ms each way, %s, %s queueing, %s buffer",
                number(link.delayMs()),
                link.bitsPerSecond() == 0 ? "unlimited bandwidth" : number(link.bandwidthMbit()) + " Mbit/s",
                link.queueing().name().toLowerCase(Locale.ROOT),
                bytes(link.bufferBytes()));
    }

    /** Milliseconds with two decimals below 10, one above; {@code -} for none. */
    static String ms(Double ms) {
        if (ms == null) return "-";
        return String.format(Locale.ROOT, ms < 10 ? "%.2f" : "%.1f", ms);
    }

    /** Rows of cells as aligned columns: the first column left-aligned, the others right-aligned. */
    static String columns(List<String[]> rows) {
        int n = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] width = new int[n];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            List<String> cells = new ArrayList<>();
            for (int i = 0; i < r.length; i++) {
                String pad = " ".repeat(width[i] - r[i].length());
                cells.add(i == 0 ? r[i] + pad : pad + r[i]);
            }
            b.append(String.join("  ", cells).stripTrailing()).append('\n');
        }
        return b.toString();
    }
}
