package dev.kvs.server.internal.resp;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.Write;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.concurrent.CompletableFuture;

/**
 * Keys with a time to live, with Redis 7's semantics, replies and error words: {@code SET} with
 * {@code NX|XX}, {@code GET} and {@code EX|PX|EXAT|PXAT|KEEPTTL}; {@code SETEX}, {@code PSETEX}, {@code
 * GETEX}; {@code EXPIRE}, {@code PEXPIRE}, {@code EXPIREAT}, {@code PEXPIREAT} with {@code
 * NX|XX|GT|LT}; {@code TTL}, {@code PTTL}, {@code EXPIRETIME}, {@code PEXPIRETIME}, {@code PERSIST}.
 *
 * <p>Expiry is a property of the write: the primary turns every relative TTL into an absolute time
 * (epoch millis on its clock, {@link NodeContext#clock()}) and stores it in the record; the key
 * packet and the value carry that time, so the backup expires the key at the same moment. Reads
 * treat a key whose time has passed as absent ({@link LiveReads}); active expiry removes it later.
 *
 * <p>A change of an existing key's expiry ({@code EXPIRE}, {@code PERSIST}, {@code GETEX} with an
 * option) is written as the key's value again with the new expiry and a new TxId: on the wire it is
 * an ordinary {@code PUT} (key packet, then the value). That is the simplest representation that is
 * correct in every interleaving the backup can see: the value and its expiry always travel together
 * under one TxId, so the backup never has to match a metadata-only packet against a value that may
 * still be in flight, older, or conflated into a newer one, and fencing, resync and failback need
 * nothing new. The price: the value crosses the WAN again, and the key is unfinished on the backup
 * until it has (a metadata-only op would save both and is the optimisation to make if large values
 * get their TTLs changed often). An expiry set in the past deletes the key (a replicated delete).
 */
final class ExpiryCommands {
    private static final String NOT_INTEGER = StringCommands.NOT_INTEGER;

    private final DataCommands data;
    private final Writes writes;
    private final LiveReads reads;

    ExpiryCommands(NodeContext node, DataCommands data) {
        this.data = data;
        this.writes = node.writes();
        this.reads = node.reads();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // a step past the arguments: only the key (argument 1) passes the read gate
        int onlyKey = 1 << 20;
        t.add("SET", -3, write, 1, 1, 1, data.gated(true, onlyKey, this::set));
        t.add("SETEX", 4, write, 1, 1, 1, data.gated(true, onlyKey, (s, a) -> setEx(s, a, 1000, "setex")));
        t.add("PSETEX", 4, write, 1, 1, 1, data.gated(true, onlyKey, (s, a) -> setEx(s, a, 1, "psetex")));
        t.add("GETEX", -2, write, 1, 1, 1, data.gated(true, onlyKey, this::getEx));
        t.add("EXPIRE", -3, write, 1, 1, 1, data.gated(true, onlyKey, (s, a) -> expire(s, a, 1000, false, "expire")));
        t.add("PEXPIRE", -3, write, 1, 1, 1, data.gated(true, onlyKey, (s, a) -> expire(s, a, 1, false, "pexpire")));
        t.add(
                "EXPIREAT",
                -3,
                write,
                1,
                1,
                1,
                data.gated(true, onlyKey, (s, a) -> expire(s, a, 1000, true, "expireat")));
        t.add("PEXPIREAT", -3, write, 1, 1, 1, data.gated(true, onlyKey, (s, a) -> expire(s, a, 1, true, "pexpireat")));
        t.add("PERSIST", 2, write, 1, 1, 1, data.gated(true, 1, this::persist));
        t.add("TTL", 2, read, 1, 1, 1, data.gated(false, 1, (s, a) -> ttl(a[1], true)));
        t.add("PTTL", 2, read, 1, 1, 1, data.gated(false, 1, (s, a) -> ttl(a[1], false)));
        t.add("EXPIRETIME", 2, read, 1, 1, 1, data.gated(false, 1, (s, a) -> expireTime(a[1], true)));
        t.add("PEXPIRETIME", 2, read, 1, 1, 1, data.gated(false, 1, (s, a) -> expireTime(a[1], false)));
    }

    // ---- SET and its options

    /** The expiry options of SET and GETEX, as Redis's {@code parseExtendedStringArgumentsOrReply} reads them. */
    private static final class Options {
        boolean nx, xx, get, keepTtl, persist;
        /** {@code EX}, {@code PX}, {@code EXAT} or {@code PXAT}, or null. */
        String unit;

        byte[] expire;

        boolean hasExpire() {
            return unit != null;
        }

        /**
         * Parses {@code a[from..]}; false on a syntax error. As in Redis, a repeated option is taken
         * (the last value wins) and options of different kinds that contradict each other are not.
         */
        boolean parse(byte[][] a, int from, boolean isSet) {
            for (int j = from; j < a.length; j++) {
                String opt = Args.upper(a[j]);
                boolean hasNext = j + 1 < a.length;
                switch (opt) {
                    case "NX" -> {
                        if (!isSet || xx) return false;
                        nx = true;
                    }
                    case "XX" -> {
                        if (!isSet || nx) return false;
                        xx = true;
                    }
                    case "GET" -> {
                        if (!isSet) return false;
                        get = true;
                    }
                    case "KEEPTTL" -> {
                        if (!isSet || persist || hasExpire()) return false;
                        keepTtl = true;
                    }
                    case "PERSIST" -> {
                        if (isSet || keepTtl || hasExpire()) return false;
                        persist = true;
                    }
                    case "EX", "PX", "EXAT", "PXAT" -> {
                        if (keepTtl || persist || (unit != null && !unit.equals(opt)) || !hasNext) return false;
                        unit = opt;
                        expire = a[++j];
                    }
                    default -> {
                        return false;
                    }
                }
            }
            return true;
        }

        /**
         * The absolute expiry (epoch millis) the option's argument means at {@code now}, as Redis's
         * {@code getExpireMillisecondsOrReply}: an error text if it is not an integer, not positive,
         * or overflows.
         */
        Object expireAt(long now, String command) {
            return absoluteExpiry(
                    expire, unit.equals("EX") || unit.equals("EXAT") ? 1000 : 1, unit.length() == 2, now, command);
        }
    }

    /** Epoch millis for a SET/SETEX/GETEX expiry argument, or an error reply text. */
    static Object absoluteExpiry(byte[] arg, long unitMillis, boolean relative, long now, String command) {
        Long n = Args.parseLong(arg);
        if (n == null) return NOT_INTEGER;
        if (n <= 0 || (unitMillis == 1000 && n > Long.MAX_VALUE / 1000)) return invalidExpireTime(command);
        long at = n * unitMillis;
        if (relative) {
            if (at > Long.MAX_VALUE - now) return invalidExpireTime(command);
            at += now;
        }
        return at;
    }

    private static String invalidExpireTime(String command) {
        return "ERR invalid expire time in '" + command + "' command";
    }

    private RedisMessage set(Session s, byte[][] a) {
        Options o = new Options();
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
                    ? writes.putStaged(data.mode(s), s.lastWrite, key, staged.stage(), staged.checksum(), expireAt)
                    : writes.put(data.mode(s), s.lastWrite, key, value, expireAt); // no read
            return DataCommands.answer(written, Replies.OK);
        }
        long newExpiry = expireAt;
        if (staged != null && !o.get) { // decided from the key's header: the staged value is not copied
            Writes.Done<Boolean> w =
                    writes.putStagedIf(data.mode(s), s.lastWrite, key, staged.stage(), staged.checksum(), h -> {
                        boolean present = h != null && h.state() != RecordState.TOMBSTONE;
                        if ((o.nx && present) || (o.xx && !present)) return Writes.KEEP;
                        return o.keepTtl ? (present ? h.expireAtMillis() : RecordHeader.NO_EXPIRY) : newExpiry;
                    });
            return DataCommands.answer(w.replicated(), w.result() ? Replies.OK : Replies.NIL);
        }
        byte[] whole = staged != null ? staged.stage().toArray() : value; // GET: the old value is read
        byte[][] old = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            boolean present = v != null && v.state() != RecordState.TOMBSTONE;
            if (present && v.state() == RecordState.COMPLETE) old[0] = v.value();
            if ((o.nx && present) || (o.xx && !present)) return Write.keep();
            long at = o.keepTtl ? (present ? v.expireAtMillis() : RecordHeader.NO_EXPIRY) : newExpiry;
            return order.put(key, whole, at);
        });
        RedisMessage reply;
        if (o.get) reply = old[0] == null ? Replies.NIL : Replies.bulk(old[0]);
        else reply = w.result() instanceof Write.Put ? Replies.OK : Replies.NIL;
        return DataCommands.answer(w.replicated(), reply);
    }

    private RedisMessage setEx(Session s, byte[][] a, long unitMillis, String command) {
        Object at = absoluteExpiry(a[2], unitMillis, true, reads.nowMillis(), command);
        if (at instanceof String error) return Replies.error(error);
        return DataCommands.answer(writes.put(data.mode(s), s.lastWrite, a[1], a[3], (Long) at), Replies.OK);
    }

    private RedisMessage getEx(Session s, byte[][] a) {
        Options o = new Options();
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
            return complete(v) ? Replies.bulk(v.value()) : Replies.NIL;
        }
        long newExpiry = expireAt;
        byte[][] value = new byte[1][];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            if (!complete(v)) return Write.keep();
            value[0] = v.value();
            if (o.persist) return v.header().hasExpiry() ? order.put(key, v.value()) : Write.keep();
            if (newExpiry <= now) return order.remove(key); // already past: Redis deletes the key
            return order.put(key, v.value(), newExpiry);
        });
        return DataCommands.answer(w.replicated(), value[0] == null ? Replies.NIL : Replies.bulk(value[0]));
    }

    // ---- the EXPIRE family

    private static final int NX = 1, XX = 2, GT = 4, LT = 8;

    /** EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, as Redis 7's {@code expireGenericCommand}. */
    private RedisMessage expire(Session s, byte[][] a, long unitMillis, boolean absolute, String command) {
        int flags = 0;
        for (int j = 3; j < a.length; j++) {
            switch (Args.upper(a[j])) {
                case "NX" -> flags |= NX;
                case "XX" -> flags |= XX;
                case "GT" -> flags |= GT;
                case "LT" -> flags |= LT;
                default -> {
                    return Replies.error("ERR Unsupported option " + Args.text(a[j]));
                }
            }
        }
        if ((flags & NX) != 0 && (flags & (XX | GT | LT)) != 0) {
            return Replies.error("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if ((flags & GT) != 0 && (flags & LT) != 0) {
            return Replies.error("ERR GT and LT options at the same time are not compatible");
        }
        Long n = Args.parseLong(a[2]);
        if (n == null) return Replies.error(NOT_INTEGER);
        long when = n;
        if (unitMillis == 1000) {
            if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) {
                return Replies.error(invalidExpireTime(command));
            }
            when *= 1000;
        }
        long now = reads.nowMillis();
        long base = absolute ? 0 : now;
        if (when > Long.MAX_VALUE - base) return Replies.error(invalidExpireTime(command));
        long at = when + base;
        int f = flags;
        byte[] key = a[1];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            if (!complete(v)) return Write.keep();
            long current = v.expireAtMillis(); // NO_EXPIRY: none, an infinite TTL
            boolean has = current != RecordHeader.NO_EXPIRY;
            if ((f & NX) != 0 && has) return Write.keep();
            if ((f & XX) != 0 && !has) return Write.keep();
            if ((f & GT) != 0 && (!has || at <= current)) return Write.keep();
            if ((f & LT) != 0 && has && at >= current) return Write.keep();
            if (at <= now) return order.remove(key); // already expired: Redis deletes the key
            return order.put(key, v.value(), at);
        });
        boolean changed = !(w.result() instanceof Write.Keep);
        return DataCommands.answer(w.replicated(), changed ? Replies.ONE : Replies.ZERO);
    }

    private RedisMessage persist(Session s, byte[][] a) {
        byte[] key = a[1];
        Writes.Done<Write> w = writes.updateValue(data.mode(s), s.lastWrite, key, (v, order) -> {
            if (!complete(v) || !v.header().hasExpiry()) return Write.keep();
            return order.put(key, v.value()); // the value again, without expiry
        });
        return DataCommands.answer(w.replicated(), w.result() instanceof Write.Put ? Replies.ONE : Replies.ZERO);
    }

    /** TTL (seconds, rounded as Redis does) or PTTL: -2 if the key is absent, -1 if it has no expiry. */
    private RedisMessage ttl(byte[] key, boolean seconds) {
        RecordHeader h = reads.header(key);
        if (h == null || h.state() != RecordState.COMPLETE) return Replies.integer(-2);
        if (!h.hasExpiry()) return Replies.integer(-1);
        long left = Math.max(0, h.expireAtMillis() - reads.nowMillis());
        return Replies.integer(seconds ? (left + 500) / 1000 : left);
    }

    /** EXPIRETIME (unix seconds) or PEXPIRETIME (unix millis): -2 if absent, -1 without expiry. */
    private RedisMessage expireTime(byte[] key, boolean seconds) {
        RecordHeader h = reads.header(key);
        if (h == null || h.state() != RecordState.COMPLETE) return Replies.integer(-2);
        if (!h.hasExpiry()) return Replies.integer(-1);
        return Replies.integer(seconds ? h.expireAtMillis() / 1000 : h.expireAtMillis());
    }

    private static boolean complete(StoredValue v) {
        return v != null && v.state() == RecordState.COMPLETE;
    }
}
