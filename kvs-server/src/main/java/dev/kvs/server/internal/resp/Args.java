package dev.kvs.server.internal.resp;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Decoding of command arguments. */
final class Args {
    private Args() {}

    static String upper(byte[] arg) {
        return new String(arg, StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
    }

    static String text(byte[] arg) {
        return new String(arg, StandardCharsets.UTF_8);
    }

    /**
     * A base-10 long as Redis reads an integer argument ({@code string2ll}): an optional minus, then
     * digits without a leading zero (or just {@code 0}), nothing else, within a long; null if not.
     */
    static Long parseLong(byte[] arg) {
        int n = arg.length;
        if (n == 0 || n > 20) return null;
        int i = arg[0] == '-' ? 1 : 0;
        if (i == n) return null;
        if (arg[i] == '0') return n == 1 ? 0L : null;
        for (int j = i; j < n; j++) {
            if (arg[j] < '0' || arg[j] > '9') return null;
        }
        try {
            return Long.parseLong(new String(arg, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return null; // out of range
        }
    }
}
