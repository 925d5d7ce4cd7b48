/**
 * Identifier-first replication's API for a node: {@link dev.kvs.replication.Replication}, which
 * orders writes and replicates them ({@link dev.kvs.replication.LocalReplication} without a peer),
 * the {@link dev.kvs.replication.ReplicationMode modes}, roles, settings, status records and the
 * exceptions a write can fail with.
 */
package dev.kvs.replication;
