package dev.kvs.replication.primary;

import dev.kvs.core.KvStore;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.auth.LinkSecurity;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.function.Supplier;

/** What the key and value channels of one primary share ({@code stages}: what they mark for a benchmark). */
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
        LinkSecurity security,
        Supplier<String> clientAddress,
        WriteStages stages,
        String shard) {

    /**
     * The client address to advertise in the key channel's {@code Hello}: what {@link #clientAddress}
     * supplies, with a wildcard host ({@code 0.0.0.0}, {@code ::}, or none) replaced by {@code local},
     * the address this connection leaves from (the backup reached it, so its clients likely can);
     * empty if there is nothing to advertise, null if it is not known yet (the client port is not
     * bound yet).
     */
    String advertisedClientAddress(SocketAddress local) {
        String address = clientAddress.get();
        if (address == null || address.isEmpty()) return address;
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? "" : address.substring(0, colon);
        String port = address.substring(colon + 1);
        if (!(host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]"))) {
            return address;
        }
        if (local instanceof InetSocketAddress l
                && l.getAddress() != null
                && !l.getAddress().isAnyLocalAddress()) {
            String h = l.getAddress().getHostAddress();
            return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
        }
        return "";
    }

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
