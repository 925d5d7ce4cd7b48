package dev.kvs.bench.drill;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The progress of a load on stderr: one line redrawn in place ({@code \r}) on a terminal, or a plain
 * line every second otherwise (a log, a CI job), so the output never fills with control characters.
 */
final class Progress implements AutoCloseable {
    private static final int BAR = 20;

    private final PrintWriter err;
    private final boolean terminal;
    private final String label;
    private final double seconds;
    private final LoadGenerator load;
    private final Supplier<String> note;
    private final ScheduledExecutorService timer;
    private int lastWidth;

    /**
     * Starts showing the progress of {@code load}, {@code seconds} long.
     *
     * @param note extra text after the numbers (e.g. when the disaster struck); may return ""
     */
    Progress(
            PrintWriter err,
            boolean terminal,
            String label,
            double seconds,
            LoadGenerator load,
            Supplier<String> note) {
        this.err = err;
        this.terminal = terminal;
        this.label = label;
        this.seconds = seconds;
        this.load = load;
        this.note = note;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvs-drill-progress");
            t.setDaemon(true);
            return t;
        });
        long period = terminal ? 200 : 1000;
        timer.scheduleAtFixedRate(this::show, period, period, TimeUnit.MILLISECONDS);
    }

    /** Whether stderr is a terminal, as far as Java can tell. */
    static boolean stderrIsTerminal() {
        return System.console() != null;
    }

    private synchronized void show() {
        double t = Math.min(load.elapsedSeconds(), seconds);
        long acked = load.acked();
        int filled = seconds <= 0 ? BAR : (int) Math.round(BAR * t / seconds);
        String line = String.format(
                Locale.ROOT,
                "%s [%s%s] %4.1f/%.1f s  acked %,d  %,.0f w/s  failed %,d%s",
                label,
                "#".repeat(filled),
                ".".repeat(BAR - filled),
                t,
                seconds,
                acked,
                t > 0 ? acked / t : 0.0,
                load.failed(),
                note.get());
        if (terminal) {
            err.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
            lastWidth = line.length();
        } else {
            err.println(line);
        }
        err.flush();
    }

    /** Stops updating and shows the last state; on a terminal, ends the line. */
    @Override
    public synchronized void close() {
        timer.shutdownNow();
        show();
        if (terminal) {
            err.println();
            err.flush();
        }
    }
}
