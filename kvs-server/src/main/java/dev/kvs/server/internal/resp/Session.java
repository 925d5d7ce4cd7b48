package dev.kvs.server.internal.resp;

import dev.kvs.replication.ReplicationMode;

/** Per-connection state. Confined to the connection's event loop. */
final class Session {
    final long id;
    final String remoteAddress;
    final long createdAtMillis = System.currentTimeMillis();
    boolean authenticated;
    String name;
    /** Per-connection override of the node's replication mode (KVS.MODE), or null. */
    ReplicationMode mode;
    /** Set by QUIT: close the connection once the reply is written. */
    boolean closeAfterReply;

    Session(long id, String remoteAddress, boolean authenticated) {
        this.id = id;
        this.remoteAddress = remoteAddress;
        this.authenticated = authenticated;
    }
}
