package dev.kvs.server.config;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * A number of bytes, as written in config files and on the command line: a plain number, or a number
 * and a unit. {@code B}; decimal {@code KB MB GB TB} (powers of 1000); binary {@code KiB MiB GiB TiB}
 * and, as in {@code -Xmx}, {@code K M G T} (powers of 1024). Units are case-insensitive, a space
 * before the unit is allowed, and a fraction is allowed if the result is a whole number of bytes
 * ({@code 1.5KiB}). Immutable.
 *
 * @param bytes the number of bytes, {@code >= 0}
 */
public record ByteSize(long bytes) {
    private static final String FORMS = "e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB";

    public ByteSize {
        if (bytes < 0) throw new IllegalArgumentException("bytes < 0: " + bytes);
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException quoting {@code text} if it is not a byte size
     */
    public static ByteSize parse(String text) {
        return parse(null, text);
    }

    /**
     * Parses {@code text}, naming {@code field} in the error: {@code "maxBytes is not a byte size
     * (e.g. ...): 12XB"}.
     *
     * @param field the field to name, or {@code null} for none
     * @throws IllegalArgumentException quoting {@code text} if it is not a byte size
     */
    public static ByteSize parse(String field, String text) {
        String is = field == null ? "" : field + " is ";
        if (text == null) throw new IllegalArgumentException(is + "not a byte size (" + FORMS + "): null");
        String t = text.trim();
        int end = 0;
        while (end < t.length() && (Character.isDigit(t.charAt(end)) || t.charAt(end) == '.')) end++;
        String number = t.substring(0, end);
        long unit = unit(t.substring(end).trim().toLowerCase(Locale.ROOT));
        if (number.isEmpty() || unit < 0) {
            throw new IllegalArgumentException(is + "not a byte size (" + FORMS + "): " + text);
        }
        try {
            return new ByteSize(
                    new BigDecimal(number).multiply(BigDecimal.valueOf(unit)).longValueExact());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(is + "not a byte size (" + FORMS + "): " + text);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    is + "not a whole number of bytes up to " + Long.MAX_VALUE + ": " + text);
        }
    }

    private static long unit(String u) {
        return switch (u) {
            case "", "b" -> 1L;
            case "kb" -> 1000L;
            case "mb" -> 1000_000L;
            case "gb" -> 1000_000_000L;
            case "tb" -> 1000_000_000_000L;
            case "k", "kib" -> 1L << 10;
            case "m", "mib" -> 1L << 20;
            case "g", "gib" -> 1L << 30;
            case "t", "tib" -> 1L << 40;
            default -> -1L;
        };
    }

    /**
     * The size as an {@code int}, for limits held in one.
     *
     * @throws IllegalArgumentException naming {@code field} if the size is above {@link Integer#MAX_VALUE}
     */
    public int toInt(String field) {
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    field + " is larger than " + Integer.MAX_VALUE + " bytes: " + this + " (" + bytes + ")");
        }
        return (int) bytes;
    }

    /** The shortest exact form: {@code 64MiB}, {@code 10MB}, or a plain number. */
    @Override
    public String toString() {
        if (bytes == 0) return "0";
        String[] binary = {"TiB", "GiB", "MiB", "KiB"};
        for (int i = 0; i < binary.length; i++) {
            long unit = 1L << (10 * (4 - i));
            if (bytes % unit == 0) return (bytes / unit) + binary[i];
        }
        String[] decimal = {"TB", "GB", "MB", "KB"};
        long unit = 1000_000_000_000L;
        for (String name : decimal) {
            if (bytes % unit == 0) return (bytes / unit) + name;
            unit /= 1000;
        }
        return Long.toString(bytes);
    }
}
