package dev.kvs.server.internal.resp;

/**
 * The options of SET and GETEX ({@code NX|XX}, {@code GET}, {@code EX|PX|EXAT|PXAT}, {@code KEEPTTL},
 * {@code PERSIST}), as Redis 7's {@code parseExtendedStringArgumentsOrReply} reads them, and the
 * absolute expiry an expiry argument means.
 */
final class SetOptions {
    boolean nx, xx, get, keepTtl, persist;
    /** {@code EX}, {@code PX}, {@code EXAT} or {@code PXAT}, or null. */
    String unit;

    byte[] expire;

    boolean hasExpire() {
        return unit != null;
    }

    /**
     * Parses {@code a[from..]}; false on a syntax error. As in Redis, a repeated option is taken (the
     * last value wins) and options of different kinds that contradict each other are not.
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
     * The absolute expiry (epoch millis) the option's argument means at {@code now}, as Redis's {@code
     * getExpireMillisecondsOrReply}: an error text if it is not an integer, not positive, or overflows.
     */
    Object expireAt(long now, String command) {
        return absoluteExpiry(
                expire, unit.equals("EX") || unit.equals("EXAT") ? 1000 : 1, unit.length() == 2, now, command);
    }

    /** Epoch millis for a SET/SETEX/GETEX expiry argument, or an error reply text. */
    static Object absoluteExpiry(byte[] arg, long unitMillis, boolean relative, long now, String command) {
        Long n = Args.parseLong(arg);
        if (n == null) return StringCommands.NOT_INTEGER;
        if (n <= 0 || (unitMillis == 1000 && n > Long.MAX_VALUE / 1000)) return invalidExpireTime(command);
        long at = n * unitMillis;
        if (relative) {
            if (at > Long.MAX_VALUE - now) return invalidExpireTime(command);
            at += now;
        }
        return at;
    }

    static String invalidExpireTime(String command) {
        return "ERR invalid expire time in '" + command + "' command";
    }
}
