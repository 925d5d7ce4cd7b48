package dev.kvs.bench.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code --delay-ms}, the emulated WAN's one-way delay, as a picocli mixin: the option every command
 * that starts two DCs takes, with the command's own default.
 */
public final class DelayOption {
    @Option(
            names = "--delay-ms",
            paramLabel = "MS",
            description = "One-way WAN delay in ms, fractions allowed (default: ${DEFAULT-VALUE})")
    private double delayMs;

    /** The option with {@code defaultMs} as its default. */
    public DelayOption(double defaultMs) {
        this.delayMs = defaultMs;
    }

    /**
     * The delay given, checked.
     *
     * @throws IllegalArgumentException quoting the option and the value if it is not in 0..60000 ms
     */
    public Duration delay() {
        if (!(delayMs >= 0 && delayMs <= 60_000)) {
            throw new IllegalArgumentException("--delay-ms is not in 0..60000: " + delayMs);
        }
        return Duration.ofNanos(Math.round(delayMs * 1e6));
    }
}
