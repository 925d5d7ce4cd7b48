package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import dev.kvs.server.internal.write.StructureWrites;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The reads of Redis's hash group ({@link HashCommands} has the writes): HGET, HMGET, HGETALL,
 * HEXISTS, HLEN, HSTRLEN, HKEYS, HVALS, HRANDFIELD, HSCAN.
 *
 * <p>A key reads as absent if its expiry has passed ({@link StructureWrites#live}) or if its record is
 * not complete (its members have not arrived: a {@code READONLY} read on a backup), as GET treats
 * such a string; the read gate ({@link KeyGate}) has already made a read of a fenced key wait or
 * refused it. A key of another type answers WRONGTYPE.
 */
final class HashReads {
    /** Redis's HSCAN default COUNT. */
    private static final int DEFAULT_COUNT = 10;

    private static final String COUNT_RANGE =
            "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";

    private final KvStore store;
    private final StructureWrites structures;

    HashReads(KvStore store, StructureWrites structures) {
        this.store = store;
        this.structures = structures;
    }

    void register(CommandTable t, KeyGate gate, int onlyKey) {
        int read = CommandSpec.DATA;
        t.add("HGET", 3, read, 1, 1, 1, gate.gated(false, onlyKey, this::hget));
        t.add("HMGET", -3, read, 1, 1, 1, gate.gated(false, onlyKey, this::hmget));
        t.add("HGETALL", 2, read, 1, 1, 1, gate.gated(false, onlyKey, (s, a) -> all(a[1], true, true)));
        t.add("HKEYS", 2, read, 1, 1, 1, gate.gated(false, onlyKey, (s, a) -> all(a[1], true, false)));
        t.add("HVALS", 2, read, 1, 1, 1, gate.gated(false, onlyKey, (s, a) -> all(a[1], false, true)));
        t.add("HEXISTS", 3, read, 1, 1, 1, gate.gated(false, onlyKey, this::hexists));
        t.add("HLEN", 2, read, 1, 1, 1, gate.gated(false, onlyKey, this::hlen));
        t.add("HSTRLEN", 3, read, 1, 1, 1, gate.gated(false, onlyKey, this::hstrlen));
        t.add("HRANDFIELD", -2, read, 1, 1, 1, gate.gated(false, onlyKey, this::hrandfield));
        t.add("HSCAN", -3, read, 1, 1, 1, gate.gated(false, onlyKey, this::hscan));
    }

    private RedisMessage hget(Session s, byte[][] a) {
        byte[] v = field(a[1], a[2]);
        return v == null ? Replies.NIL : Replies.bulk(v);
    }

    private RedisMessage hmget(Session s, byte[][] a) {
        List<byte[]> fields = Arrays.asList(a).subList(2, a.length);
        List<byte[]> values = read(a[1], () -> store.getMembers(a[1], ValueType.HASH, fields), null);
        List<RedisMessage> out = new ArrayList<>(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            byte[] v = values == null ? null : values.get(i);
            out.add(v == null ? Replies.NIL : Replies.bulk(v));
        }
        return Replies.array(out);
    }

    private RedisMessage hexists(Session s, byte[][] a) {
        return field(a[1], a[2]) == null ? Replies.ZERO : Replies.ONE;
    }

    private RedisMessage hstrlen(Session s, byte[][] a) {
        byte[] v = field(a[1], a[2]);
        return Replies.integer(v == null ? 0 : v.length);
    }

    private RedisMessage hlen(Session s, byte[][] a) {
        return Replies.integer(read(a[1], () -> store.memberCount(a[1], ValueType.HASH), 0L));
    }

    /** HGETALL (names and values, one after the other: a map), HKEYS, HVALS. */
    private RedisMessage all(byte[] key, boolean names, boolean values) {
        List<Member> members = read(key, () -> store.members(key, ValueType.HASH), List.of());
        List<RedisMessage> out = new ArrayList<>(members.size() * (names && values ? 2 : 1));
        for (Member m : members) {
            if (names) out.add(Replies.bulk(m.name()));
            if (values) out.add(Replies.bulk(m.value()));
        }
        return names && values ? TypedReplies.map(out) : Replies.array(out); // HGETALL: a map in RESP3
    }

    /**
     * HRANDFIELD key [count [WITHVALUES]]: a positive count picks distinct fields (at most all), a
     * negative one that many with repeats; Redis's range checks, in Redis's order (the count before
     * the key's type).
     */
    private RedisMessage hrandfield(Session s, byte[][] a) {
        byte[] key = a[1];
        if (a.length == 2) {
            List<Member> one = read(key, () -> pick(key, 1, true), List.of());
            return one.isEmpty() ? Replies.NIL : Replies.bulk(one.get(0).name());
        }
        Long count = Args.parseLong(a[2]);
        if (count == null) return Replies.error(StringCommands.NOT_INTEGER);
        if (count == Long.MIN_VALUE) return Replies.error(COUNT_RANGE);
        boolean withValues = a.length == 4;
        if (a.length > 4 || (withValues && !Args.upper(a[3]).equals("WITHVALUES"))) return Replies.SYNTAX;
        if (withValues && (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2)) {
            return Replies.error("ERR value is out of range");
        }
        // a reply of over 2^31 fields could not be sent anyway
        if (count < -Integer.MAX_VALUE) return Replies.error("ERR value is out of range");
        int n = (int) Math.min(Math.abs(count), Integer.MAX_VALUE);
        List<Member> picked = read(key, () -> pick(key, n, count >= 0), List.of());
        if (picked.isEmpty()) return ArrayRedisMessage.EMPTY_INSTANCE;
        List<RedisMessage> out = new ArrayList<>(picked.size());
        for (Member m : picked) {
            RedisMessage name = Replies.bulk(m.name());
            out.add(withValues ? new ArrayRedisMessage(List.of(name, Replies.bulk(m.value()))) : name);
        }
        // WITHVALUES: [field, value] pairs in RESP3, one flat array in RESP2
        return withValues ? new TypedReplies.PairsReply(out) : Replies.array(out);
    }

    private List<Member> pick(byte[] key, int count, boolean distinct) {
        return store.randomMembers(key, ValueType.HASH, count, distinct, ThreadLocalRandom.current());
    }

    /** HSCAN key cursor [MATCH pattern] [COUNT count]: the cursor is the store's ({@link KvStore#scanMembers}). */
    private RedisMessage hscan(Session s, byte[][] a) {
        byte[] key = a[1];
        Long cursor = KeyspaceCommands.parseCursor(a[2]);
        if (cursor == null) return Replies.error("ERR invalid cursor");
        // as Redis: a missing key's empty scan (or WRONGTYPE) comes before the options are read
        if (!held(key)) return Replies.array(List.of(Replies.bulk("0"), ArrayRedisMessage.EMPTY_INSTANCE));
        GlobPattern match = null;
        int count = DEFAULT_COUNT;
        for (int i = 3; i < a.length; i += 2) {
            if (i + 1 >= a.length) return Replies.SYNTAX;
            switch (Args.upper(a[i])) {
                case "MATCH" -> match = new GlobPattern(a[i + 1]);
                case "COUNT" -> {
                    Long n = Args.parseLong(a[i + 1]);
                    if (n == null) return Replies.error(StringCommands.NOT_INTEGER);
                    if (n < 1) return Replies.SYNTAX;
                    count = (int) Math.min(n, Integer.MAX_VALUE);
                }
                default -> {
                    return Replies.SYNTAX;
                }
            }
        }
        GlobPattern filter = match == null || match.matchesAll() ? null : match;
        List<RedisMessage> out = new ArrayList<>();
        int steps = count;
        long next = read(
                key,
                () -> store.scanMembers(key, ValueType.HASH, cursor, steps, (name, value) -> {
                    if (filter != null && !filter.matches(name)) return;
                    out.add(Replies.bulk(name));
                    out.add(Replies.bulk(value));
                }),
                0L);
        return Replies.array(List.of(Replies.bulk(Long.toUnsignedString(next)), Replies.array(out)));
    }

    /** The value of {@code name} in the hash at {@code key}, null if absent. */
    private byte[] field(byte[] key, byte[] name) {
        return read(
                key, () -> store.getMembers(key, ValueType.HASH, List.of(name)).get(0), null);
    }

    /**
     * True if {@code key} holds a hash reads may serve: not expired, complete.
     *
     * @throws WrongTypeException if it holds another type
     */
    private boolean held(byte[] key) {
        RecordHeader h = structures.live(key);
        if (h == null || h.state() != RecordState.COMPLETE) return false;
        if (h.type() != ValueType.HASH) throw new WrongTypeException(ValueType.HASH, h.type());
        return true;
    }

    /**
     * {@code read}'s result if {@code key} holds a hash reads may serve, else {@code absent}.
     *
     * @throws WrongTypeException if it holds another type
     */
    private <T> T read(byte[] key, Supplier<T> read, T absent) {
        if (!held(key)) return absent;
        try {
            return read.get();
        } catch (IllegalStateException e) {
            return absent; // a backup's record became unfinished since its header was read
        }
    }
}
