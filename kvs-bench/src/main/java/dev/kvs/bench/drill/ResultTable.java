package dev.kvs.bench.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Formats drill results as a plain-text table, one line per mode. */
final class ResultTable {
    private static final String[] HEADINGS = {
        "mode", "acked", "complete", "error-detect", "data loss", "writes/s", "MB/s", "p50 ms", "p99 ms"
    };

    private ResultTable() {}

    static String render(List<ModeResult> modes) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADINGS);
        for (ModeResult m : modes) {
            rows.add(new String[] {
                m.mode(),
                count(m.acked()),
                share(m.complete(), m.acked()),
                share(m.errorDetect(), m.acked()),
                share(m.dataLoss(), m.acked()) + (m.unreadable() > 0 ? " (+" + m.unreadable() + " unreadable)" : ""),
                m.writesPerSecond() == null ? "-" : count(Math.round(m.writesPerSecond())),
                m.megabytesPerSecond() == null ? "-" : String.format(Locale.ROOT, "%.1f", m.megabytesPerSecond()),
                ms(m.p50Ms()),
                ms(m.p99Ms())
            });
        }
        int[] width = new int[HEADINGS.length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                if (i > 0) b.append("  ");
                // the mode left-aligned, numbers right-aligned
                b.append(i == 0 ? pad(r[i], width[i], false) : pad(r[i], width[i], true));
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** The modes side by side, one column each: what {@code kvs demo} shows. */
    static String columns(List<ModeResult> modes) {
        List<String[]> rows = new ArrayList<>();
        int n = modes.size() + 1;
        rows.add(row(n, "", modes, ModeResult::mode));
        rows.add(row(n, "acknowledged writes", modes, m -> count(m.acked())));
        rows.add(row(n, "  complete", modes, m -> share(m.complete(), m.acked())));
        rows.add(row(n, "  detected (fenced)", modes, m -> share(m.errorDetect(), m.acked())));
        rows.add(row(n, "  silently lost", modes, m -> share(m.dataLoss(), m.acked())));
        rows.add(row(
                n, "writes/s", modes, m -> m.writesPerSecond() == null ? "-" : count(Math.round(m.writesPerSecond()))));
        rows.add(row(n, "p50 write latency", modes, m -> ms(m.p50Ms()) + " ms"));
        int[] width = new int[n];
        for (String[] r : rows) {
            for (int i = 0; i < n; i++) width[i] = Math.max(width[i], r[i].length());
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < n; i++) {
                if (i > 0) b.append("   ");
                b.append(pad(r[i], width[i], i > 0));
            }
            b.append('\n');
        }
        return b.toString();
    }

    private static String[] row(
            int n, String heading, List<ModeResult> modes, java.util.function.Function<ModeResult, String> cell) {
        String[] r = new String[n];
        r[0] = heading;
        for (int i = 0; i < modes.size(); i++) r[i + 1] = cell.apply(modes.get(i));
        return r;
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String share(long n, long of) {
        if (of == 0 || n == 0) return count(n);
        double pct = 100.0 * n / of;
        return count(n) + String.format(Locale.ROOT, pct < 0.1 ? " (%.2f%%)" : " (%.1f%%)", pct);
    }

    private static String ms(Double ms) {
        if (ms == null) return "-";
        return String.format(Locale.ROOT, ms < 10 ? "%.2f" : "%.1f", ms);
    }

    private static String pad(String s, int width, boolean right) {
        String spaces = " ".repeat(Math.max(0, width - s.length()));
        return right ? spaces + s : s + spaces;
    }
}
