package dev.kvs.server.internal.resp;

import dev.kvs.core.log.ThrottledLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client port's security WARNs, one {@link ThrottledLog} per kind: a stranger who reconnects or
 * retries in a tight loop writes a line per kind every {@link ThrottledLog#DEFAULT_INTERVAL}, with the
 * count of those left out, not a line per attempt. One per port, shared by its connections.
 */
final class ClientWarnings {
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    /** {@code AUTH} or {@code HELLO AUTH} refused: unknown user or wrong password. */
    final ThrottledLog failedLogins = new ThrottledLog(log);
    /** Connections refused past {@code maxClients}. */
    final ThrottledLog refusedConnections = new ThrottledLog(log);
    /** Connections from other hosts refused by protected mode. */
    final ThrottledLog protectedMode = new ThrottledLog(log);
    /** HTTP requests sent to the client port. */
    final ThrottledLog crossProtocol = new ThrottledLog(log);
    /** Unauthenticated connections closed for a protocol error (the pre-auth limits, garbage). */
    final ThrottledLog preAuthProtocolErrors = new ThrottledLog(log);
    /** Connections closed for more replies queued than {@code clientOutputBufferLimit}. */
    final ThrottledLog outputLimit = new ThrottledLog(log);
    /** Connections closed after an unexpected error. */
    final ThrottledLog unexpectedErrors = new ThrottledLog(log);

    /** Security events of every kind since start, whether their line was written or not. */
    long events() {
        return failedLogins.events()
                + refusedConnections.events()
                + protectedMode.events()
                + crossProtocol.events()
                + preAuthProtocolErrors.events()
                + outputLimit.events()
                + unexpectedErrors.events();
    }
}
