/**
 * A real three-server ZooKeeper ensemble for tests ({@link dev.kvs.testing.zookeeper.Ensemble}, Curator's
 * {@code TestingCluster}), on ports below the kernel's ephemeral range ({@link
 * dev.kvs.testing.zookeeper.QuietPorts}), where ZooKeeper cannot lose one to a client's outgoing
 * connection and exit the JVM. They live in kvs-coordination's test jar (the {@code dev/kvs/testing/**}
 * classes) so that kvs-server's acceptance tests run coordinated nodes on the same ensemble.
 */
package dev.kvs.testing.zookeeper;
