package dev.kvs.server.internal.role;

/**
 * Names the backup the primary of the next epoch where the shard's primary is recorded (the cluster map
 * in ZooKeeper, for a coordinated node), during a switchover: after the backup has caught up and before
 * the primary steps down, so that a switchover whose record fails leaves the old primary in place.
 */
@FunctionalInterface
public interface Successor {
    /**
     * Records that the backup is the primary of {@code epoch}, or fails and records nothing.
     *
     * @throws RoleChangeException saying why it was not recorded (the record is unchanged)
     */
    void name(long epoch);
}
