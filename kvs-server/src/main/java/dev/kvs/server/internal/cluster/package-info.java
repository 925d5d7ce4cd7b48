/**
 * The node's view of the cluster, as its RESP port needs it to speak Redis Cluster: which shard owns
 * each hash slot, who is each shard's primary and at what client address, and which member this node
 * is ({@link dev.kvs.server.internal.cluster.ClusterLayout}), read once per command through a {@link
 * dev.kvs.server.internal.cluster.ClusterView}. {@link dev.kvs.server.internal.cluster.ClusterView#NONE}
 * (clustering off) is every node's default: no slot checks, and {@code CLUSTER} answers as a Redis with
 * cluster support disabled. Whoever learns the map (from ZooKeeper) publishes each new layout through a
 * {@link dev.kvs.server.internal.cluster.LatestClusterView}, which before the first layout answers as a cluster
 * node with no slots ({@link dev.kvs.server.internal.cluster.ClusterView#unplaced}); this package reads no map
 * itself.
 */
package dev.kvs.server.internal.cluster;
