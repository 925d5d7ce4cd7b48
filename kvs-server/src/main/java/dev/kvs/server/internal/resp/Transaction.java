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

    /** At most this many commands are queued in one transaction; one more refuses it (EXECABORT). */
    static final int MAX_COMMANDS = 100_000;
    /** At most this many bytes of arguments are queued in one transaction; more refuses it (EXECABORT). */
    static final long MAX_BYTES = 64L << 20;

    private final int maxCommands;
    private final long maxBytes;
    private final List<Queued> queued = new ArrayList<>();
    private long bytes;
    private boolean refused;

    Transaction() {
        this(MAX_COMMANDS, MAX_BYTES);
    }

    /** With other bounds than {@link #MAX_COMMANDS} and {@link #MAX_BYTES} (tests). */
    Transaction(int maxCommands, long maxBytes) {
        this.maxCommands = maxCommands;
        this.maxBytes = maxBytes;
    }

    /**
     * Queues a command admitted by {@link CommandRefusals}.
     *
     * @return false, with the transaction refused and its queue freed, if the command would take it over
     *     its bounds ({@link #MAX_COMMANDS} commands, {@link #MAX_BYTES} bytes of arguments)
     */
    boolean queue(CommandSpec spec, byte[][] args) {
        if (refused) return true; // as Redis: nothing more once refused
        long size = 0;
        for (byte[] a : args) size += a.length;
        if (queued.size() >= maxCommands || bytes + size > maxBytes) {
            refuse();
            return false;
        }
        bytes += size;
        queued.add(new Queued(spec, args));
        return true;
    }

    /** A command was refused while queuing: {@code EXEC} will answer {@code EXECABORT}. */
    void refuse() {
        refused = true;
        queued.clear();
        bytes = 0;
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
