package dev.kvs.replication;

import java.util.function.Supplier;

/**
 * What the replication listener needs to know about the node it runs in: identity, role and epoch.
 * The node owns these; the listener only reads them and, when a primary of a newer epoch dials in,
 * asks the node to adopt that epoch.
 *
 * <p>Implementations must be thread-safe: every method is called from network event loops, and must
 * return quickly (no I/O beyond what {@link #adoptEpoch} needs to persist the epoch).
 */
public interface BackupNode {
    /** The cluster name; a primary of another cluster is rejected. */
    String cluster();

    /**
     * The shard of the cluster map this node is a member of, empty without coordination: a primary of
     * another shard is rejected (neither side empty).
     */
    default String shard() {
        return "";
    }

    /** This node's name, sent in {@code Welcome}. */
    String name();

    /** True while this node is a backup; a primary is refused with {@code NOT_BACKUP}. */
    boolean isBackup();

    /** The highest epoch this node has seen; a primary of an older epoch is refused as stale. */
    long epoch();

    /**
     * Records that a primary of {@code epoch} (greater than {@link #epoch()}) is connected: from now on
     * {@link #epoch()} returns at least {@code epoch}.
     */
    void adoptEpoch(long epoch);

    /**
     * What this node offers a deposed primary that dials in to hand back values (failback), or null if
     * it is not a promoted primary. Default: null.
     */
    default Handback handback() {
        return null;
    }

    /**
     * The primary handed over (planned switchover, every key and value acknowledged): become the
     * primary in {@code epoch}. Called on an event loop; must not block. Default: ignored.
     */
    default void handover(long epoch) {}

    /**
     * Runs {@code fn} while no reader of this node's store runs (and none starts), and returns its
     * result: the backup applies the writes of one {@code EXEC} inside it, so a reader (a {@code
     * READONLY} client) sees all of them or none. Called on a replication thread; {@code fn} is short
     * (a few store writes). Default: just runs it.
     */
    default <T> T alone(Supplier<T> fn) {
        return fn.get();
    }
}
