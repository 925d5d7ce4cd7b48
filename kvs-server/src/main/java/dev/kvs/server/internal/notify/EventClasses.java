package dev.kvs.server.internal.notify;

/**
 * The classes of {@code notify-keyspace-events}, as bits, with Redis 7.0.15's parsing of the setting's
 * letters ({@code notify.c}) and its rendering of them, which {@code CONFIG GET} answers: {@code A} for
 * every class it stands for, then the classes in Redis's order, then {@code K}, {@code E}, {@code m}.
 */
public final class EventClasses {
    /** {@code K}: publish on {@code __keyspace@0__:<key>}. */
    public static final int KEYSPACE = 1;
    /** {@code E}: publish on {@code __keyevent@0__:<event>}. */
    public static final int KEYEVENT = 1 << 1;
    /** {@code g}: DEL, EXPIRE, RENAME and the other commands of any type. */
    public static final int GENERIC = 1 << 2;
    /** {@code $}: string commands. */
    public static final int STRING = 1 << 3;
    /** {@code l}: list commands. */
    public static final int LIST = 1 << 4;
    /** {@code s}: set commands. */
    public static final int SET = 1 << 5;
    /** {@code h}: hash commands. */
    public static final int HASH = 1 << 6;
    /** {@code z}: sorted sets (kvs has none: accepted, never emitted). */
    public static final int ZSET = 1 << 7;
    /** {@code x}: a key removed because its TTL passed. */
    public static final int EXPIRED = 1 << 8;
    /** {@code e}: eviction (kvs refuses writes rather than evict: accepted, never emitted). */
    public static final int EVICTED = 1 << 9;
    /** {@code t}: streams (none in kvs). */
    public static final int STREAM = 1 << 10;
    /** {@code m}: a read of a missing key (not part of {@code A}, as in Redis). */
    public static final int KEY_MISS = 1 << 11;
    /** {@code d}: module events (none in kvs). */
    public static final int MODULE = 1 << 13;
    /** {@code n}: a key created (not part of {@code A}, as in Redis). */
    public static final int NEW = 1 << 14;
    /** {@code A}: every class but {@code m} and {@code n}. */
    public static final int ALL = GENERIC | STRING | LIST | SET | HASH | ZSET | EXPIRED | EVICTED | STREAM | MODULE;

    /** Redis's error text for a letter it does not know ({@code CONFIG SET}'s reason). */
    public static final String INVALID = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

    private EventClasses() {}

    /** The classes {@code letters} names, or -1 if a letter is not one of {@code Ag$lshzxeKEtmdn}. */
    public static int parse(String letters) {
        int flags = 0;
        for (int i = 0; i < letters.length(); i++) {
            switch (letters.charAt(i)) {
                case 'A' -> flags |= ALL;
                case 'g' -> flags |= GENERIC;
                case '$' -> flags |= STRING;
                case 'l' -> flags |= LIST;
                case 's' -> flags |= SET;
                case 'h' -> flags |= HASH;
                case 'z' -> flags |= ZSET;
                case 'x' -> flags |= EXPIRED;
                case 'e' -> flags |= EVICTED;
                case 'K' -> flags |= KEYSPACE;
                case 'E' -> flags |= KEYEVENT;
                case 't' -> flags |= STREAM;
                case 'm' -> flags |= KEY_MISS;
                case 'd' -> flags |= MODULE;
                case 'n' -> flags |= NEW;
                default -> {
                    return -1;
                }
            }
        }
        return flags;
    }

    /** {@code flags} as Redis writes them back ({@code keyspaceEventsFlagsToString}). */
    public static String render(int flags) {
        StringBuilder out = new StringBuilder();
        if ((flags & ALL) == ALL) {
            out.append('A');
        } else {
            char[] letters = {'g', '$', 'l', 's', 'h', 'z', 'x', 'e', 't', 'd', 'n'};
            int[] classes = {GENERIC, STRING, LIST, SET, HASH, ZSET, EXPIRED, EVICTED, STREAM, MODULE, NEW};
            for (int i = 0; i < letters.length; i++) if ((flags & classes[i]) != 0) out.append(letters[i]);
        }
        if ((flags & KEYSPACE) != 0) out.append('K');
        if ((flags & KEYEVENT) != 0) out.append('E');
        if ((flags & KEY_MISS) != 0) out.append('m');
        return out.toString();
    }
}
