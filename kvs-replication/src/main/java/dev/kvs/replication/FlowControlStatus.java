package dev.kvs.replication;

/**
 * What the flow control of a primary's value traffic is doing (see {@link FlowControlConfig}).
 *
 * @param enabled whether flow control is on
 * @param phase {@code off}, {@code idle} (no value waits), {@code slow-start}, {@code steady}, or
 *     {@code slowdown} (the window is held small for a moment to re-measure the base delay)
 * @param windowBytes value bytes allowed in flight (sent, receipt not yet back)
 * @param inFlightBytes value bytes in flight now
 * @param pacingRateBytesPerSecond the rate value frames are paced at
 * @param baseDelayMicros the base one-way delay (minimum over the history; includes the clock
 *     offset between the nodes, so only differences to it mean anything)
 * @param queueingDelayMicros the current one-way delay minus the base: the queue the value traffic
 *     sees at the bottleneck
 * @param externalDelayMicros the part of the queueing delay that is there without this primary's
 *     values: the lowest queueing delay of recent lone frames (sent with no value bytes in flight
 *     ahead of them), e.g. a backup whose event loop reads late or another flow's standing queue; up
 *     to 50 ms of it is not counted against the target
 * @param targetMicros the queueing delay aimed at
 * @param goodputBytesPerSecond value bytes the backup received per second, recently
 * @param minRateAlarm true while the window is held at the minimum rate by the measured delay: a
 *     competing flow fills the bottleneck and values move only at the minimum rate
 * @param slowdowns periodic slowdowns done (base delay refreshes)
 */
public record FlowControlStatus(
        boolean enabled,
        String phase,
        long windowBytes,
        long inFlightBytes,
        long pacingRateBytesPerSecond,
        long baseDelayMicros,
        long queueingDelayMicros,
        long externalDelayMicros,
        long targetMicros,
        long goodputBytesPerSecond,
        boolean minRateAlarm,
        long slowdowns) {

    /** The status of a replication without flow control, or without a peer. */
    public static FlowControlStatus off() {
        return new FlowControlStatus(false, "off", 0, 0, 0, 0, 0, 0, 0, 0, false, 0);
    }
}
