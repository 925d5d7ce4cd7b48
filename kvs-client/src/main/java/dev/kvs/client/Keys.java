package dev.kvs.client;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Keys as text for messages: the form {@link FencedKeyException#printableKey()} and the client's own
 * messages (a command's name and first key) print a key in.
 */
public final class Keys {
    private static final int MAX_PRINTED_BYTES = 200;

    private Keys() {}

    /**
     * {@code key} as text: decoded as UTF-8 if it is valid UTF-8 without control characters,
     * otherwise with every byte outside printable ASCII (and the backslash) written {@code \xNN};
     * keys longer than 200 bytes are cut and end with {@code ...(N bytes)}.
     */
    public static String printable(byte[] key) {
        int n = Math.min(key.length, MAX_PRINTED_BYTES);
        String suffix = key.length > n ? "...(" + key.length + " bytes)" : "";
        String utf8 = strictUtf8(key, n);
        if (utf8 != null && utf8.chars().noneMatch(c -> Character.isISOControl(c) || c == '\\')) {
            return utf8 + suffix;
        }
        StringBuilder b = new StringBuilder(n + 16);
        for (int i = 0; i < n; i++) {
            int c = key[i] & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                b.append((char) c);
            } else {
                b.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            }
        }
        return b.append(suffix).toString();
    }

    private static String strictUtf8(byte[] key, int length) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(key, 0, length))
                    .toString();
        } catch (CharacterCodingException e) {
            return null; // also when the cut splits a character: escaping is fine then
        }
    }
}
