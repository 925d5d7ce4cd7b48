package dev.kvs.replication.primary;

import dev.kvs.core.KvStore;
import dev.kvs.replication.ReplicatorConfig;
import java.net.InetSocketAddress;

/** What the key and value channels of one primary share. */
record PrimaryLink(
        ReplicatorConfig config,
        KvStore store,
        KeyLog keyLog,
        PendingValues pending,
        String cluster,
        String node,
        InetSocketAddress peer,
        StaleEpochListener onStaleEpoch) {

    /** Called when the backup says a higher epoch exists: this primary has been deposed. */
    @FunctionalInterface
    interface StaleEpochListener {
        void staleEpoch(long newerEpoch);
    }
}
