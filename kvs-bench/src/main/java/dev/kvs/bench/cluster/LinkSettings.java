package dev.kvs.bench.cluster;

import dev.kvs.wan.WanLink;
import java.time.Duration;

/**
 * The emulated WAN link between two DCs: the same settings for the link the replication crosses and,
 * in a benchmark, for the one a round-trip probe crosses. Validated when built.
 *
 * @param delay one-way delay of each direction
 * @param bitsPerSecond bandwidth of each direction, 0 for unlimited
 * @param bufferBytes bytes the link queues per direction before it stops reading (the router's buffer)
 * @param queueing which waiting chunk goes on the wire next
 */
public record LinkSettings(Duration delay, long bitsPerSecond, int bufferBytes, WanLink.Queueing queueing) {
    /**
     * @throws IllegalArgumentException quoting the value if the delay is not in [0, 1 minute], the
     *     bandwidth is negative, the buffer below 16 KiB or the queueing missing
     */
    public LinkSettings {
        if (delay == null || delay.isNegative() || delay.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("delay not in [0, 1m]: " + delay);
        }
        if (bitsPerSecond < 0) throw new IllegalArgumentException("bitsPerSecond < 0: " + bitsPerSecond);
        if (bufferBytes < 16 * 1024) throw new IllegalArgumentException("bufferBytes < 16KiB: " + bufferBytes);
        if (queueing == null) throw new IllegalArgumentException("queueing is missing");
    }

    /** The link's rate in bytes per second, 0 for unlimited. */
    public double bytesPerSecond() {
        return bitsPerSecond / 8.0;
    }

    /** The one-way delay in milliseconds. */
    public double delayMs() {
        return delay.toNanos() / 1e6;
    }

    /** The bandwidth in Mbit/s, 0 for unlimited. */
    public double bandwidthMbit() {
        return bitsPerSecond / 1e6;
    }

    /** A link with these settings relaying to {@code host:port}, started. */
    public WanLink start(String host, int port) {
        return WanLink.builder()
                .target(host, port)
                .delay(delay)
                .bandwidthBitsPerSecond(bitsPerSecond)
                .bufferBytes(bufferBytes)
                .queueing(queueing)
                .build();
    }
}
