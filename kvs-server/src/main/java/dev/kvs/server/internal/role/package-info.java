/**
 * A node's role and epoch, owned by one state machine ({@link dev.kvs.server.internal.role.RoleMachine}):
 * primary, backup or deposed ({@link dev.kvs.server.internal.role.NodeRole}), the transitions between
 * them (a planned switchover's steps in {@code Switchover}, recording its successor through a {@link
 * dev.kvs.server.internal.role.Successor}), the epoch file, the read gate that fences unfinished and lost
 * keys after promotion, and the lease a primary serves under ({@link
 * dev.kvs.server.internal.role.ServingLease}: always, unless the node is coordinated on ZooKeeper), and
 * what keeps client commands out while a backup applies an {@code EXEC}'s writes together ({@link
 * dev.kvs.server.internal.role.ReadersOut}, the client port's barrier).
 */
package dev.kvs.server.internal.role;
