package dev.kvs.server.internal.role;

import dev.kvs.replication.Handback;

/** What the failover policy is told of, and asked, by the {@link RoleMachine}. */
public interface RoleEvents {
    /**
     * This primary was demoted. Called on the thread that demoted it, outside the machine's lock; the
     * policy hands back values and then calls {@link RoleMachine#serveAsBackup()}.
     */
    void demoted(NodeRole.Deposed now);

    /**
     * The primary asked this backup to take over (planned switchover). Called on an event loop: must
     * not block.
     */
    void handoverRequested(long epoch);

    /** The offer to a deposed primary that dials in to hand values back, or null if there is none. */
    Handback handback();
}
