package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;

import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Redis's set group on one key: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SPOP, SRANDMEMBER,
 * SSCAN (the commands over several sets are in {@link SetAlgebra}, registered with these). Writes go
 * through {@link StructureWrites}: one TxId per write that changes the set, replicated and answered in
 * the connection's mode. A read sees a key whose expiry has passed, or whose record is not complete (a
 * value still to come, or lost), as absent, as the string reads do; a key of another type answers
 * WRONGTYPE.
 */
final class SetCommands {
    static final ValueType SET = ValueType.SET;
    /** Redis's reply to a scan of a key it does not hold: cursor 0, no members. */
    private static final RedisMessage EMPTY_SCAN = Replies.array(List.of(Replies.bulk("0"), Replies.array(List.of())));
    /** Redis's {@code set-max-intset-entries}: a set of at most so many integers is an intset, kept sorted. */
    private static final int INTSET_ENTRIES = 512;

    private final CommandContext node;
    private final KeyGate gate;
    private final KvStore store;
    private final StructureWrites structures;
    private final Supplier<RandomGenerator> random;
    private final KeyEvents events;

    SetCommands(CommandContext node, KeyGate gate) {
        this(node, gate, ThreadLocalRandom::current);
    }

    /** With {@code random} as what SPOP and SRANDMEMBER draw from (a test's seeded generator). */
    SetCommands(CommandContext node, KeyGate gate, Supplier<RandomGenerator> random) {
        this.node = node;
        this.gate = gate;
        this.store = node.store();
        this.structures = node.structures();
        this.random = random;
        this.events = node.events();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // a step past the arguments: only the key (argument 1) passes the read gate
        int onlyKey = 1 << 20;
        t.add("SADD", -3, write, 1, 1, 1, gate.gated(true, onlyKey, this::sadd));
        t.add("SREM", -3, write, 1, 1, 1, gate.gated(true, onlyKey, this::srem));
        t.add("SMEMBERS", 2, read, 1, 1, 1, gate.gated(false, onlyKey, this::smembers));
        t.add("SISMEMBER", 3, read, 1, 1, 1, gate.gated(false, onlyKey, this::sismember));
        t.add("SMISMEMBER", -3, read, 1, 1, 1, gate.gated(false, onlyKey, this::smismember));
        t.add("SCARD", 2, read, 1, 1, 1, gate.gated(false, onlyKey, this::scard));
        t.add("SPOP", -2, write, 1, 1, 1, gate.gated(true, onlyKey, this::spop));
        t.addRun("SADD", new RunCommand() {
            @Override
            public boolean joins(byte[][] a) {
                return a.length >= 3; // SADD key member [member ...]
            }

            @Override
            public RedisMessage[] execute(Session s, byte[][][] run, int n) {
                return saddRun(s, run, n);
            }
        });
        t.addRun("SPOP", new RunCommand() {
            @Override
            public boolean joins(byte[][] a) {
                return a.length == 2; // SPOP key: one member
            }

            @Override
            public RedisMessage[] execute(Session s, byte[][][] run, int n) {
                return spopRun(s, run, n);
            }
        });
        t.add("SRANDMEMBER", -2, read, 1, 1, 1, gate.gated(false, onlyKey, this::srandmember));
        t.add("SSCAN", -3, read, 1, 1, 1, gate.gated(false, onlyKey, this::sscan));
        new SetAlgebra(node, gate, structures).register(t);
    }

    private RedisMessage sadd(Session s, byte[][] a) {
        List<Member> members = new ArrayList<>(a.length - 2);
        for (int i = 2; i < a.length; i++) members.add(Member.of(a[i]));
        Writes.Done<MemberWrite> d = structures.put(node.mode(s), s.lastWrite, a[1], SET, members, false);
        if (d.result().changed() > 0) events.emit(EventClasses.SET, "sadd", a[1]);
        return Replies.whenReplicated(d.replicated(), Replies.integer(d.result().changed()));
    }

    /**
     * A run of SADDs to one set ({@link CommandRuns}): one write of all their members. Each SADD is
     * answered with the members it added: those the set held neither before the run nor from a SADD
     * before it in the run (a member's previous value is the one just before its own put, {@link
     * MemberWrite#previous}).
     */
    private RedisMessage[] saddRun(Session s, byte[][][] run, int n) {
        List<Member> members = new ArrayList<>(n);
        for (byte[][] a : run) {
            for (int i = 2; i < a.length; i++) members.add(Member.of(a[i]));
        }
        Writes.Done<MemberWrite> d;
        try {
            d = structures.put(node.mode(s), s.lastWrite, run[0][1], SET, members, true);
        } catch (KvsException e) {
            return null; // not written (WRONGTYPE, not writable now): each SADD meets it alone
        }
        List<byte[]> previous = d.result().previous();
        RedisMessage[] out = new RedisMessage[n];
        int j = 0;
        for (int c = 0; c < n; c++) {
            int added = 0;
            for (int i = 2; i < run[c].length; i++) {
                if (previous.get(j++) == null) added++;
            }
            out[c] = Replies.whenReplicated(d.replicated(), Replies.integer(added));
        }
        return out;
    }

    /**
     * A run of SPOPs of one set ({@link CommandRuns}): one pop of as many members as there are SPOPs.
     * The first SPOPs get a member each, in the order drawn, and those after the set ran out nil.
     */
    private RedisMessage[] spopRun(Session s, byte[][][] run, int n) {
        Writes.Done<List<Member>> d;
        try {
            d = structures.pop(node.mode(s), s.lastWrite, run[0][1], SET, n, random.get());
        } catch (KvsException e) {
            return null; // not popped (WRONGTYPE, not writable now): each SPOP meets it alone
        }
        List<Member> popped = d.result();
        RedisMessage[] out = new RedisMessage[n];
        for (int i = 0; i < n; i++) {
            RedisMessage reply = i < popped.size() ? Replies.bulk(popped.get(i).name()) : Replies.NIL;
            out[i] = Replies.whenReplicated(d.replicated(), reply);
        }
        return out;
    }

    private RedisMessage srem(Session s, byte[][] a) {
        List<byte[]> names = Arrays.asList(a).subList(2, a.length);
        Writes.Done<MemberWrite> d = structures.remove(node.mode(s), s.lastWrite, a[1], SET, names, false);
        if (d.result().changed() > 0) events.emit(EventClasses.SET, "srem", a[1]);
        if (Records.emptied(d.result())) events.emit(GENERIC, "del", a[1]);
        return Replies.whenReplicated(d.replicated(), Replies.integer(d.result().changed()));
    }

    private RedisMessage smembers(Session s, byte[][] a) {
        if (!holdsSet(a[1])) return TypedReplies.set(List.of());
        List<byte[]> names = new ArrayList<>();
        for (Member m : store.members(a[1], SET)) names.add(m.name());
        return inRedisOrder(names);
    }

    private RedisMessage sismember(Session s, byte[][] a) {
        if (!holdsSet(a[1])) return Replies.ZERO;
        return store.getMembers(a[1], SET, List.of(a[2])).get(0) == null ? Replies.ZERO : Replies.ONE;
    }

    private RedisMessage smismember(Session s, byte[][] a) {
        List<byte[]> names = Arrays.asList(a).subList(2, a.length);
        boolean held = holdsSet(a[1]);
        List<byte[]> values = held ? store.getMembers(a[1], SET, names) : null;
        List<RedisMessage> out = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            out.add(held && values.get(i) != null ? Replies.ONE : Replies.ZERO);
        }
        return Replies.array(out);
    }

    private RedisMessage scard(Session s, byte[][] a) {
        return Replies.integer(holdsSet(a[1]) ? store.memberCount(a[1], SET) : 0);
    }

    /** SPOP key [count]: one member (or nil), or up to {@code count} in a set (an array in RESP2). */
    private RedisMessage spop(Session s, byte[][] a) {
        if (a.length > 3) return Replies.SYNTAX;
        long count = 1;
        if (a.length == 3) {
            Long n = Args.parseLong(a[2]);
            if (n == null || n < 0) return Replies.error("ERR value is out of range, must be positive");
            count = n;
            if (count == 0) {
                holdsSet(a[1]); // WRONGTYPE before the empty reply, as Redis
                return TypedReplies.set(List.of());
            }
        }
        int pick = (int) Math.min(count, Integer.MAX_VALUE);
        Writes.Done<List<Member>> d = structures.pop(node.mode(s), s.lastWrite, a[1], SET, pick, random.get());
        if (!d.result().isEmpty()) events.emit(EventClasses.SET, "spop", a[1]);
        if (!d.result().isEmpty() && events.on(GENERIC) && !Records.live(structures.live(a[1])))
            events.emit(GENERIC, "del", a[1]);
        RedisMessage reply;
        if (a.length == 2) {
            reply = d.result().isEmpty()
                    ? Replies.NIL
                    : Replies.bulk(d.result().get(0).name());
        } else {
            List<RedisMessage> out = new ArrayList<>(d.result().size());
            for (Member m : d.result()) out.add(Replies.bulk(m.name()));
            reply = TypedReplies.set(out);
        }
        return Replies.whenReplicated(d.replicated(), reply);
    }

    /**
     * SRANDMEMBER key [count]: one member (or nil); a positive count, up to that many distinct members; a
     * negative one, exactly that many, repeats allowed.
     */
    private RedisMessage srandmember(Session s, byte[][] a) {
        if (a.length > 3) return Replies.SYNTAX;
        if (a.length == 2) {
            if (!holdsSet(a[1])) return Replies.NIL;
            List<Member> one = store.randomMembers(a[1], SET, 1, true, random.get());
            return one.isEmpty() ? Replies.NIL : Replies.bulk(one.get(0).name());
        }
        Long n = Args.parseLong(a[2]);
        if (n == null) return Replies.error(StringCommands.NOT_INTEGER);
        if (n == Long.MIN_VALUE) {
            return Replies.error(
                    "ERR value is out of range, value must between -9223372036854775807 and " + "9223372036854775807");
        }
        if (!holdsSet(a[1]) || n == 0) return Replies.array(List.of());
        int count = (int) Math.min(Math.abs(n), Integer.MAX_VALUE);
        List<Member> picked = store.randomMembers(a[1], SET, count, n > 0, random.get());
        List<RedisMessage> out = new ArrayList<>(picked.size());
        for (Member m : picked) out.add(Replies.bulk(m.name()));
        return Replies.array(out);
    }

    /** SSCAN key cursor [MATCH pattern] [COUNT count], the cursor the store's ({@link KvStore#scanMembers}). */
    private RedisMessage sscan(Session s, byte[][] a) {
        Long cursor = KeyspaceCommands.parseCursor(a[2]);
        if (cursor == null) return Replies.error("ERR invalid cursor");
        if (!holdsSet(a[1])) { // cursor 0, no members, before the options are read, as Redis
            return Replies.array(List.of(Replies.bulk("0"), Replies.array(List.of())));
        }
        GlobPattern match = null;
        long count = 10;
        for (int i = 3; i < a.length; i += 2) {
            if (i + 1 >= a.length) return Replies.SYNTAX;
            String opt = Args.upper(a[i]);
            if (opt.equals("COUNT")) {
                Long n = Args.parseLong(a[i + 1]);
                if (n == null) return Replies.error(StringCommands.NOT_INTEGER);
                if (n < 1) return Replies.SYNTAX;
                count = n;
            } else if (opt.equals("MATCH")) {
                match = new GlobPattern(a[i + 1]);
            } else {
                return Replies.SYNTAX;
            }
        }
        GlobPattern filter = match == null || match.matchesAll() ? null : match;
        List<RedisMessage> out = new ArrayList<>();
        long next = store.scanMembers(a[1], SET, cursor, (int) Math.min(count, Integer.MAX_VALUE), (name, v) -> {
            if (filter == null || filter.matches(name)) out.add(Replies.bulk(name));
        });
        return Replies.array(List.of(Replies.bulk(Long.toUnsignedString(next)), Replies.array(out)));
    }

    /**
     * True if {@code key} holds a set a read sees: false if it holds nothing, its expiry has passed, or
     * its record is not complete (as a string read would answer nil).
     *
     * @throws WrongTypeException if it holds another type
     */
    private boolean holdsSet(byte[] key) {
        return isSet(structures.live(key));
    }

    /** As {@link #holdsSet}, from the key's header ({@code null}: absent or expired). */
    static boolean isSet(RecordHeader h) {
        if (h == null || h.state() != RecordState.COMPLETE) return false;
        if (h.type() != SET) throw new WrongTypeException(SET, h.type());
        return true;
    }

    /**
     * The members as a set reply (an array in RESP2), in the order Redis gives them where it has one: a set of at most
     * {@link #INTSET_ENTRIES} integers is an intset there, which replies in ascending order. Otherwise in
     * the store's order (Redis's hash table order is no order either).
     */
    static RedisMessage inRedisOrder(Collection<byte[]> names) {
        List<byte[]> ordered = new ArrayList<>(names);
        if (ordered.size() <= INTSET_ENTRIES && ordered.stream().allMatch(n -> Args.parseLong(n) != null)) {
            ordered.sort(Comparator.comparingLong(Args::parseLong));
        }
        List<RedisMessage> out = new ArrayList<>(ordered.size());
        for (byte[] n : ordered) out.add(Replies.bulk(n));
        return TypedReplies.set(out);
    }
}
