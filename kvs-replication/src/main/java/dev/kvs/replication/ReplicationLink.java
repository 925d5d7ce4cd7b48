package dev.kvs.replication;

import java.time.Duration;

/** A primary's {@link Replication} to a backup: it orders and replicates writes, and can hand over. */
public interface ReplicationLink extends Replication {
    /**
     * Tells the backup to take over in {@code epoch} (planned switchover) and waits, within {@code
     * timeout}, until it has.
     *
     * @return true if the backup was told (it may take over even if it did not confirm in time)
     */
    boolean handOver(long epoch, Duration timeout) throws InterruptedException;
}
