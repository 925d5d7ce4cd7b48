package dev.kvs.server.internal.resp;

import dev.kvs.core.ListLayout;
import dev.kvs.core.StructureChange;
import dev.kvs.server.internal.write.StructureWrites;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The reads of Redis's list group ({@link ListCommands} has the writes): LLEN, LRANGE, LINDEX, LPOS.
 * Each reads the list's bounds and elements in one step under the key's lock (nothing written), so it
 * sees one version of the list. A key reads as absent if its expiry has passed or its record is not
 * complete (a {@code READONLY} read on a backup whose list has not arrived), as a hash read does; a
 * key of another type answers WRONGTYPE.
 */
final class ListReads {
    private final CommandContext node;

    ListReads(CommandContext node) {
        this.node = node;
    }

    void register(CommandTable t, KeyGate gate, int onlyKey) {
        int read = CommandSpec.DATA;
        t.add("LLEN", 2, read, 1, 1, 1, gate.gated(false, onlyKey, this::llen));
        t.add("LRANGE", 4, read, 1, 1, 1, gate.gated(false, onlyKey, this::lrange));
        t.add("LINDEX", 3, read, 1, 1, 1, gate.gated(false, onlyKey, this::lindex));
        t.add("LPOS", -3, read, 1, 1, 1, gate.gated(false, onlyKey, this::lpos));
    }

    private RedisMessage llen(Session s, byte[][] a) {
        return read(a[1], list -> Replies.integer(list.size()));
    }

    private RedisMessage lrange(Session s, byte[][] a) {
        Long start = Args.parseLong(a[2]);
        Long end = Args.parseLong(a[3]);
        if (start == null || end == null) return Replies.error(StringCommands.NOT_INTEGER);
        return read(a[1], list -> {
            long llen = list.size();
            long from = start < 0 ? llen + start : start;
            long to = end < 0 ? llen + end : end;
            if (from < 0) from = 0;
            if (from > to || from >= llen) return ArrayRedisMessage.EMPTY_INSTANCE;
            if (to >= llen) to = llen - 1;
            List<RedisMessage> out = new ArrayList<>();
            for (byte[] v : list.range(from, to + 1)) out.add(Replies.bulk(v));
            return Replies.array(out);
        });
    }

    private RedisMessage lindex(Session s, byte[][] a) {
        return read(a[1], list -> {
            if (list.size() == 0) return Replies.NIL;
            Long index = Args.parseLong(a[2]);
            if (index == null) return Replies.error(StringCommands.NOT_INTEGER);
            byte[] v = list.get(index < 0 ? list.size() + index : index);
            return v == null ? Replies.NIL : Replies.bulk(v);
        });
    }

    /** LPOS key element [RANK rank] [COUNT count] [MAXLEN len], as Redis 7.0.15's lposCommand. */
    private RedisMessage lpos(Session s, byte[][] a) {
        long rank = 1, count = -1, maxlen = 0;
        for (int j = 3; j < a.length; j++) {
            String opt = Args.upper(a[j]);
            boolean more = j < a.length - 1;
            if (opt.equals("RANK") && more) {
                Long r = Args.parseLong(a[++j]);
                if (r == null) return Replies.error(StringCommands.NOT_INTEGER);
                if (r == 0) {
                    return Replies.error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the"
                            + " second ... or use negative to start from the end of the list");
                }
                rank = r;
            } else if (opt.equals("COUNT") && more) {
                Long c = Args.parseLong(a[++j]);
                if (c == null || c < 0) return Replies.error("ERR COUNT can't be negative");
                count = c;
            } else if (opt.equals("MAXLEN") && more) {
                Long m = Args.parseLong(a[++j]);
                if (m == null || m < 0) return Replies.error("ERR MAXLEN can't be negative");
                maxlen = m;
            } else {
                return Replies.SYNTAX;
            }
        }
        boolean fromTail = rank < 0;
        long r = fromTail ? -rank : rank; // -Long.MIN_VALUE stays negative, as in Redis's C
        long c = count, max = maxlen;
        byte[] element = a[2];
        return read(
                a[1],
                list -> {
                    List<byte[]> all = list.all();
                    long llen = all.size();
                    List<RedisMessage> found = new ArrayList<>();
                    long matches = 0;
                    for (long index = 0; index < llen && (max == 0 || index < max); index++) {
                        long at = fromTail ? llen - index - 1 : index;
                        if (!Arrays.equals(all.get((int) at), element)) continue;
                        matches++;
                        if (matches >= r) {
                            if (c == -1) return Replies.integer(at);
                            found.add(Replies.integer(at));
                            if (c != 0 && matches - r + 1 >= c) break;
                        }
                    }
                    return c == -1 ? Replies.NIL : Replies.array(found);
                },
                count == -1 ? Replies.NIL : ArrayRedisMessage.EMPTY_INSTANCE);
    }

    private RedisMessage read(byte[] key, Function<ListLayout, RedisMessage> fn) {
        return read(key, fn, null);
    }

    /**
     * {@code fn}'s reply on the list at {@code key}, read under its lock; {@code absent} (or {@code fn}
     * on an empty list if null) when the key holds no list reads may serve.
     */
    private RedisMessage read(byte[] key, Function<ListLayout, RedisMessage> fn, RedisMessage absent) {
        long now = node.reads().nowMillis();
        RedisMessage[] reply = new RedisMessage[1];
        try {
            node.store().updateStructures(List.of(key), view -> {
                ListLayout list = ListLayout.of(StructureWrites.unexpired(view, now), 0);
                reply[0] = list.size() == 0 && absent != null ? absent : fn.apply(list);
                return List.of(StructureChange.keep());
            });
        } catch (IllegalStateException e) {
            // a backup's list that has not arrived (or became unfinished) reads as absent
            reply[0] = absent != null ? absent : fn.apply(ListLayout.empty());
        }
        return reply[0];
    }
}
