/**
 * Identifier-first replication's API for a node: {@link dev.kvs.replication.Replication}, which
 * orders writes and replicates them ({@link dev.kvs.replication.LocalReplication} without a peer),
 * the {@link dev.kvs.replication.ReplicationMode modes}, roles, settings, status records and the
 * exceptions a write can fail with; the backup's listener ({@link dev.kvs.replication.ReplicationServer},
 * its {@link dev.kvs.replication.UnfinishedKeys}, {@link dev.kvs.replication.BackupNode}), the
 * failback's records ({@link dev.kvs.replication.Handback}), TLS files and contexts and the socket
 * {@link dev.kvs.replication.Transports}.
 *
 * <p>This is the package a node uses; the implementation packages ({@code primary}, {@code backup},
 * {@code failback}, {@code auth}, {@code wire}) sit below it, and only {@link
 * dev.kvs.replication.ReplicationEnds} and {@link dev.kvs.replication.ReplicationServer.Builder} reach
 * down into those that use it, to build what they implement. kvs-cli's {@code ModuleBoundariesTest} and
 * {@code PackageCyclesTest} check that.
 */
package dev.kvs.replication;
