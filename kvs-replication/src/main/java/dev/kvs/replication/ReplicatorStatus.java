package dev.kvs.replication;

import dev.kvs.core.TxId;

/**
 * What a primary's replication is doing.
 *
 * @param state {@code none} (no peer), {@code connecting}, {@code resyncing}, {@code streaming}, {@code
 *     degraded} (streaming, but the backup's store refuses values: see {@code refusingValues}), {@code
 *     diverged}
 * @param peer the backup's address, or empty
 * @param lastTxId last TxId ordered
 * @param ackedTxId highest TxId whose key packet (and every earlier one) the backup acknowledged
 * @param unackedKeys key packets not yet acknowledged
 * @param pendingValues values ordered but not yet acknowledged by the backup (the value lag)
 * @param pendingValueBytes their bytes
 * @param conflatedValues values never sent because a newer write of the same key replaced them
 * @param valuesShipped values sent
 * @param valueBytesShipped value bytes sent
 * @param abandonedValues large values whose shipping stopped mid-way because their key was rewritten
 *     meanwhile (the newer value ships instead; the backup drops its partial copy)
 * @param cutThroughValues large values that started for the backup while their client still sent them,
 *     then were bound to their write at its commit (cut-through)
 * @param shipperFailures failures while shipping values (a read of the primary's store that threw, a frame that
 *     could not be built or sent); each value involved was put back and ships again after a back-off
 * @param valueStreamsUp value connections up
 * @param resyncs full resyncs started
 * @param reconnects key channel connections made
 * @param keyAckLatencyMicros last observed key-packet round trip (send to cumulative ack), micros
 * @param oldestPendingValueMillis age of the oldest value not yet acknowledged by the backup (0 if none)
 * @param flowControl the value traffic's flow control
 * @param refusingValues values the backup's store refused (full, too large, failing) that have not
 *     landed since: kept on the primary and retried; while not 0 the link is {@code degraded} and
 *     id-first and sync writes answer {@code -NOREPLICA}
 * @param refusals why the backup last refused a value, and how many it refused, by reason
 * @param resync what full resyncs listed and shipped (only the values the backup lacked)
 * @param valueLag the bound on the lag in time, the projected lag and the writes it held
 */
public record ReplicatorStatus(
        String state,
        String peer,
        TxId lastTxId,
        TxId ackedTxId,
        long unackedKeys,
        long pendingValues,
        long pendingValueBytes,
        long conflatedValues,
        long valuesShipped,
        long valueBytesShipped,
        long abandonedValues,
        long cutThroughValues,
        long shipperFailures,
        int valueStreamsUp,
        long resyncs,
        long reconnects,
        long keyAckLatencyMicros,
        long oldestPendingValueMillis,
        FlowControlStatus flowControl,
        long refusingValues,
        ValueRefusals refusals,
        ResyncStatus resync,
        ValueLagStatus valueLag) {
    /** The {@link #state} of a streaming link whose backup's store refuses values. */
    public static final String DEGRADED = "degraded";

    /** The status of a node that orders writes without replicating them, up to {@code last}. */
    public static ReplicatorStatus none(TxId last) {
        return new ReplicatorStatus(
                "none",
                "",
                last,
                last,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                FlowControlStatus.off(),
                0,
                ValueRefusals.none(),
                ResyncStatus.none(),
                ValueLagStatus.off());
    }

    /** True while the key channel streams ({@code degraded} included). */
    public boolean streaming() {
        return state.equals("streaming") || degraded();
    }

    /** True while the key channel streams but the backup's store refuses values. */
    public boolean degraded() {
        return state.equals(DEGRADED);
    }

    /** Streaming, with every key and every value ordered so far acknowledged by the backup. */
    public boolean caughtUp() {
        return streaming() && unackedKeys == 0 && pendingValues == 0 && ackedTxId.equals(lastTxId);
    }
}
