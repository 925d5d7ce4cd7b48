/**
 * The primary side of identifier-first replication: the {@link
 * dev.kvs.replication.primary.Replicator} orders writes, streams their key packets on the key
 * channel and ships their values on the value channels under delay-based {@link
 * dev.kvs.replication.primary.FlowController flow control}. A hash or set ships as its image, or as the
 * effects of its writes when they link from what the backup was last sent ({@link
 * dev.kvs.replication.primary.PendingEffects}).
 */
package dev.kvs.replication.primary;
