package dev.kvs.server.internal.resp;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** Counters of the client port, for INFO. Thread-safe. */
final class ClientStats {
    final AtomicInteger connected = new AtomicInteger();
    final LongAdder connectionsReceived = new LongAdder();
    final LongAdder rejectedConnections = new LongAdder();
    final LongAdder commandsProcessed = new LongAdder();
    final LongAdder errorReplies = new LongAdder();
    final LongAdder protocolErrors = new LongAdder();
}
