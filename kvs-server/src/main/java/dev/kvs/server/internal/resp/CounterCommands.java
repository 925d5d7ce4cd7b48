package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.STRING;
import static dev.kvs.server.internal.resp.Records.complete;
import static dev.kvs.server.internal.resp.Records.requireString;
import static dev.kvs.server.internal.resp.Records.ttlOf;

import dev.kvs.core.KvsException;
import dev.kvs.core.Write;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * The counters of Redis's string group: INCR, DECR, INCRBY, DECRBY, INCRBYFLOAT. Each reads the
 * current value and writes the new one in one {@link Writes#updateValue} (under the key's lock, with
 * its TxId), so it is atomic with other writes and replicated in order, and its reply waits for
 * replication as the connection's mode says, like SET's. A counter keeps the key's TTL, as in Redis.
 */
final class CounterCommands {
    static final String NOT_FLOAT = "ERR value is not a valid float";
    static final String OVERFLOW = "ERR increment or decrement would overflow";

    private final CommandContext node;
    private final KeyGate gate;
    private final Writes writes;
    private final KeyEvents events;

    CounterCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.writes = node.writes();
        this.events = node.events();
    }

    void register(CommandTable t) {
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // the gate's step skips non-key arguments: only the key (argument 1) is checked
        t.add("INCR", 2, write, 1, 1, 1, gate.gated(true, 1, (s, a) -> incrBy(s, a[1], 1)));
        t.add("DECR", 2, write, 1, 1, 1, gate.gated(true, 1, (s, a) -> incrBy(s, a[1], -1)));
        t.add("INCRBY", 3, write, 1, 1, 1, gate.gated(true, 2, this::incrBy));
        t.add("DECRBY", 3, write, 1, 1, 1, gate.gated(true, 2, this::decrBy));
        t.add("INCRBYFLOAT", 3, write, 1, 1, 1, gate.gated(true, 2, this::incrByFloat));
        t.addRun("INCR", new CounterRun(a -> a.length == 2 ? 1L : null));
        t.addRun("DECR", new CounterRun(a -> a.length == 2 ? -1L : null));
        t.addRun("INCRBY", new CounterRun(a -> a.length == 3 ? Args.parseLong(a[2]) : null));
        t.addRun("DECRBY", new CounterRun(a -> {
            Long by = a.length == 3 ? Args.parseLong(a[2]) : null;
            return by == null || by == Long.MIN_VALUE ? null : -by;
        }));
    }

    /**
     * A run of one of the integer counters on one key ({@link CommandRuns}): one write of the sum, each
     * command answered with the value it would have left. If a step would fail (the value is not an
     * integer, a sum would overflow), nothing is written and each command runs alone, meeting its error
     * where it would have.
     */
    private final class CounterRun implements RunCommand {
        /** A command's increment, or null if it is not of a form a run takes (a bad or missing number). */
        private final Function<byte[][], Long> increment;

        CounterRun(Function<byte[][], Long> increment) {
            this.increment = increment;
        }

        @Override
        public boolean joins(byte[][] a) {
            return increment.apply(a) != null;
        }

        @Override
        public RedisMessage[] execute(Session s, byte[][][] run, int n) {
            byte[] key = run[0][1];
            long[] values = new long[n];
            boolean[] refused = new boolean[1];
            Writes.Done<Write> w;
            try {
                w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
                    requireString(v);
                    refused[0] = true;
                    long current = 0;
                    if (complete(v)) {
                        Long parsed = Args.parseLong(v.value());
                        if (parsed == null) return Write.keep();
                        current = parsed;
                    }
                    for (int i = 0; i < n; i++) {
                        long by = increment.apply(run[i]);
                        long next = current + by;
                        if (((current ^ next) & (by ^ next)) < 0) return Write.keep();
                        values[i] = current = next;
                    }
                    refused[0] = false;
                    return order.put(key, Long.toString(current).getBytes(StandardCharsets.US_ASCII), ttlOf(v));
                });
            } catch (KvsException e) {
                return null; // not written (WRONGTYPE, not writable now): each meets it alone
            }
            if (refused[0]) return null;
            RedisMessage[] out = new RedisMessage[n];
            for (int i = 0; i < n; i++) out[i] = Replies.whenReplicated(w.replicated(), Replies.integer(values[i]));
            return out;
        }
    }

    private RedisMessage incrBy(Session s, byte[][] a) {
        Long by = Args.parseLong(a[2]);
        return by == null ? Replies.error(StringCommands.NOT_INTEGER) : incrBy(s, a[1], by);
    }

    private RedisMessage decrBy(Session s, byte[][] a) {
        Long by = Args.parseLong(a[2]);
        if (by == null) return Replies.error(StringCommands.NOT_INTEGER);
        if (by == Long.MIN_VALUE) return Replies.error("ERR decrement would overflow");
        return incrBy(s, a[1], -by);
    }

    private RedisMessage incrBy(Session s, byte[] key, long by) {
        String[] error = new String[1];
        long[] result = new long[1];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
            long current = 0;
            if (complete(v)) {
                Long parsed = Args.parseLong(v.value());
                if (parsed == null) return refuse(error, StringCommands.NOT_INTEGER);
                current = parsed;
            }
            long next = current + by;
            if (((current ^ next) & (by ^ next)) < 0) return refuse(error, OVERFLOW);
            result[0] = next;
            return order.put(key, Long.toString(next).getBytes(StandardCharsets.US_ASCII), ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        events.emit(STRING, "incrby", key);
        return Replies.whenReplicated(w.replicated(), Replies.integer(result[0]));
    }

    private RedisMessage incrByFloat(Session s, byte[][] a) {
        LongDouble by = LongDouble.parse(a[2]);
        if (by == null) return Replies.error(NOT_FLOAT);
        byte[] key = a[1];
        String[] error = new String[1];
        byte[][] result = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
            LongDouble current = LongDouble.ZERO;
            if (complete(v)) {
                current = LongDouble.parse(v.value());
                if (current == null) return refuse(error, NOT_FLOAT);
            }
            LongDouble next = current.plus(by);
            if (!next.isFinite()) return refuse(error, "ERR increment would produce NaN or Infinity");
            result[0] = next.format().getBytes(StandardCharsets.US_ASCII);
            return order.put(key, result[0], ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        events.emit(STRING, "incrbyfloat", key);
        return Replies.whenReplicated(w.replicated(), Replies.bulk(result[0]));
    }

    /** Leaves the key as it is and says why: {@code text} is the command's error reply. */
    private static Write refuse(String[] error, String text) {
        error[0] = text;
        return Write.keep();
    }
}
