/**
 * The in-process fixtures that start real nodes on loopback with ephemeral ports: {@link
 * dev.kvs.testing.cluster.TwoDc}, a primary and a backup node with an emulated WAN link between them,
 * and {@link dev.kvs.testing.cluster.ShardedNodes}, one primary per shard answering as members of one
 * cluster map. They live in kvs-server's test jar (the {@code dev/kvs/testing/**} classes) so the tests of
 * every module that starts real nodes (kvs-server, kvs-client, the examples, kvs-bench) set them up the
 * same way.
 */
package dev.kvs.testing.cluster;
