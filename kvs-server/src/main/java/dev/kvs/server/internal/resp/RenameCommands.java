package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.notify.EventClasses.GENERIC;
import static dev.kvs.server.internal.resp.Records.live;

import dev.kvs.core.MemberCopy;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The commands of Redis's generic group that give one key's value to another: RENAME, RENAMENX, COPY,
 * for a key of any type. Each changes its keys in one TxId under both keys' locks.
 *
 * <p>A string moves or copies its value ({@link Writes#updateAll} over both keys: RENAME is replicated
 * as one key packet, the source deleted and the destination written, atomically on both nodes; COPY as
 * a write of the destination). A hash or set moves or copies its members in the store ({@link
 * StructureWrites#copy}): RENAME is replicated as a rename too (the backup moves its own members, or
 * waits for them under the new name), COPY as a write of the destination structure. The destination
 * keeps the source's expiry; whatever it held before, of any type, is replaced.
 */
final class RenameCommands {
    static final String NO_SUCH_KEY = "ERR no such key";
    static final String SAME_OBJECT = "ERR source and destination objects are the same";

    private final CommandContext node;
    private final KeyGate gate;
    private final Writes writes;
    private final StructureWrites structures;
    private final KeyEvents events;

    RenameCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.writes = node.writes();
        this.structures = node.structures();
        this.events = node.events();
    }

    void register(CommandTable t) {
        int write = CommandSpec.DATA | CommandSpec.WRITE;
        // both keys pass the read gate: a fenced source or destination refuses the command (COPY's
        // options are checked as keys too: harmless, as no key so named is fenced in practice)
        t.add("RENAME", 3, write, 1, 2, 1, gate.gated(true, 1, (s, a) -> rename(s, a, false)));
        t.add("RENAMENX", 3, write, 1, 2, 1, gate.gated(true, 1, (s, a) -> rename(s, a, true)));
        t.add("COPY", -3, write, 1, 2, 1, gate.gated(true, 1, this::copy));
    }

    /** What a decision under the keys' locks found, when it wrote nothing. */
    private enum Outcome {
        WRITTEN,
        /** The source is absent (or expired, or not complete). */
        NO_SOURCE,
        /** The destination exists and may not be replaced. */
        EXISTS,
        /** The source changed (value or type) since it was read: read it again. */
        CHANGED
    }

    private RedisMessage rename(Session s, byte[][] a, boolean nx) {
        byte[] src = a[1];
        byte[] dst = a[2];
        while (true) {
            StoredValue v = node.reads().get(src); // null if expired, as the write below sees it
            if (v == null || v.state() != RecordState.COMPLETE) return Replies.error(NO_SUCH_KEY);
            if (Arrays.equals(src, dst)) return nx ? Replies.ZERO : Replies.OK; // Redis: nothing to do
            Outcome[] outcome = {Outcome.WRITTEN};
            Writes.Done<?> w;
            if (Records.structure(v.header())) {
                w = structures.copy(node.mode(s), s.lastWrite, src, dst, (hs, hd, order) -> {
                    outcome[0] = decide(hs, hd, !nx, true);
                    if (outcome[0] != Outcome.WRITTEN) return null;
                    TxId t = order.renameStructure(src, dst, hs.expireAtMillis());
                    return MemberCopy.removingSource(copied(hs, t));
                });
            } else {
                RecordHeader seen = v.header();
                w = writes.updateAll(node.mode(s), s.lastWrite, List.of(src, dst), (h, order) -> {
                    outcome[0] =
                            Objects.equals(h.get(0), seen) ? decide(h.get(0), h.get(1), !nx, false) : Outcome.CHANGED;
                    if (outcome[0] != Outcome.WRITTEN) return List.of(Write.keep(), Write.keep());
                    return order.rename(src, dst, v.value(), v.header().expireAtMillis());
                });
            }
            switch (outcome[0]) {
                case CHANGED -> {
                    continue;
                }
                case NO_SOURCE -> {
                    return Replies.error(NO_SUCH_KEY);
                }
                case EXISTS -> {
                    return Replies.ZERO;
                }
                default -> {
                    events.emit(GENERIC, "rename_from", src);
                    events.emit(GENERIC, "rename_to", dst);
                    return Replies.whenReplicated(w.replicated(), nx ? Replies.ONE : Replies.OK);
                }
            }
        }
    }

    /** COPY source destination [DB destination-db] [REPLACE], as Redis 7's {@code copyCommand}. */
    private RedisMessage copy(Session s, byte[][] a) {
        boolean replace = false;
        for (int j = 3; j < a.length; j++) {
            String opt = Args.upper(a[j]);
            if (opt.equals("REPLACE")) {
                replace = true;
            } else if (opt.equals("DB") && j + 1 < a.length) {
                Long db = Args.parseLong(a[++j]);
                if (db == null) return Replies.error(StringCommands.NOT_INTEGER);
                if (db != 0) return Replies.error("ERR DB index is out of range (kvs has only db 0)");
            } else {
                return Replies.SYNTAX;
            }
        }
        byte[] src = a[1];
        byte[] dst = a[2];
        if (Arrays.equals(src, dst)) return Replies.error(SAME_OBJECT);
        boolean replacing = replace;
        while (true) {
            StoredValue v = node.reads().get(src);
            if (v == null || v.state() != RecordState.COMPLETE) return Replies.ZERO;
            Outcome[] outcome = {Outcome.WRITTEN};
            Writes.Done<?> w;
            if (Records.structure(v.header())) {
                w = structures.copy(node.mode(s), s.lastWrite, src, dst, (hs, hd, order) -> {
                    outcome[0] = decide(hs, hd, replacing, true);
                    if (outcome[0] != Outcome.WRITTEN) return null;
                    return MemberCopy.keepingSource(copied(hs, order.structure(dst, hs.type(), hs.expireAtMillis())));
                });
            } else {
                RecordHeader seen = v.header();
                w = writes.updateAll(node.mode(s), s.lastWrite, List.of(src, dst), (h, order) -> {
                    outcome[0] = Objects.equals(h.get(0), seen)
                            ? decide(h.get(0), h.get(1), replacing, false)
                            : Outcome.CHANGED;
                    if (outcome[0] != Outcome.WRITTEN) return List.of(Write.keep(), Write.keep());
                    return List.of(Write.keep(), order.put(dst, v.value(), seen.expireAtMillis()));
                });
            }
            switch (outcome[0]) {
                case CHANGED -> {
                    continue;
                }
                case NO_SOURCE, EXISTS -> {
                    return Replies.ZERO;
                }
                default -> {
                    events.emit(GENERIC, "copy_to", dst);
                    return Replies.whenReplicated(w.replicated(), Replies.ONE);
                }
            }
        }
    }

    /**
     * Whether a move or copy of {@code source} (a structure if {@code structure}, else a string already
     * checked unchanged) onto {@code destination} goes ahead, from both headers under the locks.
     */
    private static Outcome decide(RecordHeader source, RecordHeader destination, boolean replace, boolean structure) {
        if (source == null || source.state() != RecordState.COMPLETE) return Outcome.NO_SOURCE;
        if (Records.structure(source) != structure) return Outcome.CHANGED;
        if (!replace && live(destination)) return Outcome.EXISTS;
        return Outcome.WRITTEN;
    }

    /** The destination's header: the source's type and expiry, at {@code txId}. */
    private static RecordHeader copied(RecordHeader source, TxId txId) {
        return RecordHeader.structure(RecordState.COMPLETE, txId, source.type(), source.expireAtMillis());
    }
}
