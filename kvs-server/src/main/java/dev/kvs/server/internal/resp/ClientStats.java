package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.PackedEventLoops;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters of the client port, for INFO. Thread-safe. */
final class ClientStats {
    final AtomicInteger connected = new AtomicInteger();
    final LongAdder connectionsReceived = new LongAdder();
    final LongAdder rejectedConnections = new LongAdder();
    final LongAdder commandsProcessed = new LongAdder();
    final LongAdder errorReplies = new LongAdder();
    final LongAdder protocolErrors = new LongAdder();
    /** Connections closed because they sent an HTTP request ({@code POST}, {@code Host:}). */
    final LongAdder crossProtocolAttacks = new LongAdder();
    /** Clients refused by protected mode. */
    final LongAdder protectedModeDenials = new LongAdder();
    /** Logins refused: unknown user or wrong password (Redis {@code acl_access_denied_auth}). */
    final LongAdder aclDeniedAuth = new LongAdder();
    /** Commands refused because the user's role does not permit them (Redis {@code acl_access_denied_cmd}). */
    final LongAdder aclDeniedCommands = new LongAdder();
    /** Connections closed for not authenticating in time. */
    final LongAdder authTimeouts = new LongAdder();
    /** Connections closed for being idle. */
    final LongAdder idleTimeouts = new LongAdder();
    /** Connections closed for having more replies queued than clientOutputBufferLimit. */
    final LongAdder outputBufferLimitDisconnections = new LongAdder();
    /** Bulk strings being received now, on every connection (a gauge). */
    final AtomicInteger inputBulks = new AtomicInteger();
    /** Bytes the decoders hold for the bulk strings being received now (a gauge). */
    final AtomicLong inputBulkBytes = new AtomicLong();

    /** The client port's event loops, once the port is bound (null before, and for test servers). */
    volatile PackedEventLoops loops;

    /** Connections each event loop serves now, or null if the loops are not known. */
    int[] perLoop() {
        PackedEventLoops l = loops;
        return l == null ? null : l.served();
    }
}
