package dev.kvs.server.internal.pubsub;

import java.util.Locale;

/**
 * Redis's {@code client-output-buffer-limit} for the {@code pubsub} class: a subscriber with more than
 * {@code hardBytes} queued for it, or more than {@code softBytes} for {@code softSeconds} on end, is
 * disconnected. A zero turns that part off. Immutable.
 *
 * @param hardBytes bytes queued that disconnect at once; 0: no hard limit
 * @param softBytes bytes queued that disconnect if they stay queued for {@code softSeconds}; 0: none
 * @param softSeconds how long a subscriber may stay above {@code softBytes}
 */
public record OutputLimit(long hardBytes, long softBytes, long softSeconds) {
    /** Redis's default: {@code pubsub 32mb 8mb 60}. */
    public static final OutputLimit DEFAULT = new OutputLimit(32L << 20, 8L << 20, 60);

    public OutputLimit {
        if (hardBytes < 0) throw new IllegalArgumentException("hardBytes < 0: " + hardBytes);
        if (softBytes < 0) throw new IllegalArgumentException("softBytes < 0: " + softBytes);
        if (softSeconds < 0) throw new IllegalArgumentException("softSeconds < 0: " + softSeconds);
    }

    /**
     * The limit as {@code CONFIG SET client-output-buffer-limit} takes its three values: {@code 32mb 8mb
     * 60} (sizes with Redis's units {@code k kb m mb g gb}, any case).
     *
     * @throws IllegalArgumentException if a value is not a size or count
     */
    public static OutputLimit parse(String hard, String soft, String seconds) {
        long s;
        try {
            s = Long.parseLong(seconds);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number of seconds: " + seconds);
        }
        return new OutputLimit(bytes(hard), bytes(soft), s);
    }

    /** A size as Redis's {@code memtoull} reads it: digits, then an optional unit. */
    static long bytes(String text) {
        String t = text.toLowerCase(Locale.ROOT);
        int end = 0;
        while (end < t.length() && Character.isDigit(t.charAt(end))) end++;
        if (end == 0) throw new IllegalArgumentException("not a size: " + text);
        long unit = switch (t.substring(end)) {
            case "", "b" -> 1;
            case "k" -> 1000;
            case "kb" -> 1024;
            case "m" -> 1000 * 1000;
            case "mb" -> 1024 * 1024;
            case "g" -> 1000L * 1000 * 1000;
            case "gb" -> 1024L * 1024 * 1024;
            default -> throw new IllegalArgumentException("not a size: " + text);
        };
        try {
            return Math.multiplyExact(Long.parseLong(t.substring(0, end)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("size out of range: " + text);
        }
    }

    /** As {@code CONFIG GET} shows it after the class name: bytes, bytes, seconds. */
    public String text() {
        return hardBytes + " " + softBytes + " " + softSeconds;
    }
}
