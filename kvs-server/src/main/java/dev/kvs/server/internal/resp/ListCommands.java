package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;

import dev.kvs.core.ListLayout;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.StructureChange;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Redis's list group, writes here (LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP, LSET, LREM, LTRIM,
 * LINSERT, LMOVE, RPOPLPUSH) and the reads in {@link ListReads}. A list is stored as {@link
 * ListLayout} says: each write reads the list's bounds and decides its change inside one {@link
 * StructureWrites#updateAll} step (the key's lock held), so it takes one TxId per key it changes and
 * ships the list's image, as a hash write does. The blocking commands (BLPOP, BRPOP, BLMOVE,
 * BRPOPLPUSH, BLMPOP) and LMPOP are not here: a blocking pop needs a machinery that parks a client
 * until a push, which kvs does not have yet, so they stay unknown commands.
 *
 * <p>Argument errors come before the key is looked at, and an absent key's reply before WRONGTYPE, in
 * Redis 7.0.15's order for each command.
 */
final class ListCommands {
    static final ValueType LIST = ValueType.LIST;
    static final String NOT_POSITIVE = "ERR value is out of range, must be positive";

    /** A gate step past the arguments: only the key (argument 1) passes the gate. */
    private static final int ONLY_KEY = 1 << 20;

    private final CommandContext node;
    private final KeyGate gate;
    private final StructureWrites structures;
    private final KeyEvents events;

    ListCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.structures = node.structures();
        this.events = node.events();
    }

    /** Registers the list commands with Redis 7.0.15's arity and key positions (COMMAND INFO). */
    void register(CommandTable t) {
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        t.add("LPUSH", -3, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> push(s, a, true, false)));
        t.add("RPUSH", -3, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> push(s, a, false, false)));
        t.add("LPUSHX", -3, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> push(s, a, true, true)));
        t.add("RPUSHX", -3, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> push(s, a, false, true)));
        t.add("LPOP", -2, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> pop(s, a, true)));
        t.add("RPOP", -2, write, 1, 1, 1, gate.gated(true, ONLY_KEY, (s, a) -> pop(s, a, false)));
        t.add("LSET", 4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::lset));
        t.add("LREM", 4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::lrem));
        t.add("LTRIM", 4, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::ltrim));
        t.add("LINSERT", 5, write, 1, 1, 1, gate.gated(true, ONLY_KEY, this::linsert));
        t.add("LMOVE", 5, write, 1, 2, 1, gate.gated(true, 1, this::lmove));
        t.add("RPOPLPUSH", 3, write, 1, 2, 1, gate.gated(true, 1, (s, a) -> move(s, a[1], a[2], false, true)));
        new ListReads(node).register(t, gate, ONLY_KEY);
    }

    private RedisMessage push(Session s, byte[][] a, boolean left, boolean onlyIfThere) {
        List<byte[]> values = Arrays.asList(a).subList(2, a.length);
        return write(s, a[1], left ? "lpush" : "rpush", (list, tx) -> {
            if (onlyIfThere && list.size() == 0) return reply(StructureChange.keep(), Replies.ZERO);
            return reply(list.push(left, values, tx), Replies.integer(list.size() + values.size()));
        });
    }

    private RedisMessage pop(Session s, byte[][] a, boolean left) {
        if (a.length > 3) return Replies.wrongArity(left ? "lpop" : "rpop");
        boolean counted = a.length == 3;
        long count = 1;
        if (counted) {
            Long c = Args.parseLong(a[2]);
            if (c == null || c < 0) return Replies.error(NOT_POSITIVE);
            count = c;
        }
        long wanted = count;
        return write(s, a[1], left ? "lpop" : "rpop", (list, tx) -> {
            if (list.size() == 0)
                return reply(StructureChange.keep(), counted ? ArrayRedisMessage.NULL_INSTANCE : Replies.NIL);
            if (wanted == 0) return reply(StructureChange.keep(), ArrayRedisMessage.EMPTY_INSTANCE);
            long n = Math.min(wanted, list.size());
            List<byte[]> taken = left ? list.range(0, n) : new ArrayList<>(list.range(list.size() - n, list.size()));
            if (!left) Collections.reverse(taken);
            StructureChange c = left ? list.trimEnds(n, 0, tx) : list.trimEnds(0, n, tx);
            if (!counted) return reply(c, Replies.bulk(taken.get(0)));
            List<RedisMessage> out = new ArrayList<>(taken.size());
            for (byte[] v : taken) out.add(Replies.bulk(v));
            return reply(c, Replies.array(out));
        });
    }

    private RedisMessage lset(Session s, byte[][] a) {
        return write(s, a[1], "lset", (list, tx) -> {
            if (list.size() == 0) return reply(StructureChange.keep(), Replies.error("ERR no such key"));
            Long index = Args.parseLong(a[2]);
            if (index == null) return reply(StructureChange.keep(), Replies.error(StringCommands.NOT_INTEGER));
            long i = index < 0 ? list.size() + index : index;
            if (i < 0 || i >= list.size())
                return reply(StructureChange.keep(), Replies.error("ERR index out of range"));
            return reply(list.set(i, a[3], tx), Replies.OK);
        });
    }

    private RedisMessage lrem(Session s, byte[][] a) {
        Long count = Args.parseLong(a[2]);
        if (count == null) return Replies.error(StringCommands.NOT_INTEGER);
        return write(s, a[1], "lrem", (list, tx) -> {
            List<byte[]> all = list.all();
            long limit = count == 0 ? Long.MAX_VALUE : count == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(count);
            boolean[] drop = new boolean[all.size()];
            long removed = 0;
            for (int k = 0; k < all.size() && removed < limit; k++) {
                int i = count >= 0 ? k : all.size() - 1 - k;
                if (Arrays.equals(all.get(i), a[3])) {
                    drop[i] = true;
                    removed++;
                }
            }
            List<byte[]> kept = new ArrayList<>(all.size());
            for (int i = 0; i < all.size(); i++) if (!drop[i]) kept.add(all.get(i));
            if (removed == 0) return reply(StructureChange.keep(), Replies.ZERO);
            return reply(list.rewrite(kept, tx), Replies.integer(removed));
        });
    }

    private RedisMessage ltrim(Session s, byte[][] a) {
        Long start = Args.parseLong(a[2]);
        Long end = Args.parseLong(a[3]);
        if (start == null || end == null) return Replies.error(StringCommands.NOT_INTEGER);
        boolean[] unchanged = new boolean[1]; // Redis publishes ltrim on a list it leaves as it was too
        RedisMessage reply = write(s, a[1], "ltrim", (list, tx) -> {
            long llen = list.size();
            if (llen == 0) return reply(StructureChange.keep(), Replies.OK);
            long from = start < 0 ? llen + start : start;
            long to = end < 0 ? llen + end : end;
            if (from < 0) from = 0;
            long left, right;
            if (from > to || from >= llen) {
                left = llen;
                right = 0;
            } else {
                if (to >= llen) to = llen - 1;
                left = from;
                right = llen - to - 1;
            }
            unchanged[0] = left == 0 && right == 0;
            if (unchanged[0]) return reply(StructureChange.keep(), Replies.OK);
            return reply(list.trimEnds(left, right, tx), Replies.OK);
        });
        if (unchanged[0]) events.emit(EventClasses.LIST, "ltrim", a[1]);
        return reply;
    }

    private RedisMessage linsert(Session s, byte[][] a) {
        String where = Args.upper(a[2]);
        if (!where.equals("BEFORE") && !where.equals("AFTER")) return Replies.SYNTAX;
        return write(s, a[1], "linsert", (list, tx) -> {
            if (list.size() == 0) return reply(StructureChange.keep(), Replies.ZERO);
            List<byte[]> all = new ArrayList<>(list.all());
            for (int i = 0; i < all.size(); i++) {
                if (Arrays.equals(all.get(i), a[3])) {
                    all.add(where.equals("BEFORE") ? i : i + 1, a[4]);
                    return reply(list.rewrite(all, tx), Replies.integer(all.size()));
                }
            }
            return reply(StructureChange.keep(), Replies.integer(-1));
        });
    }

    private RedisMessage lmove(Session s, byte[][] a) {
        Boolean fromLeft = side(a[3]);
        Boolean toLeft = fromLeft == null ? null : side(a[4]);
        if (toLeft == null) return Replies.SYNTAX;
        return move(s, a[1], a[2], fromLeft, toLeft);
    }

    /** LEFT true, RIGHT false, anything else null (a syntax error). */
    private static Boolean side(byte[] arg) {
        String w = Args.upper(arg);
        return w.equals("LEFT") ? Boolean.TRUE : w.equals("RIGHT") ? Boolean.FALSE : null;
    }

    /**
     * LMOVE and RPOPLPUSH: an absent source answers nil whatever the destination holds; a destination
     * of another type answers WRONGTYPE with nothing moved. One key (a rotation) is one write.
     */
    private RedisMessage move(Session s, byte[] src, byte[] dst, boolean fromLeft, boolean toLeft) {
        RedisMessage[] reply = new RedisMessage[1];
        String pushed = toLeft ? "lpush" : "rpush", popped = fromLeft ? "lpop" : "rpop";
        if (Arrays.equals(src, dst)) {
            return write(s, src, pushed, popped, (list, tx) -> {
                if (list.size() == 0) return reply(StructureChange.keep(), Replies.NIL);
                List<byte[]> all = new ArrayList<>(list.all());
                byte[] v = fromLeft ? all.remove(0) : all.remove(all.size() - 1);
                all.add(toLeft ? 0 : all.size(), v);
                return reply(list.rewrite(all, tx), Replies.bulk(v));
            });
        }
        Writes.Done<List<MemberWrite>> d =
                structures.updateAll(node.mode(s), s.lastWrite, List.of(src, dst), LIST, (view, tx) -> {
                    List<StructureChange> keep = List.of(StructureChange.keep(), StructureChange.keep());
                    ListLayout from = ListLayout.of(view, 0);
                    if (from.size() == 0) {
                        reply[0] = Replies.NIL;
                        return keep;
                    }
                    ListLayout to = ListLayout.of(view, 1); // WRONGTYPE before anything is written
                    byte[] v = from.get(fromLeft ? 0 : from.size() - 1);
                    reply[0] = Replies.bulk(v);
                    return List.of(
                            fromLeft ? from.trimEnds(1, 0, tx.kept(0)) : from.trimEnds(0, 1, tx.kept(0)),
                            to.push(toLeft, List.of(v), tx.kept(1)));
                });
        if (d.result().get(1).written()) events.emit(EventClasses.LIST, pushed, dst);
        if (d.result().get(0).written()) events.emit(EventClasses.LIST, popped, src);
        if (Records.emptied(d.result().get(0))) events.emit(GENERIC, "del", src);
        return Replies.whenReplicated(d.replicated(), reply[0]);
    }

    /** A decision on one list: its change and the command's reply. */
    private record Decision(StructureChange change, RedisMessage reply) {}

    private static Decision reply(StructureChange change, RedisMessage reply) {
        return new Decision(change, reply);
    }

    /** {@link #write(Session, byte[], String, String, BiFunction)} of a command that publishes one event. */
    private RedisMessage write(
            Session s, byte[] key, String event, BiFunction<ListLayout, Supplier<TxId>, Decision> decide) {
        return write(s, key, event, null, decide);
    }

    /**
     * Runs {@code decide} on the list at {@code key} under its lock and makes its change (one TxId if it
     * writes), then publishes {@code event} and {@code then} (if not null) if it wrote, and {@code del}
     * if it took the last element; the reply waits for replication as the connection's mode says.
     */
    private RedisMessage write(
            Session s, byte[] key, String event, String then, BiFunction<ListLayout, Supplier<TxId>, Decision> decide) {
        RedisMessage[] reply = new RedisMessage[1];
        Writes.Done<List<MemberWrite>> d =
                structures.updateAll(node.mode(s), s.lastWrite, List.of(key), LIST, (view, tx) -> {
                    Decision c = decide.apply(ListLayout.of(view, 0), tx.kept(0));
                    reply[0] = c.reply();
                    return List.of(c.change());
                });
        if (d.result().get(0).written()) events.emit(EventClasses.LIST, event, key);
        if (d.result().get(0).written() && then != null) events.emit(EventClasses.LIST, then, key);
        if (Records.emptied(d.result().get(0))) events.emit(GENERIC, "del", key);
        return Replies.whenReplicated(d.replicated(), reply[0]);
    }
}
