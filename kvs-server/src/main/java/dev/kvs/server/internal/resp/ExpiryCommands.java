package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;
import static dev.kvs.server.internal.resp.Records.complete;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.Write;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.function.LongPredicate;
import java.util.function.ToLongFunction;

/**
 * The expiry commands of Redis's generic group, with Redis 7's semantics, replies and error words:
 * {@code EXPIRE}, {@code PEXPIRE}, {@code EXPIREAT}, {@code PEXPIREAT} with {@code NX|XX|GT|LT};
 * {@code TTL}, {@code PTTL}, {@code EXPIRETIME}, {@code PEXPIRETIME}, {@code PERSIST}. The writes
 * that set a TTL with a value ({@code SET EX}, {@code SETEX}, {@code GETEX}...) are in {@link
 * StringCommands}.
 *
 * <p>Expiry is a property of the write: the primary turns every relative TTL into an absolute time
 * (epoch millis on its clock, the one of {@link Writes#clock()}) and stores it in the record; the key
 * packet and the value carry that time, so the backup expires the key at the same moment. Reads
 * treat a key whose time has passed as absent ({@link LiveReads}); active expiry removes it later.
 *
 * <p>A hash or set keeps its members when its expiry changes: a new header with the new expiry and a
 * new TxId ({@link StructureWrites#restamp}), replicated as a write of the structure. A change of an
 * existing string's expiry ({@code EXPIRE}, {@code PERSIST}, {@code GETEX} with an option) is written as
 * the key's value again with the new expiry and a new TxId: on the wire it is
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

    private final CommandContext node;
    private final KeyGate gate;
    private final Writes writes;
    private final LiveReads reads;
    private final StructureWrites structures;
    private final KeyEvents events;

    ExpiryCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.writes = node.writes();
        this.reads = node.reads();
        this.structures = node.structures();
        this.events = node.events();
    }

    void register(CommandTable t) {
        int read = CommandSpec.DATA;
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // a step past the arguments: only the key (argument 1) passes the read gate
        int onlyKey = 1 << 20;
        t.add("EXPIRE", -3, write, 1, 1, 1, gate.gated(true, onlyKey, (s, a) -> expire(s, a, 1000, false, "expire")));
        t.add("PEXPIRE", -3, write, 1, 1, 1, gate.gated(true, onlyKey, (s, a) -> expire(s, a, 1, false, "pexpire")));
        t.add(
                "EXPIREAT",
                -3,
                write,
                1,
                1,
                1,
                gate.gated(true, onlyKey, (s, a) -> expire(s, a, 1000, true, "expireat")));
        t.add("PEXPIREAT", -3, write, 1, 1, 1, gate.gated(true, onlyKey, (s, a) -> expire(s, a, 1, true, "pexpireat")));
        t.add("PERSIST", 2, write, 1, 1, 1, gate.gated(true, 1, this::persist));
        t.add("TTL", 2, read, 1, 1, 1, gate.gated(false, 1, (s, a) -> ttl(a[1], true)));
        t.add("PTTL", 2, read, 1, 1, 1, gate.gated(false, 1, (s, a) -> ttl(a[1], false)));
        t.add("EXPIRETIME", 2, read, 1, 1, 1, gate.gated(false, 1, (s, a) -> expireTime(a[1], true)));
        t.add("PEXPIRETIME", 2, read, 1, 1, 1, gate.gated(false, 1, (s, a) -> expireTime(a[1], false)));
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
                return Replies.error(SetOptions.invalidExpireTime(command));
            }
            when *= 1000;
        }
        long now = reads.nowMillis();
        long base = absolute ? 0 : now;
        if (when > Long.MAX_VALUE - base) return Replies.error(SetOptions.invalidExpireTime(command));
        long at = when + base;
        int f = flags;
        byte[] key = a[1];
        LongPredicate allowed = current -> { // current: NO_EXPIRY for none, an infinite TTL
            boolean has = current != RecordHeader.NO_EXPIRY;
            if ((f & NX) != 0 && has) return false;
            if ((f & XX) != 0 && !has) return false;
            if ((f & GT) != 0 && (!has || at <= current)) return false;
            return (f & LT) == 0 || !has || at < current;
        };
        if (at <= now) { // already expired: Redis deletes the key, of any type
            Writes.Done<Write> w = writes.update(node.mode(s), s.lastWrite, key, (h, order) -> {
                boolean complete = h != null && h.state() == RecordState.COMPLETE;
                return complete && allowed.test(h.expireAtMillis()) ? order.remove(key) : Write.keep();
            });
            if (w.result() instanceof Write.Remove) events.emit(GENERIC, "del", key);
            return Replies.whenReplicated(
                    w.replicated(), w.result() instanceof Write.Remove ? Replies.ONE : Replies.ZERO);
        }
        return setExpiry(s, key, h -> allowed.test(h.expireAtMillis()) ? at : KEEP, "expire");
    }

    private RedisMessage persist(Session s, byte[][] a) {
        return setExpiry(s, a[1], h -> h.hasExpiry() ? RecordHeader.NO_EXPIRY : KEEP, "persist");
    }

    /** What {@link #setExpiry}'s decision returns to leave the key as it is. */
    private static final long KEEP = -1;

    /**
     * Gives {@code key} the expiry {@code decide} returns for its complete record's header ({@link
     * #KEEP}: none is written): a string is written again with its value (see the class comment), a
     * hash or set gets a new header only, its members kept ({@link StructureWrites#restamp}). Each path
     * checks the type again under the key's lock and starts over if the key changed type meanwhile.
     *
     * @param event what a write is published as ({@code expire}, {@code persist})
     * @return 1 if written, else 0, when the connection's mode allows
     */
    private RedisMessage setExpiry(Session s, byte[] key, ToLongFunction<RecordHeader> decide, String event) {
        while (true) {
            boolean[] retry = new boolean[1];
            if (Records.structure(reads.header(key))) {
                boolean[] written = new boolean[1];
                Writes.Done<RecordHeader> w = structures.restamp(node.mode(s), s.lastWrite, key, (h, txId) -> {
                    if (!Records.structure(h)) {
                        retry[0] = h != null && h.state() == RecordState.COMPLETE; // a string now
                        return null;
                    }
                    long at = decide.applyAsLong(h);
                    if (at == KEEP) return null;
                    written[0] = true;
                    return h.withTxId(txId.apply(at)).withExpireAt(at);
                });
                if (retry[0]) continue;
                if (written[0]) events.emit(GENERIC, event, key);
                return Replies.whenReplicated(w.replicated(), written[0] ? Replies.ONE : Replies.ZERO);
            }
            Writes.Done<Write> w = writes.updateValue(node.mode(s), s.lastWrite, key, (v, order) -> {
                if (!complete(v)) return Write.keep();
                if (Records.structure(v.header())) { // a structure now
                    retry[0] = true;
                    return Write.keep();
                }
                long at = decide.applyAsLong(v.header());
                return at == KEEP ? Write.keep() : order.put(key, v.value(), at); // the value again
            });
            if (retry[0]) continue;
            if (w.result() instanceof Write.Put) events.emit(GENERIC, event, key);
            return Replies.whenReplicated(w.replicated(), w.result() instanceof Write.Put ? Replies.ONE : Replies.ZERO);
        }
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
}
