/**
 * What the nodes and the Java SDK of a sharded kvs must agree on, with no dependencies: {@link
 * dev.kvs.cluster.HashSlots}, the slot of a key exactly as Redis Cluster computes it, so that any
 * cluster-aware Redis client routes to kvs as it routes to Redis; and {@link dev.kvs.cluster.ClusterMap},
 * which shard owns each slot and which member is its primary at which epoch (kept in ZooKeeper by
 * kvs-coordination), naming members by {@link dev.kvs.cluster.NodeIds node id}, which a node and whoever
 * writes the map both derive from the node's name.
 */
package dev.kvs.cluster;
