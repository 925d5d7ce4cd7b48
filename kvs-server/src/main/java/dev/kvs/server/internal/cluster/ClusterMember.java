package dev.kvs.server.internal.cluster;

import java.util.regex.Pattern;

/**
 * One member of the cluster as clients see it: its node id and the client address it advertises.
 *
 * @param id the node's id, 40 lower-case hex characters as Redis's, stable across restarts
 * @param host the host clients connect to (the {@code ip} and {@code endpoint} of {@code CLUSTER
 *     SHARDS})
 * @param port its RESP client port
 * @param connected false if the node is known to be down (its member node is gone): {@code CLUSTER
 *     NODES} shows it {@code fail} and {@code disconnected}, {@code CLUSTER SLOTS} leaves a backup out
 * @param replicationOffset how far it has applied its shard's stream (its TxId's sequence), as {@code
 *     CLUSTER SHARDS}'s {@code replication-offset}; 0 if unknown
 */
public record ClusterMember(String id, String host, int port, boolean connected, long replicationOffset) {
    private static final Pattern NODE_ID = Pattern.compile("[0-9a-f]{40}");

    public ClusterMember {
        if (id == null || !NODE_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("node id is not 40 lower-case hex characters: " + id);
        }
        if (host == null || host.isBlank()) throw new IllegalArgumentException("host is empty: " + host);
        if (port < 1 || port > 65_535) throw new IllegalArgumentException("port out of 1..65535: " + port);
        if (replicationOffset < 0) throw new IllegalArgumentException("replicationOffset < 0: " + replicationOffset);
    }

    /** A member that is up, its offset unknown. */
    public ClusterMember(String id, String host, int port) {
        this(id, host, port, true, 0);
    }

    /** {@code host:port}, as {@code -MOVED} names it. */
    public String address() {
        return host + ":" + port;
    }
}
