/**
 * A node's membership in a cluster coordinated on ZooKeeper ({@link
 * dev.kvs.server.internal.coordination.NodeCoordination}), opt-in with the {@code coordination:} settings:
 * it publishes the node's status in its ephemeral member znode, holds the lease a primary serves under, and
 * deposes a primary that the cluster map has replaced. ZooKeeper stays off the command path: commands
 * read the lease's volatile deadline through {@link dev.kvs.server.internal.role.ServingLease}.
 */
package dev.kvs.server.internal.coordination;
