package dev.kvs.replication;

import dev.kvs.core.TxId;

/**
 * A point-in-time view of a backup's replication, for {@code /status}, {@code INFO replication} and
 * metrics. Counters count since the listener started.
 *
 * @param keyChannelConnected whether a primary's key channel is connected
 * @param valueChannels value channels connected
 * @param epoch the node's epoch
 * @param contiguous highest TxId such that every key packet of its epoch up to it has arrived
 * @param resyncing whether a full resync's key listing is in progress
 * @param unfinishedKeys keys whose value has not arrived
 * @param oldestUnfinishedAgeMillis age of the oldest unfinished entry (0 if none): the exposure
 * @param keyPackets key packets received (duplicates and resync listings included)
 * @param duplicateKeyPackets key packets received that were already had
 * @param resendsRequested {@code Resend}s sent after a gap in key packets
 * @param valuesApplied values written to the store
 * @param valuesSuperseded values not written because a newer TxId of the key was already stored
 * @param valuesNacked values asked for again (checksum mismatch, broken chunks)
 * @param assemblyBytes bytes reserved by values being assembled from chunks
 * @param pausedValueChannels value channels not read now because assembly memory is at its bound
 * @param keyChannelPaused whether the key channel is not read now because the unfinished-key queue is
 *     at its bound
 * @param bytesReceived bytes read from every replication connection
 * @param resyncs full resyncs completed
 * @param keysRemovedByResync records removed because a resync did not list them
 * @param refusedConnections connections closed before or at their handshake: no or a wrong proof of the
 *     cluster secret, no handshake within the authentication deadline, closed to make room, or a {@code
 *     Reject}
 * @param droppedConnections of those, connections still in their handshake closed to make room for
 *     newer ones: their pool (strangers', or the peer's) or their source address was full
 * @param connectionsInHandshake connections accepted whose handshake is not done now
 * @param asyncValuesAwaited async writes announced whose value has not landed (not fenced)
 * @param valuesNotAwaited values discarded because nothing awaited them any more: a newer write or a
 *     delete of their key had landed (counted in {@code valuesSuperseded} too)
 * @param tombstonesCollected tombstones removed once they ordered nothing (deferred, or found by a sweep)
 * @param tombstoneSweeps sweeps of the whole store for tombstones
 * @param tombstoneSweepAbove the tombstone count above which a sweep runs
 * @param deletesHeld deletes whose values came before their key packets, held until those arrive (then
 *     applied without a tombstone); at most {@code 65,536}, past which such a delete leaves a tombstone
 * @param unitsHeld units ({@code EXEC}s) whose values are held back until the whole unit has arrived
 * @param unitHeldBytes the bytes of those values; bounded by {@code BackupConfig.maxHeldUnitBytes}
 * @param unitsApplied units applied together, while no reader ran
 * @param unitsBroken units whose values were applied as they came: past the held bytes' bound
 * @param refusals values that arrived intact but that the store would not take (full, too large,
 *     failing), reported to the primary, which keeps them and retries: the last reason and the counts
 * @param lastRejection the last {@code Reject} this listener answered a {@code Hello} with, {@code REASON
 *     message} (a primary of another cluster or shard, a stale epoch...); empty if none
 */
public record BackupStatus(
        boolean keyChannelConnected,
        int valueChannels,
        long epoch,
        TxId contiguous,
        boolean resyncing,
        long unfinishedKeys,
        long oldestUnfinishedAgeMillis,
        long keyPackets,
        long duplicateKeyPackets,
        long resendsRequested,
        long valuesApplied,
        long valuesSuperseded,
        long valuesNacked,
        long assemblyBytes,
        int pausedValueChannels,
        boolean keyChannelPaused,
        long bytesReceived,
        long resyncs,
        long keysRemovedByResync,
        long refusedConnections,
        long droppedConnections,
        int connectionsInHandshake,
        long asyncValuesAwaited,
        long valuesNotAwaited,
        long tombstonesCollected,
        long tombstoneSweeps,
        long tombstoneSweepAbove,
        long deletesHeld,
        int unitsHeld,
        long unitHeldBytes,
        long unitsApplied,
        long unitsBroken,
        ValueRefusals refusals,
        String lastRejection) {}
