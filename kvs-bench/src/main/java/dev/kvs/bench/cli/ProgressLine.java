package dev.kvs.bench.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The progress of a drill's load or a benchmark's phase on stderr: one line redrawn in place ({@code
 * \r}) five times a second on a terminal, or printed as a plain line every so often otherwise (a log,
 * a CI job), so the output never fills with control characters. The caller says what the line reads.
 */
public final class ProgressLine implements AutoCloseable {
    private static final int BAR = 20;
    private static final long TERMINAL_PERIOD_MILLIS = 200;

    private final PrintWriter err;
    private final boolean terminal;
    private final Supplier<String> line;
    private final ScheduledExecutorService timer;
    private int lastWidth;

    /**
     * Starts showing {@code line}.
     *
     * @param terminal whether {@code err} is a terminal ({@link #stderrIsTerminal()})
     * @param plainPeriod how often a plain line is printed when it is not
     * @param line the text of the line now; called on a timer thread, and once more on close
     */
    public ProgressLine(PrintWriter err, boolean terminal, Duration plainPeriod, Supplier<String> line) {
        this.err = err;
        this.terminal = terminal;
        this.line = line;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvs-progress");
            t.setDaemon(true);
            return t;
        });
        long period = terminal ? TERMINAL_PERIOD_MILLIS : plainPeriod.toMillis();
        timer.scheduleAtFixedRate(this::show, period, period, TimeUnit.MILLISECONDS);
    }

    /** Whether stderr is a terminal, as far as Java can tell. */
    public static boolean stderrIsTerminal() {
        return System.console() != null;
    }

    /** {@code [#########...........]}: {@code elapsed} of {@code seconds}, twenty characters wide. */
    public static String bar(double elapsed, double seconds) {
        int filled = seconds <= 0 ? BAR : (int) Math.round(BAR * Math.min(elapsed, seconds) / seconds);
        return "[" + "#".repeat(filled) + ".".repeat(BAR - filled) + "]";
    }

    private synchronized void show() {
        String text = line.get();
        if (terminal) {
            err.print("\r" + text + " ".repeat(Math.max(0, lastWidth - text.length())));
            lastWidth = text.length();
        } else {
            err.println(text);
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
