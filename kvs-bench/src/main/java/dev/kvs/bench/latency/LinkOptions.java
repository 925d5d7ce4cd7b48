package dev.kvs.bench.latency;

import dev.kvs.bench.cli.DelayOption;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.wan.WanLink;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --delay-ms}, {@code --bandwidth-mbit}, {@code --buffer} and {@code --queueing}: the emulated
 * WAN link of a {@code kvs bench} command, as a picocli mixin with the command's defaults.
 */
final class LinkOptions {
    @Mixin
    private final DelayOption delay;

    @Mixin
    private final Bandwidth bandwidth;

    @Option(
            names = "--buffer",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "The link's queue per direction, like 4MiB (default: 4MiB)")
    private long buffer = WanLink.DEFAULT_BUFFER_BYTES;

    @Option(
            names = "--queueing",
            paramLabel = "fifo|fair",
            converter = BenchOptions.QueueingConverter.class,
            description = "fifo: arrival order, like netem or a drop-tail router; fair: connections take turns"
                    + " (default: fifo)")
    private WanLink.Queueing queueing = WanLink.Queueing.FIFO;

    private LinkOptions(double delayMs, Bandwidth bandwidth) {
        this.delay = new DelayOption(delayMs);
        this.bandwidth = bandwidth;
    }

    /** The options of a link that must have a rate: {@code --bandwidth-mbit} offers no 0 (unlimited). */
    static LinkOptions withRate(double delayMs, double bandwidthMbit) {
        return new LinkOptions(delayMs, new Rate(bandwidthMbit));
    }

    /** The options of a link with a rate, or unlimited with {@code --bandwidth-mbit 0}. */
    static LinkOptions withRateOrUnlimited(double delayMs, double bandwidthMbit) {
        return new LinkOptions(delayMs, new RateOrUnlimited(bandwidthMbit));
    }

    /**
     * The link the options describe.
     *
     * @throws IllegalArgumentException quoting the option and the value if one is out of range
     */
    LinkSettings settings() {
        Duration d = delay.delay();
        double mbit = bandwidth.mbit();
        if (!(mbit >= 0 && mbit <= 1_000_000)) {
            throw new IllegalArgumentException("--bandwidth-mbit is not in 0..1000000: " + mbit);
        }
        if (buffer < 16 * 1024 || buffer > 1L << 30) {
            throw new IllegalArgumentException("--buffer is not in 16KiB..1GiB: " + buffer);
        }
        return new LinkSettings(d, Math.round(mbit * 1e6), (int) buffer, queueing);
    }

    /**
     * {@code --bandwidth-mbit}, a mixin of its own: picocli fixes an option's description per class,
     * and the two forms describe different ranges.
     */
    private abstract static class Bandwidth {
        abstract double mbit();
    }

    private static final class Rate extends Bandwidth {
        @Option(
                names = "--bandwidth-mbit",
                paramLabel = "MBIT",
                description = "WAN bandwidth each way in Mbit/s, fractions allowed (default: ${DEFAULT-VALUE})")
        private double mbit;

        Rate(double mbit) {
            this.mbit = mbit;
        }

        @Override
        double mbit() {
            return mbit;
        }
    }

    private static final class RateOrUnlimited extends Bandwidth {
        @Option(
                names = "--bandwidth-mbit",
                paramLabel = "MBIT",
                description = "WAN bandwidth each way in Mbit/s, fractions allowed, 0 for unlimited"
                        + " (default: ${DEFAULT-VALUE})")
        private double mbit;

        RateOrUnlimited(double mbit) {
            this.mbit = mbit;
        }

        @Override
        double mbit() {
            return mbit;
        }
    }
}
