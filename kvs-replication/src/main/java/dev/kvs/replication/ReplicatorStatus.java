package dev.kvs.replication;

import dev.kvs.core.TxId;

/**
 * What a primary's replication is doing.
 *
 * @param state {@code none} (no peer), {@code connecting}, {@code resyncing}, {@code streaming}
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
 * @param valueStreamsUp value connections up
 * @param resyncs full resyncs started
 * @param reconnects key channel connections made
 * @param keyAckLatencyMicros last observed key-packet round trip (send to cumulative ack), micros
 * @param oldestPendingValueMillis age of the oldest value not yet acknowledged by the backup (0 if none)
 * @param flowControl the value traffic's flow control
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
        int valueStreamsUp,
        long resyncs,
        long reconnects,
        long keyAckLatencyMicros,
        long oldestPendingValueMillis,
        FlowControlStatus flowControl,
        ValueLagStatus valueLag) {
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
                FlowControlStatus.off(),
                ValueLagStatus.off());
    }

    /** True while the key channel streams. */
    public boolean streaming() {
        return state.equals("streaming");
    }

    /** Streaming, with every key and every value ordered so far acknowledged by the backup. */
    public boolean caughtUp() {
        return streaming() && unackedKeys == 0 && pendingValues == 0 && ackedTxId.equals(lastTxId);
    }
}
