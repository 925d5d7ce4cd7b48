package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;
import static dev.kvs.server.internal.notify.EventClasses.STRING;
import static dev.kvs.server.internal.resp.Records.complete;
import static dev.kvs.server.internal.resp.Records.live;
import static dev.kvs.server.internal.resp.Records.requireString;
import static dev.kvs.server.internal.resp.Records.ttlOf;

import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.ValueRead;
import dev.kvs.core.Write;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Redis's string group (the counters are in {@link CounterCommands}): GET, MGET, SET with its options
 * ({@link SetOptions}), SETNX, SETEX, PSETEX, GETEX, GETSET, GETDEL, MSET, MSETNX, STRLEN, APPEND,
 * GETRANGE (and its old name SUBSTR), SETRANGE. A command that reads or modifies a string answers
 * {@code WRONGTYPE} when the key holds a hash or set ({@link Records#requireString}); MGET answers nil
 * for it; SET, SETEX, PSETEX and MSET replace a key of any type (the store frees its members), and
 * SETNX, MSETNX and SET NX see a hash or set as an existing key.
 *
 * <p>Reads go through {@link LiveReads}: a key whose expiry has passed is absent. A read-modify-write reads the current value and writes the new one in one {@link
 * Writes#updateValue} (under the key's lock, with its TxId), so it is atomic with other writes and
 * replicated in order; every write's reply waits for replication as the connection's mode says.
 *
 * <p>Expiry is a property of the write: the primary turns a relative TTL into an absolute time (epoch
 * millis on its clock) stored in the record, which the key packet and the value carry (see {@link
 * ExpiryCommands}).
 */
final class StringCommands {
    static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    static final String TOO_BIG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";

    private final CommandContext node;
    private final KeyGate gate;
    private final KvStore store;
    private final LiveReads reads;
    private final Writes writes;
    private final KeyEvents events;

    StringCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.store = node.store();
        this.reads = node.reads();
        this.writes = node.writes();
        this.events = node.events();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // a step past the arguments: only the key (argument 1) passes the read gate
        int onlyKey = 1 << 20;
        t.add("GET", 2, read, 1, 1, 1, gate.gated(false, 1, this::get));
        t.add("MGET", -2, read, 1, -1, 1, gate.gated(false, 1, this::mget));
        t.add("SET", -3, write, 1, 1, 1, gate.gated(true, onlyKey, this::set));
        t.addRun("SET", new RunCommand() {
            @Override
            public boolean joins(byte[][] a) {
                return a.length == 3; // SET key value: no option reads the key or keeps its expiry
            }

            @Override
            public RedisMessage[] execute(Session s, byte[][][] run, int n) {
                return setRun(s, run, n);
            }
        });
        t.add("SETEX", 4, write, 1, 1, 1, gate.gated(true, onlyKey, (s, a) -> setEx(s, a, 1000, "setex")));
        t.add("PSETEX", 4, write, 1, 1, 1, gate.gated(true, onlyKey, (s, a) -> setEx(s, a, 1, "psetex")));
        t.add("GETEX", -2, write, 1, 1, 1, gate.gated(true, onlyKey, this::getEx));
        t.add("MSET", -3, write, 1, -1, 2, gate.gated(true, 2, this::mset));
        t.add("STRLEN", 2, read, 1, 1, 1, gate.gated(false, 1, this::strlen));
        // the gate's step skips non-key arguments: only the key (argument 1) is checked
        t.add("APPEND", 3, write, 1, 1, 1, gate.gated(true, 2, this::append));
        t.add("GETSET", 3, write, 1, 1, 1, gate.gated(true, 2, this::getSet));
        t.add("GETDEL", 2, write, 1, 1, 1, gate.gated(true, 1, this::getDel));
        t.add("SETNX", 3, write, 1, 1, 1, gate.gated(true, 2, this::setNx));
        t.add("MSETNX", -3, write, 1, -1, 2, gate.gated(true, 2, this::msetNx));
        t.add("GETRANGE", 4, read, 1, 1, 1, gate.gated(false, 3, this::getRange));
        t.add("SUBSTR", 4, read, 1, 1, 1, gate.gated(false, 3, this::getRange)); // Redis's old name of GETRANGE
        t.add("SETRANGE", 4, write, 1, 1, 1, gate.gated(true, 3, this::setRange));
    }

    /**
     * A long value is copied by the store straight into a pooled direct buffer that becomes the reply,
     * a short one into the connection's reply batch ({@link DirectValues}).
     */
    private RedisMessage get(Session s, byte[][] a) {
        DirectValues sink = DirectValues.one(s.alloc, s.replyEncoder);
        try {
            ValueRead r = store.readValue(a[1], sink);
            if (!readable(r)) {
                sink.skip(r);
                if (r != null && !reads.expired(r.header())) requireString(r.header());
                return Replies.NIL;
            }
            return sink.bulk(r);
        } catch (RuntimeException e) {
            sink.releaseAll();
            throw e;
        }
    }

    /**
     * Whether GET and MGET reply with the value of {@code r} (or nil: also if it expired, and for a hash
     * or set, which MGET answers with nil and GET with WRONGTYPE): the one place of that check.
     */
    private boolean readable(ValueRead r) {
        return r != null
                && r.state() == RecordState.COMPLETE
                && !r.header().type().isStructure()
                && !reads.expired(r.header());
    }

    private RedisMessage mget(Session s, byte[][] a) {
        DirectValues sink = DirectValues.many(s.alloc);
        List<RedisMessage> out = new ArrayList<>(a.length - 1);
        try {
            List<ValueRead> values = store.readAll(Arrays.asList(a).subList(1, a.length), sink);
            for (ValueRead r : values) {
                if (readable(r)) {
                    out.add(sink.bulk(r));
                } else {
                    sink.skip(r);
                    out.add(Replies.NIL);
                }
            }
            return Replies.array(out);
        } catch (RuntimeException e) {
            sink.releaseAll();
            out.forEach(ReferenceCountUtil::release);
            throw e;
        }
    }

    private RedisMessage set(Session s, byte[][] a) {
        SetOptions o = new SetOptions();
        if (!o.parse(a, 3, true)) return Replies.SYNTAX;
        long expireAt = RecordHeader.NO_EXPIRY;
        if (o.hasExpire()) {
            Object at = o.expireAt(reads.nowMillis(), "set");
            if (at instanceof String error) return Replies.error(error);
            expireAt = (Long) at;
        }
        byte[] key = a[1], value = a[2];
        RespCommand.Staged staged = null;
        if (value == RespCommand.STAGED_ARG) { // its bytes went into the store as they arrived
            staged = s.staged;
            if (staged == null) return Replies.error("ERR the value of this SET is no longer held");
        }
        if (!o.nx && !o.xx && !o.get && !o.keepTtl) {
            CompletableFuture<Void> written = staged != null
                    ? writes.putStaged(node.mode(s), s.lastWrite, key, staged.stage(), staged.checksum(), expireAt)
                    : writes.put(node.mode(s), s.lastWrite, key, value, expireAt); // no read
            events.emit(STRING, "set", key);
            if (o.hasExpire()) events.emit(GENERIC, "expire", key);
            return Replies.whenReplicated(written, Replies.OK);
        }
        long newExpiry = expireAt;
        if (staged != null && !o.get) { // decided from the key's header: the staged value is not copied
            Writes.Done<Boolean> w =
                    writes.putStagedIf(node.mode(s), s.lastWrite, key, staged.stage(), staged.checksum(), h -> {
                        boolean present = h != null && h.state() != RecordState.TOMBSTONE;
                        if ((o.nx && present) || (o.xx && !present)) return Writes.KEEP;
                        return o.keepTtl ? (present ? h.expireAtMillis() : RecordHeader.NO_EXPIRY) : newExpiry;
                    });
            if (w.result()) events.emit(STRING, "set", key);
            if (w.result() && o.hasExpire()) events.emit(GENERIC, "expire", key);
            return Replies.whenReplicated(w.replicated(), w.result() ? Replies.OK : Replies.NIL);
        }
        byte[] whole = staged != null ? staged.stage().toArray() : value; // GET: the old value is read
        byte[][] old = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            if (o.get) requireString(v); // SET ... GET reads the old value first, as GET does
            boolean present = v != null && v.state() != RecordState.TOMBSTONE;
            if (present && v.state() == RecordState.COMPLETE) old[0] = v.value();
            if ((o.nx && present) || (o.xx && !present)) return Write.keep();
            long at = o.keepTtl ? (present ? v.expireAtMillis() : RecordHeader.NO_EXPIRY) : newExpiry;
            return order.put(key, whole, at);
        });
        if (w.result() instanceof Write.Put) events.emit(STRING, "set", key);
        if (w.result() instanceof Write.Put && o.hasExpire()) events.emit(GENERIC, "expire", key);
        RedisMessage reply;
        if (o.get) reply = old[0] == null ? Replies.NIL : Replies.bulk(old[0]);
        else reply = w.result() instanceof Write.Put ? Replies.OK : Replies.NIL;
        return Replies.whenReplicated(w.replicated(), reply);
    }

    /**
     * A run of plain SETs of one key ({@link CommandRuns}): one write, of the last value, which is what
     * the run would leave; each SET is answered as that write is (OK once it is replicated as the mode
     * asks).
     */
    private RedisMessage[] setRun(Session s, byte[][][] run, int n) {
        byte[][] last = run[n - 1];
        CompletableFuture<Void> written;
        try {
            written = writes.put(node.mode(s), s.lastWrite, last[1], last[2], RecordHeader.NO_EXPIRY);
        } catch (KvsException e) {
            return null; // not written (not writable now, no room): each SET meets it alone
        }
        RedisMessage[] out = new RedisMessage[n];
        for (int i = 0; i < n; i++) out[i] = Replies.whenReplicated(written, Replies.OK);
        return out;
    }

    private RedisMessage setEx(Session s, byte[][] a, long unitMillis, String command) {
        Object at = SetOptions.absoluteExpiry(a[2], unitMillis, true, reads.nowMillis(), command);
        if (at instanceof String error) return Replies.error(error);
        CompletableFuture<Void> written = writes.put(node.mode(s), s.lastWrite, a[1], a[3], (Long) at);
        events.emit(STRING, "set", a[1]);
        events.emit(GENERIC, "expire", a[1]);
        return Replies.whenReplicated(written, Replies.OK);
    }

    private RedisMessage getEx(Session s, byte[][] a) {
        SetOptions o = new SetOptions();
        if (!o.parse(a, 2, false)) return Replies.SYNTAX;
        long now = reads.nowMillis();
        long expireAt = RecordHeader.NO_EXPIRY;
        if (o.hasExpire()) {
            Object at = o.expireAt(now, "getex");
            if (at instanceof String error) return Replies.error(error);
            expireAt = (Long) at;
        }
        byte[] key = a[1];
        if (!o.hasExpire() && !o.persist) { // a read
            StoredValue v = reads.get(key);
            requireString(v);
            return complete(v) ? Replies.bulk(v.value()) : Replies.NIL;
        }
        long newExpiry = expireAt;
        byte[][] value = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
            if (!complete(v)) return Write.keep();
            value[0] = v.value();
            if (o.persist) return v.header().hasExpiry() ? order.put(key, v.value()) : Write.keep();
            if (newExpiry <= now) return order.remove(key); // already past: Redis deletes the key
            return order.put(key, v.value(), newExpiry);
        });
        if (w.result() instanceof Write.Remove) events.emit(GENERIC, "del", key);
        if (w.result() instanceof Write.Put) events.emit(GENERIC, o.persist ? "persist" : "expire", key);
        return Replies.whenReplicated(w.replicated(), value[0] == null ? Replies.NIL : Replies.bulk(value[0]));
    }

    private RedisMessage mset(Session s, byte[][] a) {
        if ((a.length - 1) % 2 != 0) return Replies.wrongArity("MSET");
        int n = (a.length - 1) / 2;
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) keys.add(a[1 + 2 * i]);
        Writes.Done<List<Write>> w = writes.updateAll(node.mode(s), s.lastWrite, keys, (headers, order) -> {
            List<Write> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(order.put(keys.get(i), a[2 + 2 * i]));
            return out;
        });
        for (byte[] key : keys) events.emit(STRING, "set", key);
        return Replies.whenReplicated(w.replicated(), Replies.OK);
    }

    private RedisMessage strlen(Session s, byte[][] a) {
        RecordHeader h = reads.header(a[1]);
        requireString(h);
        return Replies.integer(h == null || h.state() != RecordState.COMPLETE ? 0 : h.valueLength());
    }

    private RedisMessage append(Session s, byte[][] a) {
        byte[] key = a[1];
        String[] error = new String[1];
        long[] length = new long[1];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
            byte[] old = complete(v) ? v.value() : new byte[0];
            long total = (long) old.length + a[2].length;
            if (total > maxValueBytes()) return refuse(error, TOO_BIG);
            byte[] next = Arrays.copyOf(old, (int) total);
            System.arraycopy(a[2], 0, next, old.length, a[2].length);
            length[0] = total;
            return order.put(key, next, ttlOf(v));
        });
        if (error[0] != null) return Replies.error(error[0]);
        events.emit(STRING, "append", key);
        return Replies.whenReplicated(w.replicated(), Replies.integer(length[0]));
    }

    private RedisMessage getSet(Session s, byte[][] a) {
        byte[] key = a[1];
        byte[][] old = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
            old[0] = complete(v) ? v.value() : null;
            return order.put(key, a[2]);
        });
        events.emit(STRING, "set", key);
        return Replies.whenReplicated(w.replicated(), old[0] == null ? Replies.NIL : Replies.bulk(old[0]));
    }

    private RedisMessage getDel(Session s, byte[][] a) {
        byte[] key = a[1];
        byte[][] old = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
            if (!complete(v)) return Write.keep();
            old[0] = v.value();
            return order.remove(key);
        });
        if (w.result() instanceof Write.Remove) events.emit(GENERIC, "del", key);
        return Replies.whenReplicated(w.replicated(), old[0] == null ? Replies.NIL : Replies.bulk(old[0]));
    }

    private RedisMessage setNx(Session s, byte[][] a) {
        byte[] key = a[1];
        Writes.Done<Write> w = writes.update(
                node.mode(s), s.lastWrite, key, (h, order) -> live(h) ? Write.keep() : order.put(key, a[2]));
        if (w.result() instanceof Write.Put) events.emit(STRING, "set", key);
        return Replies.whenReplicated(w.replicated(), w.result() instanceof Write.Put ? Replies.ONE : Replies.ZERO);
    }

    /** All or nothing: sets every pair if no key exists, else none. */
    private RedisMessage msetNx(Session s, byte[][] a) {
        if ((a.length - 1) % 2 != 0) return Replies.wrongArity("MSETNX");
        int n = (a.length - 1) / 2;
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) keys.add(a[1 + 2 * i]);
        boolean[] set = new boolean[1];
        Writes.Done<List<Write>> w = writes.updateAll(node.mode(s), s.lastWrite, keys, (headers, order) -> {
            List<Write> out = new ArrayList<>(n);
            for (RecordHeader h : headers) {
                if (live(h)) {
                    for (int i = 0; i < n; i++) out.add(Write.keep());
                    return out;
                }
            }
            for (int i = 0; i < n; i++) out.add(order.put(keys.get(i), a[2 + 2 * i]));
            set[0] = true;
            return out;
        });
        if (set[0]) for (byte[] key : keys) events.emit(STRING, "set", key);
        return Replies.whenReplicated(w.replicated(), set[0] ? Replies.ONE : Replies.ZERO);
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
        requireString(h);
        if (h == null || h.state() != RecordState.COMPLETE) return Replies.bulk(new byte[0]);
        long[] r = bounds(h.valueLength(), start, end);
        if (r == null) return Replies.bulk(new byte[0]);
        int n = (int) (r[1] - r[0] + 1);
        ByteBuffer out = ByteBuffer.allocate(n);
        RecordHeader read = store.readRange(a[1], (int) r[0], n, out);
        if (read != null && read.txId().equals(h.txId()) && !out.hasRemaining()) return Replies.bulk(out.array());
        StoredValue v = reads.get(a[1]); // rewritten meanwhile: the value as it is now, whole
        requireString(v);
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
        Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
            requireString(v);
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
        if (w.result() instanceof Write.Put) events.emit(STRING, "setrange", key);
        return Replies.whenReplicated(w.replicated(), Replies.integer(length[0]));
    }

    private long maxValueBytes() {
        return store.config().maxValueBytes();
    }

    /** Leaves the key as it is and says why: {@code text} is the command's error reply. */
    private static Write refuse(String[] error, String text) {
        error[0] = text;
        return Write.keep();
    }
}
