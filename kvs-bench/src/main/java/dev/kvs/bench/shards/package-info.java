/**
 * Sharded kvs clusters coordinated on ZooKeeper: {@code kvs cluster init} and {@code show}, which create
 * and print a cluster's map on any ensemble ({@link dev.kvs.bench.shards.MapPlan}: the shards by node
 * name, the map by node id); and {@code kvs cluster}, a whole cluster on one machine ({@link
 * dev.kvs.bench.shards.LocalCluster}: an embedded ZooKeeper behind one WAN link per DC, and two node
 * processes per shard, started with {@code dev.kvs.bench.cluster}'s child processes). It lives in kvs-bench beside {@code kvs demo},
 * whose child-process machinery it reuses.
 */
package dev.kvs.bench.shards;
