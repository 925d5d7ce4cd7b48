package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;
import static dev.kvs.server.internal.notify.EventClasses.HASH;

import dev.kvs.core.KvsException;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.ValueType;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Redis's hash group: HSET, HMSET, HSETNX, HDEL, HINCRBY, HINCRBYFLOAT here, the reads in {@link
 * HashReads}. Every write goes through {@link StructureWrites}: it changes the hash under the key's
 * lock with one TxId (none if nothing changed), and its reply waits for replication as the
 * connection's mode says, as SET's does. A hash command on a key of another type answers WRONGTYPE
 * (the store refuses it, nothing written); argument errors come first, as in Redis.
 */
final class HashCommands {
    static final String NOT_INTEGER = "ERR hash value is not an integer";
    static final String NOT_FLOAT = "ERR hash value is not a float";

    /** A gate step past the arguments: only the key (argument 1) passes the read gate. */
    private static final int ONLY_KEY = 1 << 20;

    private final CommandContext node;
    private final KeyGate gate;
    private final StructureWrites structures;
    private final KeyEvents events;

    HashCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.structures = node.structures();
        this.events = node.events();
    }

    /** Registers the hash commands with Redis 7.0.15's arity and key positions (COMMAND INFO). */
    void register(CommandTable t) {
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        t.add("HSET", -4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> hset(s, a, "hset")));
        t.add("HMSET", -4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> hset(s, a, "hmset")));
        t.add("HSETNX", 4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::hsetnx));
        t.add("HDEL", -3, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::hdel));
        t.add("HINCRBY", 4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::hincrby));
        t.add("HINCRBYFLOAT", 4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::hincrbyfloat));
        new HashReads(node.store(), structures).register(t, gate, ONLY_KEY);
        t.addRun("HSET", new HsetRun(true));
        t.addRun("HMSET", new HsetRun(false));
    }

    /**
     * A run of HSETs (or HMSETs) of one hash ({@link CommandRuns}): one write of all their fields, in
     * order. Each HSET is answered with the fields it added: those the hash held neither before the run
     * nor from an HSET before it in the run ({@link MemberWrite#previous}); each HMSET with OK.
     */
    private final class HsetRun implements RunCommand {
        private final boolean countsAdded;

        HsetRun(boolean countsAdded) {
            this.countsAdded = countsAdded;
        }

        @Override
        public boolean joins(byte[][] a) {
            return a.length >= 4 && a.length % 2 == 0; // HSET key field value [field value ...]
        }

        @Override
        public RedisMessage[] execute(Session s, byte[][][] run, int n) {
            List<Member> members = new ArrayList<>(n);
            for (byte[][] a : run) {
                for (int i = 2; i < a.length; i += 2) members.add(new Member(a[i], a[i + 1]));
            }
            Writes.Done<MemberWrite> w;
            try {
                w = structures.put(node.mode(s), s.lastWrite, run[0][1], ValueType.HASH, members, true);
            } catch (KvsException e) {
                return null; // not written (WRONGTYPE, not writable now): each meets it alone
            }
            List<byte[]> previous = w.result().previous();
            RedisMessage[] out = new RedisMessage[n];
            int j = 0;
            for (int c = 0; c < n; c++) {
                int added = 0;
                for (int i = 2; i < run[c].length; i += 2) {
                    if (previous.get(j++) == null) added++;
                }
                out[c] = Replies.whenReplicated(w.replicated(), countsAdded ? Replies.integer(added) : Replies.OK);
            }
            return out;
        }
    }

    /** HSET answers the fields added, HMSET (deprecated, the same write) OK. */
    private RedisMessage hset(Session s, byte[][] a, String command) {
        if (a.length % 2 != 0) return Replies.wrongArity(command);
        List<Member> members = new ArrayList<>((a.length - 2) / 2);
        for (int i = 2; i < a.length; i += 2) members.add(new Member(a[i], a[i + 1]));
        Writes.Done<MemberWrite> w = structures.put(node.mode(s), s.lastWrite, a[1], ValueType.HASH, members, false);
        events.emit(HASH, "hset", a[1]);
        RedisMessage reply = command.equals("hset") ? Replies.integer(w.result().changed()) : Replies.OK;
        return Replies.whenReplicated(w.replicated(), reply);
    }

    private RedisMessage hsetnx(Session s, byte[][] a) {
        byte[] value = a[3];
        Writes.Done<MemberWrite> w = update(s, a, current -> current == null ? value : null);
        if (w.result().written()) events.emit(HASH, "hset", a[1]);
        return Replies.whenReplicated(w.replicated(), w.result().written() ? Replies.ONE : Replies.ZERO);
    }

    private RedisMessage hdel(Session s, byte[][] a) {
        List<byte[]> fields = Arrays.asList(a).subList(2, a.length);
        Writes.Done<MemberWrite> w = structures.remove(node.mode(s), s.lastWrite, a[1], ValueType.HASH, fields, false);
        if (w.result().changed() > 0) events.emit(HASH, "hdel", a[1]);
        if (Records.emptied(w.result())) events.emit(GENERIC, "del", a[1]);
        return Replies.whenReplicated(w.replicated(), Replies.integer(w.result().changed()));
    }

    private RedisMessage hincrby(Session s, byte[][] a) {
        Long by = Args.parseLong(a[3]);
        if (by == null) return Replies.error(StringCommands.NOT_INTEGER);
        String[] error = new String[1];
        long[] result = new long[1];
        Writes.Done<MemberWrite> w = update(s, a, current -> {
            long value = 0;
            if (current != null) {
                Long parsed = Args.parseLong(current);
                if (parsed == null) return refuse(error, NOT_INTEGER);
                value = parsed;
            }
            long next = value + by;
            if (((value ^ next) & (by ^ next)) < 0) return refuse(error, CounterCommands.OVERFLOW);
            result[0] = next;
            return Long.toString(next).getBytes(StandardCharsets.US_ASCII);
        });
        if (error[0] != null) return Replies.error(error[0]);
        events.emit(HASH, "hincrby", a[1]);
        return Replies.whenReplicated(w.replicated(), Replies.integer(result[0]));
    }

    private RedisMessage hincrbyfloat(Session s, byte[][] a) {
        LongDouble by = LongDouble.parse(a[3]);
        if (by == null) return Replies.error(CounterCommands.NOT_FLOAT);
        if (!by.isFinite()) return Replies.error("ERR value is NaN or Infinity");
        String[] error = new String[1];
        byte[][] result = new byte[1][];
        Writes.Done<MemberWrite> w = update(s, a, current -> {
            LongDouble value = LongDouble.ZERO;
            if (current != null) {
                value = LongDouble.parse(current);
                if (value == null) return refuse(error, NOT_FLOAT);
            }
            LongDouble next = value.plus(by);
            if (!next.isFinite()) return refuse(error, "ERR increment would produce NaN or Infinity");
            result[0] = next.format().getBytes(StandardCharsets.US_ASCII);
            return result[0];
        });
        if (error[0] != null) return Replies.error(error[0]);
        events.emit(HASH, "hincrbyfloat", a[1]);
        return Replies.whenReplicated(w.replicated(), Replies.bulk(result[0]));
    }

    /** Reads field {@code a[2]} of hash {@code a[1]} and writes what {@code fn} makes of it (null: nothing). */
    private Writes.Done<MemberWrite> update(Session s, byte[][] a, UnaryOperator<byte[]> fn) {
        return structures.update(node.mode(s), s.lastWrite, a[1], ValueType.HASH, a[2], fn);
    }

    /** Leaves the field as it is and says why: {@code text} is the command's error reply. */
    private static byte[] refuse(String[] error, String text) {
        error[0] = text;
        return null;
    }
}
