package dev.kvs.server.internal.resp;

import java.util.Arrays;

/**
 * Runs of one command on one key in one read: a client pipelining SETs of one key, SADDs to one set,
 * SPOPs of one set. Such a run runs as one ({@link RunCommand}): one write of the key, one pass through
 * its lock and its record, instead of one a command, and each command gets the reply it would have had
 * alone. What the store and the backup see is what running the commands one after the other, with no
 * other client's command between them, would leave; no other client could have read the key between
 * them either, as a run is one connection's, and the replies come in order, each written once the one
 * write it stands for is acknowledged.
 *
 * <p>Why (issue 36): with two event loops on two cores, every write of a hot key moved its record, its
 * store segment's lock and its stripe between the cores; a run of sixteen SETs made sixteen such trips.
 *
 * <p>A run is only of commands that come whole (no value staged into the store as it arrived), and it
 * runs as one only where nothing could tell it from its commands one by one ({@link #mayRun}, {@link
 * RespHandler}, {@link CommandDispatch#dispatchRun}); elsewhere each command runs alone, as before.
 */
final class CommandRuns {
    private CommandRuns() {}

    /**
     * The command a run starting at {@code from} in {@code batch} repeats, or {@code null} if none starts
     * there: the command there and the next name one command on one key, in the form its run takes.
     * Costs two comparisons of short arrays where none starts, and a lookup where two commands name one key.
     */
    static CommandSpec runsFrom(RespCommands batch, int from, CommandTable table) {
        if (from + 1 >= batch.size()
                || !(batch.get(from) instanceof RespCommand first)
                || !(batch.get(from + 1) instanceof RespCommand next)
                || !sameCommandAndKey(first, first.args(), next)) return null;
        CommandSpec spec = table.lookup(first.args()[0]);
        if (spec == null || spec.run() == null) return null;
        return spec.run().joins(first.args()) && spec.run().joins(next.args()) ? spec : null;
    }

    /** How many commands, from {@code from} on (two at least), repeat {@code spec} on the first one's key. */
    static int length(RespCommands batch, int from, CommandSpec spec) {
        RespCommand first = batch.command(from);
        int n = 2;
        while (from + n < batch.size()) {
            if (!(batch.get(from + n) instanceof RespCommand next)
                    || !sameCommandAndKey(first, first.args(), next)
                    || !spec.run().joins(next.args())) break;
            n++;
        }
        return n;
    }

    /**
     * True if runs may run as one on this node now: no keyspace event is on (each command of a run would
     * publish its own) and no key is fenced (a fenced key's command passes the {@link KeyGate} alone).
     */
    static boolean mayRun(CommandContext node) {
        return node.events().classes() == 0 && !node.readGate().active();
    }

    private static boolean sameCommandAndKey(RespCommand first, byte[][] a, RespCommand next) {
        if (first.error() != null || first.staged() != null || next.error() != null || next.staged() != null)
            return false;
        byte[][] b = next.args();
        return a.length >= 2 && b.length >= 2 && Arrays.equals(a[0], b[0]) && Arrays.equals(a[1], b[1]);
    }
}
