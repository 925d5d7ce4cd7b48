package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.ValueType;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.List;

/**
 * OBJECT ENCODING: Redis's name of the encoding Redis 7.0 would give the key's value, at its default
 * thresholds. kvs keeps every value one way (a string as bytes, a hash or set in pages), so the answer
 * is what Redis would hold for the same contents:
 *
 * <ul>
 *   <li>a string: {@code int} if it is a canonical 64-bit integer of at most 20 characters, {@code embstr}
 *       up to 44 bytes, else {@code raw} (Redis also makes {@code raw} of any string APPEND or SETRANGE
 *       wrote, whatever its length: not tracked here);
 *   <li>a hash: {@code listpack} while it has at most 128 fields ({@code hash-max-listpack-entries}) and
 *       no field or value is longer than 64 bytes ({@code hash-max-listpack-value}), else {@code
 *       hashtable};
 *   <li>a set: {@code intset} while it has at most 512 members ({@code set-max-intset-entries}), every
 *       one a canonical 64-bit integer, else {@code hashtable}.
 * </ul>
 *
 * Redis never converts a hashtable back, so a hash or set that once passed a threshold and shrank again
 * is {@code hashtable} in Redis and may be {@code listpack}/{@code intset} here: the answer follows the
 * contents, not the history. It costs the header's member count, and for a structure under the
 * threshold a read of its members (at most 512). The other OBJECT subcommands (FREQ, IDLETIME,
 * REFCOUNT) track what kvs does not, and are refused as unknown.
 */
final class ObjectCommands {
    static final int HASH_MAX_LISTPACK_ENTRIES = 128;
    static final int HASH_MAX_LISTPACK_VALUE = 64;
    static final int SET_MAX_INTSET_ENTRIES = 512;
    /** Redis's {@code OBJ_ENCODING_EMBSTR_SIZE_LIMIT}. */
    static final int EMBSTR_SIZE_LIMIT = 44;

    private final CommandContext node;
    private final KeyGate gate;
    private final KvStore store;

    ObjectCommands(CommandContext node, KeyGate gate) {
        this.node = node;
        this.gate = gate;
        this.store = node.store();
    }

    void register(CommandTable t) {
        // the key is argument 2; the gate checks the subcommand's name too, as no key so named is fenced
        t.add("OBJECT", -2, CommandSpec.DATA, 0, 0, 0, gate.gated(false, 1, this::object));
        t.addSubcommandKey("OBJECT", "ENCODING", 2);
    }

    private RedisMessage object(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        if (!sub.equals("ENCODING")) {
            return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try OBJECT HELP.");
        }
        if (a.length != 3) return Replies.wrongArity("object|encoding");
        StoredValue v = node.reads().get(a[2]); // null if expired
        if (v == null || v.state() != RecordState.COMPLETE) return Replies.NIL;
        return new SimpleStringRedisMessage(encoding(a[2], v));
    }

    private String encoding(byte[] key, StoredValue v) {
        RecordHeader h = v.header();
        return switch (h.type()) {
            case STRING -> stringEncoding(v.value());
            case HASH -> small(key, ValueType.HASH, HASH_MAX_LISTPACK_ENTRIES) ? "listpack" : "hashtable";
            case SET -> small(key, ValueType.SET, SET_MAX_INTSET_ENTRIES) ? "intset" : "hashtable";
            case LIST -> "quicklist"; // Redis 7.0 makes every list a quicklist (7.2 added small listpack lists)
        };
    }

    /** True if the structure has at most {@code maxEntries} members, each small enough for its compact form. */
    private boolean small(byte[] key, ValueType type, int maxEntries) {
        if (store.memberCount(key, type) > maxEntries) return false;
        List<Member> members = store.members(key, type); // at most maxEntries, unless it grew meanwhile
        if (members.size() > maxEntries) return false;
        for (Member m : members) {
            if (type == ValueType.SET && !isCanonicalLong(m.name())) return false;
            if (type == ValueType.HASH
                    && (m.name().length > HASH_MAX_LISTPACK_VALUE || m.value().length > HASH_MAX_LISTPACK_VALUE)) {
                return false;
            }
        }
        return true;
    }

    static String stringEncoding(byte[] value) {
        if (value.length <= 20 && isCanonicalLong(value)) return "int";
        return value.length <= EMBSTR_SIZE_LIMIT ? "embstr" : "raw";
    }

    /** True if {@code b} is a 64-bit integer as Redis's {@code string2ll} reads one: no +, leading 0 or space. */
    static boolean isCanonicalLong(byte[] b) {
        return Args.parseLong(b) != null; // which reads exactly that form
    }
}
