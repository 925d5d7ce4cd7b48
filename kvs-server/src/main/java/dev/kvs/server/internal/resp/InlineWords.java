package dev.kvs.server.internal.resp;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The words of an inline command, split as Redis's {@code sdssplitargs} splits them, byte for byte (a
 * value is bytes, not text: decoding it would turn each invalid UTF-8 byte into a three-byte
 * replacement character): runs of spaces, tabs, CR, LF, VT and FF separate words; within a word,
 * {@code "..."} quotes with {@code \xHH}, {@code \n}, {@code \r}, {@code \t}, {@code \b}, {@code \a}
 * and {@code \}<i>c</i> escapes, and {@code '...'} quotes with {@code \'}; a closing quote must end its
 * word. Bytes below a space other than those separators are part of a word, except at the line's ends.
 */
final class InlineWords {
    private InlineWords() {}

    /** The words of {@code line}; throws {@link RespCommandDecoder.RespProtocolException} on an unbalanced quote. */
    static byte[][] of(byte[] line) {
        int start = 0;
        int end = line.length;
        while (start < end && (line[start] & 0xFF) <= ' ') start++;
        while (end > start && (line[end - 1] & 0xFF) <= ' ') end--;
        List<byte[]> words = new ArrayList<>();
        int i = start;
        while (i < end) {
            ByteArrayOutputStream w = new ByteArrayOutputStream();
            boolean inDouble = false;
            boolean inSingle = false;
            while (true) {
                if (i >= end) {
                    if (inDouble || inSingle) throw unbalanced();
                    break;
                }
                byte b = line[i];
                if (inDouble) {
                    if (b == '\\'
                            && i + 3 < end
                            && line[i + 1] == 'x'
                            && hex(line[i + 2]) >= 0
                            && hex(line[i + 3]) >= 0) {
                        w.write(hex(line[i + 2]) * 16 + hex(line[i + 3]));
                        i += 4;
                        continue;
                    }
                    if (b == '\\' && i + 1 < end) {
                        w.write(escaped(line[i + 1]));
                        i += 2;
                        continue;
                    }
                    if (b == '"') {
                        if (i + 1 < end && !isSpace(line[i + 1])) throw unbalanced(); // "foo"bar
                        i++;
                        break;
                    }
                    w.write(b);
                } else if (inSingle) {
                    if (b == '\\' && i + 1 < end && line[i + 1] == '\'') {
                        w.write('\'');
                        i += 2;
                        continue;
                    }
                    if (b == '\'') {
                        if (i + 1 < end && !isSpace(line[i + 1])) throw unbalanced();
                        i++;
                        break;
                    }
                    w.write(b);
                } else if (isSpace(b)) {
                    break;
                } else if (b == '"') {
                    inDouble = true;
                } else if (b == '\'') {
                    inSingle = true;
                } else {
                    w.write(b);
                }
                i++;
            }
            words.add(w.toByteArray());
            while (i < end && isSpace(line[i])) i++;
        }
        return words.toArray(new byte[0][]);
    }

    private static RespCommandDecoder.RespProtocolException unbalanced() {
        return new RespCommandDecoder.RespProtocolException("unbalanced quotes in request");
    }

    private static int escaped(byte c) {
        return switch (c) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'b' -> '\b';
            case 'a' -> 7;
            default -> c;
        };
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == 0x0B || b == '\f';
    }
}
