/**
 * The replication listener: the backup side of identifier-first replication, and the new primary's
 * end of a failback.
 *
 * <p>{@link dev.kvs.replication.backup.RealReplicationServer}, the API's {@link
 * dev.kvs.replication.ReplicationServer}, listens on the replication port. On a backup
 * it takes the primary's key and value channels; on a promoted primary it keeps listening for the
 * deposed primary's handback channel ({@code HandbackHandler}). On the key
 * channel, key packets arrive in TxId order; the backup tracks the highest contiguous TxId, asks for
 * a resend when it sees a gap, puts each announced key in the {@link
 * dev.kvs.replication.UnfinishedKeys unfinished-key queue} (unless the store already holds a
 * record at least as new) and answers one cumulative ack per read batch. On the value channels,
 * values arrive as chunks; each whole value is checked against its CRC32C (a mismatch is nacked,
 * never applied), written to the store unless a newer TxId of its key is already there, and takes its
 * key out of the queue up to the TxId stored. A full resync lists every key of the primary and
 * removes the keys it did not list. A hash's or set's write may come as its effect instead (wire
 * version 10): {@code BackupApplier} applies it only on the structure complete at exactly the effect's
 * base TxId ({@code EffectImages} rebuilds the image), and otherwise writes nothing and wants the whole
 * value, which the value channel asks for with a nack (the primary then ships the key's current value).
 * The key packets of an {@code EXEC} name their unit (wire version 11): {@code HeldUnits} holds the
 * unit's values until the whole unit can apply, then {@code BackupApplier} applies it while no reader
 * runs ({@link dev.kvs.replication.BackupNode#alone}), so a reader never sees half an {@code EXEC}.
 *
 * <p>Memory is bounded without dropping anything: a full queue stops reading the key channel, and
 * assembly memory over its bound stops reading value channels, until values drain them.
 */
package dev.kvs.replication.backup;
