/**
 * The in-process two-DC fixture, {@link dev.kvs.testing.cluster.TwoDc}: a primary and a backup node with
 * an emulated WAN link between them, on loopback with ephemeral ports. It lives in kvs-server's test jar
 * (the {@code dev/kvs/testing/**} classes) so the tests of every module that starts real nodes (kvs-server,
 * kvs-client, the examples, kvs-bench) set the two DCs up the same way.
 */
package dev.kvs.testing.cluster;
