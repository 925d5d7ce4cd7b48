package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;
import static dev.kvs.server.internal.resp.SetCommands.SET;
import static dev.kvs.server.internal.resp.SetCommands.isSet;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.StructureChange;
import dev.kvs.core.StructureView;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Redis's commands over several sets: SINTER, SUNION, SDIFF, SINTERCARD, their {@code STORE} forms, and
 * SMOVE. Each reads (and writes) all its keys in one {@link KvStore#updateStructures} step under all
 * their locks, so no reader or writer sees half of it, as in Redis; a {@code STORE} replaces its
 * destination, of any type, with the result (no TTL) or deletes it if the result is empty, each key
 * written taking its own TxId. Every source key is type-checked, as Redis 7 does, before any result.
 */
final class SetAlgebra {
    /** How a result is made from the sources, in order. */
    enum Op {
        INTER("sinterstore"),
        UNION("sunionstore"),
        DIFF("sdiffstore");

        /** The event its {@code STORE} form publishes. */
        final String stored;

        Op(String stored) {
            this.stored = stored;
        }
    }

    private final CommandContext node;
    private final KeyGate gate;
    private final KvStore store;
    private final StructureWrites structures;
    private final KeyEvents events;

    SetAlgebra(CommandContext node, KeyGate gate, StructureWrites structures) {
        this.node = node;
        this.gate = gate;
        this.store = node.store();
        this.structures = structures;
        this.events = node.events();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        t.add("SINTER", -2, read, 1, -1, 1, gate.gated(false, 1, (s, a) -> read(a, Op.INTER)));
        t.add("SUNION", -2, read, 1, -1, 1, gate.gated(false, 1, (s, a) -> read(a, Op.UNION)));
        t.add("SDIFF", -2, read, 1, -1, 1, gate.gated(false, 1, (s, a) -> read(a, Op.DIFF)));
        t.add("SINTERSTORE", -3, write, 1, -1, 1, gate.gated(true, 1, (s, a) -> store(s, a, Op.INTER)));
        t.add("SUNIONSTORE", -3, write, 1, -1, 1, gate.gated(true, 1, (s, a) -> store(s, a, Op.UNION)));
        t.add("SDIFFSTORE", -3, write, 1, -1, 1, gate.gated(true, 1, (s, a) -> store(s, a, Op.DIFF)));
        // Redis's key spec: numkeys, then the keys (movablekeys; COMMAND INFO shows 0 0 0). The gate
        // checks every argument as a key, the extra ones (numkeys, LIMIT n) only cost a look-up.
        t.add("SINTERCARD", -3, read, 0, 0, 0, gate.gated(false, 1, this::sintercard));
        // the gate's step 1 also checks the member, as if it were a key: a look-up
        t.add("SMOVE", 4, write, 1, 2, 1, gate.gated(true, 1, this::smove));
    }

    private RedisMessage read(byte[][] a, Op op) {
        Set<ByteKey> result = snapshot(Arrays.asList(a).subList(1, a.length), op, 0);
        List<byte[]> names = new ArrayList<>(result.size());
        for (ByteKey k : result) names.add(k.bytes());
        return SetCommands.inRedisOrder(names);
    }

    /** SINTERSTORE, SUNIONSTORE, SDIFFSTORE destination key [key ...]: the result's size. */
    private RedisMessage store(Session s, byte[][] a, Op op) {
        List<byte[]> keys = Arrays.asList(a).subList(1, a.length);
        int[] size = new int[1];
        Writes.Done<List<MemberWrite>> d = structures.updateAll(node.mode(s), s.lastWrite, keys, SET, (view, tx) -> {
            Set<ByteKey> result = combine(view, 1, keys.size(), op, 0);
            List<Member> members = new ArrayList<>(result.size());
            for (ByteKey k : result) members.add(Member.of(k.bytes()));
            size[0] = members.size();
            List<StructureChange> changes = new ArrayList<>(keys.size());
            changes.add(StructureChange.replace(SET, members, tx.fresh(0)));
            for (int i = 1; i < keys.size(); i++) changes.add(StructureChange.keep());
            return changes;
        });
        if (size[0] > 0) events.emit(EventClasses.SET, op.stored, a[1]);
        if (size[0] == 0 && Records.emptied(d.result().get(0))) events.emit(GENERIC, "del", a[1]);
        return Replies.whenReplicated(d.replicated(), Replies.integer(size[0]));
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit]. */
    private RedisMessage sintercard(Session s, byte[][] a) {
        Long numkeys = Args.parseLong(a[1]);
        if (numkeys == null || numkeys < 1) return Replies.error("ERR numkeys should be greater than 0");
        if (numkeys > a.length - 2) return Replies.error("ERR Number of keys can't be greater than number of args");
        long limit = 0;
        for (int j = 2 + numkeys.intValue(); j < a.length; j++) {
            if (Args.upper(a[j]).equals("LIMIT") && j + 1 < a.length) {
                Long n = Args.parseLong(a[++j]);
                if (n == null || n < 0) return Replies.error("ERR LIMIT can't be negative");
                limit = n;
            } else {
                return Replies.SYNTAX;
            }
        }
        List<byte[]> keys = Arrays.asList(a).subList(2, 2 + numkeys.intValue());
        return Replies.integer(snapshot(keys, Op.INTER, limit).size());
    }

    /**
     * SMOVE source destination member: 1 if the member was in the source (it is then in the destination
     * only), else 0. The destination's write goes first: it is the one that may need room.
     */
    private RedisMessage smove(Session s, byte[][] a) {
        byte[] src = a[1], dst = a[2], member = a[3];
        if (Arrays.equals(src, dst)) { // Redis: a no-op that says whether the member is there
            if (!isSet(structures.live(src))) return Replies.ZERO;
            return store.getMembers(src, SET, List.of(member)).get(0) == null ? Replies.ZERO : Replies.ONE;
        }
        boolean[] moved = new boolean[1];
        Writes.Done<List<MemberWrite>> d =
                structures.updateAll(node.mode(s), s.lastWrite, List.of(dst, src), SET, (view, tx) -> {
                    List<StructureChange> keep = List.of(StructureChange.keep(), StructureChange.keep());
                    if (!isSet(view.header(1))) return keep; // no source: 0, whatever the destination is
                    isSet(view.header(0)); // WRONGTYPE if the destination holds another type
                    if (view.getMembers(1, SET, List.of(member)).get(0) == null) return keep;
                    moved[0] = true;
                    return List.of(
                            StructureChange.put(SET, List.of(Member.of(member)), tx.kept(0)),
                            StructureChange.remove(SET, List.of(member), tx.kept(1)));
                });
        if (moved[0]) events.emit(EventClasses.SET, "srem", src);
        if (moved[0] && Records.emptied(d.result().get(1))) events.emit(GENERIC, "del", src);
        if (moved[0] && d.result().get(0).changed() > 0) events.emit(EventClasses.SET, "sadd", dst);
        return Replies.whenReplicated(d.replicated(), moved[0] ? Replies.ONE : Replies.ZERO);
    }

    /** {@code op} over {@code keys}, read in one step under all their locks (nothing written). */
    private Set<ByteKey> snapshot(List<byte[]> keys, Op op, long limit) {
        long now = node.reads().nowMillis();
        List<Set<ByteKey>> result = new ArrayList<>(1);
        store.updateStructures(keys, view -> {
            StructureView live = StructureWrites.unexpired(view, now);
            result.add(combine(live, 0, keys.size(), op, limit));
            return Collections.nCopies(keys.size(), StructureChange.keep());
        });
        return result.get(0);
    }

    /**
     * {@code op} over the sets at {@code view}'s keys {@code [from, to)}; an absent key is an empty set.
     * Every key is type-checked first, as Redis 7 does. A {@code limit} above 0 stops an intersection
     * once it has so many members (SINTERCARD).
     *
     * @throws dev.kvs.core.WrongTypeException if one of them holds another type
     */
    private static Set<ByteKey> combine(StructureView view, int from, int to, Op op, long limit) {
        boolean anyAbsent = false;
        for (int i = from; i < to; i++) anyAbsent |= !isSet(view.header(i));
        Set<ByteKey> result = new LinkedHashSet<>();
        if (op == Op.INTER && anyAbsent) return result;
        if (op == Op.DIFF && !isSet(view.header(from))) return result;
        if (op == Op.INTER) {
            // walk the smallest set, look each member up in the others, as Redis does
            int smallest = from;
            for (int i = from; i < to; i++) {
                if (view.memberCount(i, SET) < view.memberCount(smallest, SET)) smallest = i;
            }
            List<Member> candidates = view.members(smallest, SET);
            List<byte[]> names = new ArrayList<>(candidates.size());
            for (Member m : candidates) names.add(m.name());
            boolean[] everywhere = new boolean[names.size()];
            Arrays.fill(everywhere, true);
            for (int i = from; i < to; i++) {
                if (i == smallest) continue;
                List<byte[]> found = view.getMembers(i, SET, names);
                for (int j = 0; j < names.size(); j++) everywhere[j] &= found.get(j) != null;
            }
            for (int j = 0; j < names.size(); j++) {
                if (limit > 0 && result.size() >= limit) break;
                if (everywhere[j]) result.add(new ByteKey(names.get(j)));
            }
            return result;
        }
        for (int i = from; i < to; i++) {
            if (!isSet(view.header(i))) continue;
            for (Member m : view.members(i, SET)) {
                ByteKey k = new ByteKey(m.name());
                if (op == Op.UNION || i == from) result.add(k);
                else result.remove(k);
            }
            if (op == Op.DIFF && result.isEmpty()) break;
        }
        return result;
    }
}
