/**
 * The primary side of identifier-first replication: the {@link
 * dev.kvs.replication.primary.Replicator} orders writes, streams their key packets on the key
 * channel and ships their values on the value channels under delay-based {@link
 * dev.kvs.replication.primary.FlowController flow control}, and the {@link
 * dev.kvs.replication.primary.HandbackClient} hands a deposed primary's values back on failback.
 */
package dev.kvs.replication.primary;
