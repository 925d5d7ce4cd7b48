/**
 * {@code kvs drill} and {@code kvs demo}, the failover drill: two DCs as child processes, load at
 * full speed through the Java SDK, a disaster (the primary killed or the link cut), promotion of
 * the backup, and every acknowledged write classified as complete, error-detect or data loss; also
 * {@code drill load} and {@code drill verify} against nodes started elsewhere. With {@code --shards},
 * the same on a whole sharded cluster, where a disaster can also cut a whole DC off ZooKeeper and the
 * other DC, and the nodes fail over by themselves.
 */
package dev.kvs.bench.drill;
