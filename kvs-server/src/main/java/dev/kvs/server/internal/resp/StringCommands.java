package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.Write;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The string and counter commands of Redis 7: INCR, DECR, INCRBY, DECRBY,
 * INCRBYFLOAT, APPEND, GETSET, GETDEL, SETNX, MSETNX, GETRANGE, SETRANGE, TYPE. Every read-modify-write
 * reads the current value and writes the new one in one {@link Writes#updateValue} (under the key's
 * lock, with its TxId), so it is atomic with other writes and replicated in order, and its reply waits
 * for replication as the connection's mode says, like SET's.
 */
final class StringCommands {
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String NOT_FLOAT = "ERR value is not a valid float";
    static final String OVERFLOW = "ERR increment or decrement would overflow";
    static final String TOO_BIG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    private static final SimpleStringRedisMessage STRING = new SimpleStringRedisMessage("string");
    private static final SimpleStringRedisMessage NONE = new SimpleStringRedisMessage("none");
    /** What Redis's {@code strtold} takes as a float, less hex floats; whitespace is refused, as in Redis. */
    private static final Pattern FLOAT =
            Pattern.compile("[+-]?((\\d+\\.?\\d*)|(\\.\\d+))([eE][+-]?\\d+)?|[+-]?(?i:inf|infinity)");

    private final DataCommands data;
    private final KvStore store;
    private final LiveReads reads;
    private final Writes writes;

    StringCommands(NodeContext node, DataCommands data) {
        this.data = data;
        this.store = node.store();
        this.reads = node.reads();
        this.writes = node.writes();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // the gate's step skips non-key arguments: only the key (argument 1) is checked
        t.add("INCR", 2, write, 1, 1, 1, data.gated(true, 1, (s, a) -> incrBy(s, a[1], 1)));
        t.add("DECR", 2, write, 1, 1, 1, data.gated(true, 1, (s, a) -> incrBy(s, a[1], -1)));
        t.add("INCRBY", 3, write, 1, 1, 1, data.gated(true, 2, this::incrBy));
        t.add("DECRBY", 3, write, 1, 1, 1, data.gated(true, 2, this::decrBy));
        t.add("INCRBYFLOAT", 3, write, 1, 1, 1, data.gated(true, 2, this::incrByFloat));
        t.add("APPEND", 3, write, 1, 1, 1, data.gated(true, 2, this::append));
        t.add("GETSET", 3, write, 1, 1, 1, data.gated(true, 2, this::getSet));
        t.add("GETDEL", 2, write, 1, 1, 1, data.gated(true, 1, this::getDel));
        t.add("SETNX", 3, write, 1, 1, 1, data.gated(true, 2, this::setNx));
        t.add("MSETNX", -3, write, 1, -1, 2, data.gated(true, 2, this::msetNx));
        t.add("GETRANGE", 4, read, 1, 1, 1, data.gated(false, 3, this::getRange));
        t.add("SETRANGE", 4, write, 1, 1, 1, data.gated(true, 3, this::setRange));
        t.add("TYPE", 2, read, 1, 1, 1, data.gated(false, 1, this::type));
    }

    private RedisMessage incrBy(Session s, byte[][] a) {
        Long by = Args.parseLong(a[2]);
        return by == null ? Replies.error(NOT_INTEGER) : incrBy(s, a[1], by);
    }

    private RedisMessage decrBy(Session s, byte[][] a) {
        Long by = Args.parseLong(a[2]);
        if (by == null) return Replies.error(NOT_INTEGER);
        if (by == Long.MIN_VALUE) return Replies.error("ERR decrement would overflow");
        return incrBy(s, a[1], -by);
    }

    private RedisMessage incrBy(Session s, byte[] key, long by) {
        String[] error = new String[1];
        long[] result = new long[1];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            long current = 0;
            if (complete(v)) {
                Long parsed = Args.parseLong(v.value());
                if (parsed == null) return refuse(error, NOT_INTEGER);
                current = parsed;
            }
            long next = current + by;
            if (((current ^ next) & (by ^ next)) < 0) return refuse(error, OVERFLOW);
            result[0] = next;
            return order.put(key, Long.toString(next).getBytes(StandardCharsets.US_ASCII), ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        return DataCommands.answer(w.replicated(), Replies.integer(result[0]));
    }

    private RedisMessage incrByFloat(Session s, byte[][] a) {
        Double by = parseDouble(a[2]);
        if (by == null) return Replies.error(NOT_FLOAT);
        byte[] key = a[1];
        String[] error = new String[1];
        byte[][] result = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            double current = 0;
            if (complete(v)) {
                Double parsed = parseDouble(v.value());
                if (parsed == null) return refuse(error, NOT_FLOAT);
                current = parsed;
            }
            double next = current + by;
            if (Double.isNaN(next) || Double.isInfinite(next)) {
                return refuse(error, "ERR increment would produce NaN or Infinity");
            }
            result[0] = formatDouble(next).getBytes(StandardCharsets.US_ASCII);
            return order.put(key, result[0], ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        return DataCommands.answer(w.replicated(), Replies.bulk(result[0]));
    }

    private RedisMessage append(Session s, byte[][] a) {
        byte[] key = a[1];
        String[] error = new String[1];
        long[] length = new long[1];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            byte[] old = complete(v) ? v.value() : new byte[0];
            long total = (long) old.length + a[2].length;
            if (total > maxValueBytes()) return refuse(error, TOO_BIG);
            byte[] next = Arrays.copyOf(old, (int) total);
            System.arraycopy(a[2], 0, next, old.length, a[2].length);
            length[0] = total;
            return order.put(key, next, ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        return DataCommands.answer(w.replicated(), Replies.integer(length[0]));
    }

    private RedisMessage getSet(Session s, byte[][] a) {
        byte[] key = a[1];
        byte[][] old = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            old[0] = complete(v) ? v.value() : null;
            return order.put(key, a[2]);
        });
        return DataCommands.answer(w.replicated(), old[0] == null ? Replies.NIL : Replies.bulk(old[0]));
    }

    private RedisMessage getDel(Session s, byte[][] a) {
        byte[] key = a[1];
        byte[][] old = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            if (!complete(v)) return Write.keep();
            old[0] = v.value();
            return order.remove(key);
        });
        return DataCommands.answer(w.replicated(), old[0] == null ? Replies.NIL : Replies.bulk(old[0]));
    }

    private RedisMessage setNx(Session s, byte[][] a) {
        byte[] key = a[1];
        Writes.Done<Write> w = writes.update(
                data.mode(s),
                s.lastWrite,
                key,
                (h, order) -> DataCommands.live(h) ? Write.keep() : order.put(key, a[2]));
        return DataCommands.answer(w.replicated(), w.result() instanceof Write.Put ? Replies.ONE : Replies.ZERO);
    }

    /** All or nothing: sets every pair if no key exists, else none. */
    private RedisMessage msetNx(Session s, byte[][] a) {
        if ((a.length - 1) % 2 != 0) return Replies.wrongArity("MSETNX");
        int n = (a.length - 1) / 2;
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) keys.add(a[1 + 2 * i]);
        boolean[] set = new boolean[1];
        Writes.Done<List<Write>> w = writes.updateAll(data.mode(s), s.lastWrite, keys, (headers, order) -> {
            List<Write> out = new ArrayList<>(n);
            for (RecordHeader h : headers) {
                if (DataCommands.live(h)) {
                    for (int i = 0; i < n; i++) out.add(Write.keep());
                    return out;
                }
            }
            for (int i = 0; i < n; i++) out.add(order.put(keys.get(i), a[2 + 2 * i]));
            set[0] = true;
            return out;
        });
        return DataCommands.answer(w.replicated(), set[0] ? Replies.ONE : Replies.ZERO);
    }

    /**
     * Redis 7's GETRANGE: negative offsets count from the end, the range is clamped to the value. Reads
     * only the range from the store (a few bytes of a 10 MiB value cost a few bytes), checked against the
     * header it was planned on: if the key was rewritten in between, the whole value is read once.
     */
    private RedisMessage getRange(Session s, byte[][] a) {
        Long start = Args.parseLong(a[2]), end = Args.parseLong(a[3]);
        if (start == null || end == null) return Replies.error(NOT_INTEGER);
        RecordHeader h = reads.header(a[1]);
        if (h == null || h.state() != RecordState.COMPLETE) return Replies.bulk(new byte[0]);
        long[] r = bounds(h.valueLength(), start, end);
        if (r == null) return Replies.bulk(new byte[0]);
        int n = (int) (r[1] - r[0] + 1);
        ByteBuffer out = ByteBuffer.allocate(n);
        RecordHeader read = store.readRange(a[1], (int) r[0], n, out);
        if (read != null && read.txId().equals(h.txId()) && !out.hasRemaining()) return Replies.bulk(out.array());
        StoredValue v = reads.get(a[1]); // rewritten meanwhile: the value as it is now, whole
        byte[] value = complete(v) ? v.value() : new byte[0];
        return Replies.bulk(range(value, start, end));
    }

    static byte[] range(byte[] value, long start, long end) {
        long[] r = bounds(value.length, start, end);
        return r == null ? new byte[0] : Arrays.copyOfRange(value, (int) r[0], (int) r[1] + 1);
    }

    /** The first and last index GETRANGE {@code start end} selects of a value of {@code len} bytes; null: none. */
    static long[] bounds(long len, long start, long end) {
        if (start < 0 && end < 0 && start > end) return null;
        if (start < 0) start = len + start;
        if (end < 0) end = len + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= len) end = len - 1;
        if (start > end || len == 0) return null;
        return new long[] {start, end};
    }

    /** Redis's SETRANGE: zero-pads up to {@code offset}; an empty value writes nothing. */
    private RedisMessage setRange(Session s, byte[][] a) {
        Long offset = Args.parseLong(a[2]);
        if (offset == null) return Replies.error(NOT_INTEGER);
        if (offset < 0) return Replies.error("ERR offset is out of range");
        byte[] key = a[1], patch = a[3];
        String[] error = new String[1];
        long[] length = new long[1];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            byte[] old = complete(v) ? v.value() : null;
            if (patch.length == 0) {
                length[0] = old == null ? 0 : old.length;
                return Write.keep();
            }
            long needed = offset + patch.length;
            if (needed > maxValueBytes()) return refuse(error, TOO_BIG);
            byte[] next = old == null ? new byte[(int) needed] : Arrays.copyOf(old, (int) Math.max(old.length, needed));
            System.arraycopy(patch, 0, next, (int) (long) offset, patch.length);
            length[0] = next.length;
            return order.put(key, next, ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        return DataCommands.answer(w.replicated(), Replies.integer(length[0]));
    }

    private RedisMessage type(Session s, byte[][] a) {
        RecordHeader h = reads.header(a[1]);
        return h != null && h.state() == RecordState.COMPLETE ? STRING : NONE;
    }

    private long maxValueBytes() {
        return store.config().maxValueBytes();
    }

    /**
     * The expiry a read-modify-write keeps: INCR, INCRBYFLOAT, APPEND and SETRANGE keep the key's TTL,
     * as in Redis (GETSET, SET and MSET clear it).
     */
    private static long ttlOf(StoredValue v) {
        return complete(v) ? v.expireAtMillis() : RecordHeader.NO_EXPIRY;
    }

    private static boolean complete(StoredValue v) {
        return v != null && v.state() == RecordState.COMPLETE;
    }

    private static Write refuse(String[] error, String text) {
        error[0] = text;
        return Write.keep();
    }

    /** A float as Redis's {@code strtold} reads it (no whitespace, no NaN); null if not one. */
    static Double parseDouble(byte[] b) {
        if (b.length == 0 || b.length > 5000) return null;
        String text = new String(b, StandardCharsets.ISO_8859_1);
        if (!FLOAT.matcher(text).matches()) return null;
        String t = text.toLowerCase(Locale.ROOT);
        if (t.endsWith("inf") || t.endsWith("infinity")) {
            return t.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        return Double.parseDouble(text);
    }

    /**
     * INCRBYFLOAT's reply as Redis writes it: no exponent, no trailing zeros ({@code 5200}, {@code
     * 10.6}); digits are the shortest that read back as the same double.
     */
    static String formatDouble(double d) {
        if (d == 0) return "0";
        return new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
    }
}
