package dev.kvs.server.internal.admin;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * One admin HTTP request, detached from Netty (its body copied out), so routes need not release
 * anything. The typed parameter readers are strict: what they cannot read exactly is refused with an
 * {@link AdminException} (400) naming the parameter and quoting the value, never guessed at.
 *
 * @param method upper-case HTTP method, e.g. {@code GET}
 * @param path decoded path without the query, e.g. {@code /status}
 * @param query decoded query parameters
 * @param body request body, empty if none
 */
public record AdminRequest(String method, String path, Map<String, List<String>> query, byte[] body) {
    /** Longest parameter value quoted back in an error. */
    private static final int QUOTED_CHARS = 64;

    public AdminRequest {
        query = Map.copyOf(query);
    }

    /** The first value of query parameter {@code name}, if present. */
    public Optional<String> param(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /**
     * Refuses a parameter other than {@code names}, and one given more than once: a typo such as {@code
     * lsot=true} must not silently do the default.
     *
     * @throws AdminException 400 naming the parameter
     */
    public void allowOnly(String... names) {
        Set<String> allowed = Set.of(names);
        for (Map.Entry<String, List<String>> p : query.entrySet()) {
            if (!allowed.contains(p.getKey())) {
                throw AdminException.badRequest("unknown parameter " + quote(p.getKey()) + " for " + method + " " + path
                        + " (known: " + (allowed.isEmpty() ? "none" : new TreeSet<>(allowed)) + ")");
            }
            if (p.getValue().size() > 1) {
                throw AdminException.badRequest(
                        p.getKey() + " is given " + p.getValue().size() + " times");
            }
        }
    }

    /**
     * Boolean parameter {@code name}: exactly {@code true} or {@code false}; absent, false.
     *
     * @throws AdminException 400 for any other value
     */
    public boolean flag(String name) {
        Optional<String> v = param(name);
        if (v.isEmpty() || v.get().equals("false")) return false;
        if (v.get().equals("true")) return true;
        throw AdminException.badRequest(name + " is not true or false: " + quote(v.get()));
    }

    /**
     * Whole-number parameter {@code name}, if present.
     *
     * @throws AdminException 400 if it is not a decimal number that fits a long
     */
    public OptionalLong number(String name) {
        Optional<String> v = param(name);
        if (v.isEmpty()) return OptionalLong.empty();
        try {
            return OptionalLong.of(Long.parseLong(v.get()));
        } catch (NumberFormatException e) {
            throw AdminException.badRequest(name + " is not a number: " + quote(v.get()));
        }
    }

    /**
     * Whole-number parameter {@code name} in {@code min..max}; {@code absent} if it is not given.
     *
     * @throws AdminException 400 if it is not a number or out of range
     */
    public long number(String name, long min, long max, long absent) {
        OptionalLong v = number(name);
        if (v.isEmpty()) return absent;
        long n = v.getAsLong();
        if (n < min || n > max) throw AdminException.badRequest(name + " is not in " + min + ".." + max + ": " + n);
        return n;
    }

    /** {@code value} in double quotes, cut short if long: for error messages. */
    public static String quote(String value) {
        String v = value.length() > QUOTED_CHARS ? value.substring(0, QUOTED_CHARS) + "..." : value;
        return "\"" + v + "\"";
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
