package dev.kvs.wan;

/**
 * A snapshot of a {@link WanLink}'s state and traffic, from {@link WanLink#stats()}. Immutable.
 *
 * @param state whether the link is up, paused or cut
 * @param openConnections connections currently relayed (accepted and not yet fully closed)
 * @param acceptedConnections connections relayed since the link started
 * @param refusedConnections connections closed at once because the link was cut
 * @param toTarget traffic from clients to the target
 * @param toClient traffic from the target back to clients
 */
public record WanLinkStats(
        WanLink.State state,
        int openConnections,
        long acceptedConnections,
        long refusedConnections,
        Direction toTarget,
        Direction toClient) {

    /**
     * One direction's traffic.
     *
     * @param relayedBytes bytes delivered to the receivers' sockets since the link started
     * @param queuedBytes bytes read from senders and not yet delivered (waiting for the wire,
     *     propagating, or being written)
     * @param peakQueuedBytes the most {@code queuedBytes} has been since the link started
     * @param stalledSenders connections the link has stopped reading from because its buffer is full
     * @param lateness how much later than the model's time the chunks were delivered
     */
    public record Direction(
            long relayedBytes, long queuedBytes, long peakQueuedBytes, int stalledSenders, Lateness lateness) {}

    /**
     * How late a direction delivered its chunks since the link started: for each chunk, the time the
     * link wrote it to the receiver's socket minus the time the model delivers it (see the {@linkplain
     * dev.kvs.wan package documentation}). Never negative, as nothing is delivered early.
     * Chunks held by a {@linkplain WanLink#pause() pause} past their time are not counted. Percentiles
     * come from a histogram that is exact below 32 µs and rounds up by at most 1/16 above.
     *
     * @param chunks chunks counted
     * @param p50Micros the median lateness in microseconds (0 if no chunk was counted)
     * @param p99Micros the 99th percentile in microseconds
     * @param maxMicros the largest lateness in microseconds
     */
    public record Lateness(long chunks, long p50Micros, long p99Micros, long maxMicros) {
        /** No chunk counted. */
        public static final Lateness NONE = new Lateness(0, 0, 0, 0);
    }
}
