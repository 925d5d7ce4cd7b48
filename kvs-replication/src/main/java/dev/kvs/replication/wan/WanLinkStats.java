package dev.kvs.replication.wan;

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
     */
    public record Direction(long relayedBytes, long queuedBytes, long peakQueuedBytes, int stalledSenders) {}
}
