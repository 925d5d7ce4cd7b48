package dev.kvs.replication.primary;

import dev.kvs.core.KvStore;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.auth.LinkSecurity;
import java.net.InetSocketAddress;

/** What the key and value channels of one primary share. */
record PrimaryLink(
        ReplicatorConfig config,
        KvStore store,
        KeyLog keyLog,
        PendingValues pending,
        FlowController flow,
        String cluster,
        String node,
        InetSocketAddress peer,
        StaleEpochListener onStaleEpoch,
        Runnable onConfirmed,
        LinkSecurity security) {

    /**
     * The backup's address for logs: {@code host:port} as configured. ({@code InetSocketAddress}
     * prints an unresolved address as {@code 127.0.0.1/<unresolved>:47391}.)
     */
    String peerName() {
        return peerName(peer);
    }

    static String peerName(InetSocketAddress a) {
        String host = a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /**
     * Called when the backup refuses this primary: it has seen a newer epoch ({@code STALE_EPOCH}), or it
     * is a primary itself ({@code NOT_BACKUP}, reported with the peer's epoch). Either way this node must
     * stop accepting writes.
     */
    @FunctionalInterface
    interface StaleEpochListener {
        void staleEpoch(long newerEpoch);
    }
}
