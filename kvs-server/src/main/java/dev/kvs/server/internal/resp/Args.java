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

    /** Parses a base-10 long, or returns {@code null}. */
    static Long parseLong(byte[] arg) {
        try {
            return Long.parseLong(new String(arg, StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
