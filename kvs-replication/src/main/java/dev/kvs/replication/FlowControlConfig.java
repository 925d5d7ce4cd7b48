package dev.kvs.replication;

import java.time.Duration;

/**
 * Settings of the delay-based flow control of a primary's value traffic (LEDBAT-style, RFC 6817):
 * one window of value bytes in flight per backup, shared by every value stream, steered by the
 * measured queueing delay so that value bytes never build a queue in front of the key packets.
 *
 * @param enabled whether values are flow controlled; off, the value streams send as fast as the
 *     sockets take bytes (capped only by {@code valueRateBytesPerSecond}), which fills a FIFO
 *     bottleneck and makes key packets wait behind value bytes
 * @param target the queueing delay the value traffic aims to add at the bottleneck; the effective
 *     target is also capped at a fraction of the link's base round trip (see {@code docs/design.md})
 * @param minRateBytesPerSecond value bytes per second sent whatever the delay says, so that values
 *     never starve behind a competing bulk flow that does not yield; while the controller is held
 *     at this rate an alarm is raised ({@link FlowControlStatus#minRateAlarm()})
 * @param baseHistory how long the base (uncongested) delay is remembered: the minimum over this
 *     sliding history, in one-minute buckets (RFC 6817's BASE_HISTORY); a longer route takes this
 *     long to become the new base
 * @param notSentLowWatermarkBytes the most unsent bytes the kernel holds per value socket
 *     ({@code TCP_NOTSENT_LOWAT}, epoll transport), so a window change acts within a round trip
 * @param dscp mark the key channel EF and the value channels CS1 (IP DSCP); nothing depends on it
 */
public record FlowControlConfig(
        boolean enabled,
        Duration target,
        long minRateBytesPerSecond,
        Duration baseHistory,
        int notSentLowWatermarkBytes,
        boolean dscp) {

    public FlowControlConfig {
        if (target == null) throw new IllegalArgumentException("target is missing");
        if (target.compareTo(Duration.ofNanos(100_000)) < 0 || target.compareTo(Duration.ofSeconds(10)) > 0)
            throw new IllegalArgumentException("target not in [100us, 10s]: " + target);
        if (minRateBytesPerSecond <= 0)
            throw new IllegalArgumentException("minRateBytesPerSecond <= 0: " + minRateBytesPerSecond);
        if (baseHistory == null) throw new IllegalArgumentException("baseHistory is missing");
        if (baseHistory.compareTo(Duration.ofMinutes(1)) < 0 || baseHistory.compareTo(Duration.ofHours(1)) > 0)
            throw new IllegalArgumentException("baseHistory not in [1m, 1h]: " + baseHistory);
        if (notSentLowWatermarkBytes < 1024)
            throw new IllegalArgumentException("notSentLowWatermarkBytes < 1024: " + notSentLowWatermarkBytes);
    }

    /** This configuration switched on or off, every other setting kept. */
    public FlowControlConfig withEnabled(boolean on) {
        return new FlowControlConfig(on, target, minRateBytesPerSecond, baseHistory, notSentLowWatermarkBytes, dscp);
    }

    /** The defaults: on, 10 ms target, 64 KiB/s minimum rate, 4 minutes of base history, 32 KiB unsent. */
    public static FlowControlConfig defaults() {
        return builder().build();
    }

    /** Flow control switched off (every other setting at its default). */
    public static FlowControlConfig off() {
        return builder().enabled(false).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link FlowControlConfig}; {@link #build()} validates. */
    public static final class Builder {
        private boolean enabled = true;
        private Duration target = Duration.ofMillis(10);
        private long minRateBytesPerSecond = 64 * 1024;
        private Duration baseHistory = Duration.ofMinutes(4);
        private int notSentLowWatermarkBytes = 32 * 1024;
        private boolean dscp;

        Builder() {}

        public Builder enabled(boolean v) {
            enabled = v;
            return this;
        }

        public Builder target(Duration v) {
            target = v;
            return this;
        }

        public Builder minRateBytesPerSecond(long v) {
            minRateBytesPerSecond = v;
            return this;
        }

        public Builder baseHistory(Duration v) {
            baseHistory = v;
            return this;
        }

        public Builder notSentLowWatermarkBytes(int v) {
            notSentLowWatermarkBytes = v;
            return this;
        }

        public Builder dscp(boolean v) {
            dscp = v;
            return this;
        }

        public FlowControlConfig build() {
            return new FlowControlConfig(
                    enabled, target, minRateBytesPerSecond, baseHistory, notSentLowWatermarkBytes, dscp);
        }
    }
}
