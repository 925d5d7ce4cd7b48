package dev.kvs.server.internal.resp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Redis's thresholds for the compact encodings of small hashes, sets and lists ({@code
 * hash-max-listpack-entries} and {@code -value}, {@code list-max-listpack-size}, {@code list-compress-depth}, with their old {@code
 * ziplist} names, and {@code set-max-intset-entries}): {@code
 * CONFIG GET} shows them and {@code CONFIG SET} takes them, since clients and Redis's own tests set
 * them. kvs keeps every hash, set and list one way (in pages), so a value set here changes nothing but what
 * {@code CONFIG GET} answers. One per node; thread-safe.
 */
final class EncodingSettings {
    /** Each parameter (the name Redis 7 lists first) with Redis 7.0.15's default. */
    private static final Map<String, Long> DEFAULTS = Map.of(
            "hash-max-listpack-entries", 512L,
            "hash-max-listpack-value", 64L,
            "set-max-intset-entries", 512L,
            "list-max-listpack-size", -2L,
            "list-compress-depth", 0L);
    /** Old names Redis 7 still takes, each for the parameter it names. */
    private static final Map<String, String> ALIASES = Map.of(
            "hash-max-ziplist-entries", "hash-max-listpack-entries",
            "hash-max-ziplist-value", "hash-max-listpack-value",
            "list-max-ziplist-size", "list-max-listpack-size");
    /**
     * The parameters that are 32-bit integers, not memory values, with the least each takes: a negative
     * list size is in KiB (-2 is 8 KiB).
     */
    private static final Map<String, Long> INTEGERS =
            Map.of("list-max-listpack-size", (long) Integer.MIN_VALUE, "list-compress-depth", 0L);

    private final Map<String, Long> values = new ConcurrentHashMap<>(DEFAULTS);

    /** The parameter {@code name} (any case) stands for, or null if it is not one of these. */
    private static String parameter(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (DEFAULTS.containsKey(n)) return n;
        return ALIASES.get(n);
    }

    /** True if every name of {@code CONFIG SET name value [name value ...]} ({@code a}) is one of these. */
    static boolean owns(byte[][] a) {
        for (int i = 2; i < a.length; i += 2) if (parameter(Args.text(a[i])) == null) return false;
        return true;
    }

    /**
     * Sets every pair of {@code CONFIG SET name value [name value ...]}, or none if a value is not a
     * non-negative integer.
     *
     * @return Redis's error text for the first bad value, or null if all were set
     */
    String set(byte[][] a) {
        Map<String, Long> next = new LinkedHashMap<>();
        for (int i = 2; i + 1 < a.length; i += 2) {
            Long v = Args.parseLong(a[i + 1]);
            Long least = INTEGERS.get(parameter(Args.text(a[i])));
            if (least != null) {
                String error = integerError(Args.text(a[i]), v, least);
                if (error != null) return error;
            } else if (v == null || v < 0) {
                return "ERR CONFIG SET failed (possibly related to argument '" + Args.text(a[i])
                        + "') - argument must be a memory value";
            }
            next.put(parameter(Args.text(a[i])), v);
        }
        values.putAll(next);
        return null;
    }

    private static String integerError(String name, Long v, long least) {
        String prefix = "ERR CONFIG SET failed (possibly related to argument '" + name + "') - ";
        if (v == null) return prefix + "argument couldn't be parsed into an integer";
        if (v < least || v > Integer.MAX_VALUE) {
            return prefix + "argument must be between " + least + " and 2147483647 inclusive";
        }
        return null;
    }

    /** Every name (old ones too) with its value, for {@code CONFIG GET}. */
    List<String[]> all() {
        List<String[]> out = new ArrayList<>();
        values.forEach((name, v) -> out.add(new String[] {name, Long.toString(v)}));
        ALIASES.forEach((alias, name) -> out.add(new String[] {alias, Long.toString(values.get(name))}));
        return out;
    }
}
