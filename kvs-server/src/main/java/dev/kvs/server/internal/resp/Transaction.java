package dev.kvs.server.internal.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * A connection's transaction between {@code MULTI} and {@code EXEC}: the commands queued, in order,
 * and whether one was refused while queuing (then {@code EXEC} answers {@code EXECABORT} and runs
 * nothing, as Redis). Confined to the connection's event loop.
 */
final class Transaction {
    /** A queued command: its spec, looked up and admitted when queued, and its arguments. */
    record Queued(CommandSpec spec, byte[][] args) {}

    private final List<Queued> queued = new ArrayList<>();
    private boolean refused;

    /** Queues a command admitted by {@link CommandRefusals}. */
    void queue(CommandSpec spec, byte[][] args) {
        if (!refused) queued.add(new Queued(spec, args)); // as Redis: nothing more once refused
    }

    /** A command was refused while queuing: {@code EXEC} will answer {@code EXECABORT}. */
    void refuse() {
        refused = true;
        queued.clear();
    }

    /** True if a queued command writes: its EXEC waits for replication room as a write does. */
    boolean writes() {
        for (Queued q : queued) if (q.spec().has(CommandSpec.WRITE)) return true;
        return false;
    }

    boolean refused() {
        return refused;
    }

    List<Queued> queued() {
        return queued;
    }
}
