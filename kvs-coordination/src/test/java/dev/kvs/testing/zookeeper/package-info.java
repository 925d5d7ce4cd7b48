/**
 * What tests of other modules need to run a real ZooKeeper ensemble on one machine (kvs-coordination's
 * test jar): {@link dev.kvs.testing.zookeeper.QuietPorts}, ports a {@code TestingCluster} can bind without
 * racing the kernel's ephemeral ports.
 */
package dev.kvs.testing.zookeeper;
