/**
 * A node's membership in a cluster coordinated on ZooKeeper ({@link
 * dev.kvs.server.internal.coordination.NodeCoordination}), opt-in with the {@code coordination:} settings:
 * it publishes the node's status in its ephemeral member znode, holds the lease a primary serves under,
 * follows the cluster map and the members' znodes ({@code MapFollower}, {@code MemberWatch}: the RESP
 * port's live {@code CLUSTER} view, promotion of a backup the map names primary with the map's epoch,
 * deposing of a primary the map replaced), names the backup in the map before a switchover steps the
 * primary down ({@code MapSwitchover}), and runs a {@link dev.kvs.coordination.Coordinator}. ZooKeeper
 * stays off the command path: commands read the lease's volatile deadline through {@link
 * dev.kvs.server.internal.role.ServingLease} and the layout through a volatile read of the view.
 */
package dev.kvs.server.internal.coordination;
