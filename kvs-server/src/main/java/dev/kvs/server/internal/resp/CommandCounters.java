package dev.kvs.server.internal.resp;

import java.util.concurrent.atomic.LongAdder;

/**
 * One command's figures for {@code INFO commandstats}, as Redis counts them: {@code calls} run, the
 * time they took on the event loop (not the wait for replication), {@code rejected} before running
 * (wrong arity, not logged in, no permission, a backup, a fence, BUSY), {@code failed} while running
 * (an error reply, including one that came after a wait, such as NOREPLICA). Lock-free counters: a few
 * nanoseconds per command.
 */
final class CommandCounters {
    final LongAdder calls = new LongAdder();
    final LongAdder nanos = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder failed = new LongAdder();
    /** Whether the node's metrics read these counters ({@code kvs.commands}); set after its first call. */
    volatile boolean exposed;

    /** True once the command has been run, rejected or has failed. */
    boolean used() {
        return calls.sum() + rejected.sum() + failed.sum() > 0;
    }
}
