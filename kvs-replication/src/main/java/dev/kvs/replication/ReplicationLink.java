package dev.kvs.replication;

import dev.kvs.core.ValueStage;
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

    /**
     * Ships a {@code SET}'s value of {@code key} to the backup while the client still sends it
     * (cut-through): as the client's event loop writes the value into {@code stage}, the bytes it makes
     * {@linkplain ValueStage#readable() readable} leave under a provisional stage id, and the write's
     * commit gives them its TxId, so a large value's transfer over the WAN overlaps its upload. If the
     * stage is closed without a commit, the backup is told to drop what it received. Call it on the
     * stage's writer thread, right after opening the stage and before writing to it.
     *
     * <p>Does nothing if {@link ReplicatorConfig#cutThrough()} is off, the stage cannot be read while
     * it is written, the value is too short to gain from it, or too many values are being staged now:
     * the value then ships after its commit, as any other.
     */
    default void shipWhileStaged(byte[] key, ValueStage stage) {}
}
