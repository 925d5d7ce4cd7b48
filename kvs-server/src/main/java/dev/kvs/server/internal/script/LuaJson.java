package dev.kvs.server.internal.script;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Redis's {@code cjson} (lua-cjson 2.1.0) for one script run: {@code encode}, {@code decode}, {@code null}
 * and the settings a script may change ({@code encode_max_depth}, {@code decode_max_depth}, {@code
 * encode_invalid_numbers}, {@code decode_invalid_numbers}, {@code encode_keep_buffer}, {@code
 * encode_sparse_array}, {@code encode_number_precision}), with lua-cjson's rules: a table whose keys are
 * all positive integers is an array (an excessively sparse one is refused), any other an object whose
 * keys must be strings or numbers; an empty table is {@code {}}; numbers as {@code %.14g}; NaN and the
 * infinities refused unless allowed; {@code /} escaped. Its settings live as long as the run (Redis keeps
 * them for the life of the Lua state). Used on one thread.
 */
final class LuaJson {
    /** lua-cjson's {@code cjson.null}: a JSON null inside a decoded table. */
    static final LuaValue NULL = LuaValue.userdataOf(new Object() {
        @Override
        public String toString() {
            return "userdata: NULL";
        }
    });

    private int encodeMaxDepth = 1000;
    private int decodeMaxDepth = 1000;
    private boolean encodeInvalidNumbers;
    private boolean decodeInvalidNumbers = true;
    private int precision = 14;

    private LuaJson() {}

    /** A fresh {@code cjson} table with lua-cjson's defaults. */
    static LuaTable table() {
        LuaJson json = new LuaJson();
        LuaTable t = new LuaTable();
        t.rawset("encode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                StringBuilder b = new StringBuilder();
                json.encode(v, b, 0);
                return LuaValue.valueOf(b.toString().getBytes(StandardCharsets.ISO_8859_1));
            }
        });
        t.rawset("decode", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                return new Decoder(json, v.checkstring()).document();
            }
        });
        t.rawset("null", NULL);
        t.rawset("_NAME", "cjson");
        t.rawset("_VERSION", "2.1.0");
        t.rawset("encode_max_depth", setting(v -> json.encodeMaxDepth = depth(v), () -> json.encodeMaxDepth));
        t.rawset("decode_max_depth", setting(v -> json.decodeMaxDepth = depth(v), () -> json.decodeMaxDepth));
        t.rawset(
                "encode_invalid_numbers",
                setting(v -> json.encodeInvalidNumbers = v.toboolean(), () -> json.encodeInvalidNumbers ? 1 : 0));
        t.rawset(
                "decode_invalid_numbers",
                setting(v -> json.decodeInvalidNumbers = v.toboolean(), () -> json.decodeInvalidNumbers ? 1 : 0));
        t.rawset("encode_keep_buffer", setting(v -> {}, () -> 1));
        t.rawset("encode_sparse_array", setting(v -> {}, () -> 0));
        t.rawset(
                "encode_number_precision",
                setting(v -> json.precision = Math.max(1, Math.min(14, v.checkint())), () -> json.precision));
        return t;
    }

    private static int depth(LuaValue v) {
        int d = v.checkint();
        if (d < 1) throw new LuaError("bad argument #1 to '?' (expected integer between 1 and 2147483647)");
        return d;
    }

    private static LuaValue setting(java.util.function.Consumer<LuaValue> set, java.util.function.IntSupplier get) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() > 0 && !args.arg1().isnil()) set.accept(args.arg1());
                return LuaValue.valueOf(get.getAsInt());
            }
        };
    }

    /** Appends {@code v}'s JSON (as ISO-8859-1 chars, one per byte) to {@code b}. */
    private void encode(LuaValue v, StringBuilder b, int depth) {
        switch (v.type()) {
            case LuaValue.TNIL -> b.append("null");
            case LuaValue.TBOOLEAN -> b.append(v.toboolean() ? "true" : "false");
            case LuaValue.TNUMBER -> b.append(number(v.todouble()));
            case LuaValue.TSTRING -> string(v.checkstring(), b);
            case LuaValue.TTABLE -> table((LuaTable) v, b, depth + 1);
            case LuaValue.TUSERDATA, LuaValue.TLIGHTUSERDATA -> {
                if (v != NULL) throw new LuaError("Cannot serialise userdata: type not supported");
                b.append("null");
            }
            default -> throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
        }
    }

    private String number(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            if (!encodeInvalidNumbers) throw new LuaError("Cannot serialise number: must not be NaN or Inf");
            return Double.isNaN(d) ? "nan" : d > 0 ? "inf" : "-inf";
        }
        return formatG(d, precision);
    }

    /** C's {@code %.<precision>g}. */
    static String formatG(double d, int precision) {
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        BigDecimal r = new BigDecimal(d).round(new MathContext(precision));
        int exponent = r.precision() - r.scale() - 1;
        if (exponent < -4 || exponent >= precision) {
            BigDecimal mantissa = r.movePointLeft(exponent).stripTrailingZeros();
            String e = Integer.toString(Math.abs(exponent));
            return mantissa.toPlainString() + "e" + (exponent < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
        }
        return r.stripTrailingZeros().toPlainString();
    }

    private static void string(LuaString s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.m_length; i++) {
            int c = s.m_bytes[s.m_offset + i] & 0xff;
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '/' -> b.append("\\/");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) b.append(String.format("\\u%04x", c));
                    else b.append((char) c);
                }
            }
        }
        b.append('"');
    }

    private void table(LuaTable t, StringBuilder b, int depth) {
        if (depth > encodeMaxDepth) throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
        int length = arrayLength(t);
        if (length > 0) {
            b.append('[');
            for (int i = 1; i <= length; i++) {
                if (i > 1) b.append(',');
                encode(t.rawget(i), b, depth);
            }
            b.append(']');
            return;
        }
        b.append('{');
        boolean first = true;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            if (!first) b.append(',');
            first = false;
            if (k.type() == LuaValue.TSTRING) {
                string(k.checkstring(), b);
            } else if (k.type() == LuaValue.TNUMBER) {
                b.append('"').append(number(k.todouble())).append('"');
            } else {
                throw new LuaError("Cannot serialise " + k.typename() + ": table key must be a number or string");
            }
            b.append(':');
            encode(n.arg(2), b, depth);
        }
        b.append('}');
    }

    /** lua-cjson's array test: the largest key if every key is a positive integer, 0 if not an array; refuses a sparse one. */
    private static int arrayLength(LuaTable t) {
        int max = 0;
        int items = 0;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            if (k.type() != LuaValue.TNUMBER) return 0;
            double d = k.todouble();
            if (d != Math.floor(d) || d < 1) return 0;
            max = Math.max(max, (int) d);
            items++;
        }
        if (max > 10 && max > items * 2) throw new LuaError("Cannot serialise table: excessively sparse array");
        return max;
    }

    /** A JSON text's parser, with lua-cjson's error words. */
    private static final class Decoder {
        private final LuaJson json;
        private final byte[] text;
        private int at;
        private int depth;

        Decoder(LuaJson json, LuaString s) {
            this.json = json;
            this.text = new byte[s.m_length];
            s.copyInto(0, text, 0, text.length);
        }

        LuaValue document() {
            LuaValue v = value();
            skipSpace();
            if (at < text.length) throw error("the end", "trailing garbage");
            return v;
        }

        private LuaError error(String expected, String found) {
            return new LuaError("Expected " + expected + " but found " + found + " at character " + (at + 1));
        }

        private void skipSpace() {
            while (at < text.length && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
                at++;
        }

        private LuaValue value() {
            skipSpace();
            if (at >= text.length) throw error("value", "T_END");
            byte c = text[at];
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return LuaValue.valueOf(string());
                case 't':
                    return literal("true", LuaValue.TRUE);
                case 'f':
                    return literal("false", LuaValue.FALSE);
                case 'n':
                    if (at + 2 < text.length && text[at + 1] == 'a')
                        return literal("nan", LuaValue.valueOf(Double.NaN));
                    return literal("null", NULL);
                default:
                    if (c == '-' || (c >= '0' && c <= '9') || c == 'i' || c == 'I' || c == 'N') return number();
                    throw error("value", "invalid token");
            }
        }

        private LuaValue literal(String word, LuaValue v) {
            byte[] w = word.getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < w.length; i++) {
                if (at + i >= text.length || text[at + i] != w[i]) throw error("value", "invalid token");
            }
            if (v.isnumber() && !json.decodeInvalidNumbers) throw error("value", "invalid number");
            at += w.length;
            return v;
        }

        private LuaValue number() {
            int start = at;
            if (text[at] == '-') at++;
            while (at < text.length && "0123456789.eE+-xXabcdefABCDEFinftyINFTY".indexOf(text[at]) >= 0) at++;
            String s = new String(text, start, at - start, StandardCharsets.US_ASCII);
            try {
                double d = switch (s.toLowerCase(java.util.Locale.ROOT)) {
                    case "inf", "infinity" -> Double.POSITIVE_INFINITY;
                    case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
                    default -> Double.parseDouble(s);
                };
                if ((Double.isInfinite(d) || Double.isNaN(d)) && !json.decodeInvalidNumbers) {
                    at = start;
                    throw error("value", "invalid number");
                }
                return d == (int) d && !(d == 0 && 1 / d < 0) ? LuaValue.valueOf((int) d) : LuaValue.valueOf(d);
            } catch (NumberFormatException e) {
                at = start;
                throw error("value", "invalid number");
            }
        }

        private void enter() {
            if (++depth > json.decodeMaxDepth) {
                throw new LuaError("Found too many nested data structures (" + depth + ") at character " + (at + 1));
            }
        }

        private LuaValue object() {
            enter();
            at++;
            LuaTable t = new LuaTable();
            skipSpace();
            if (at < text.length && text[at] == '}') {
                at++;
                depth--;
                return t;
            }
            while (true) {
                skipSpace();
                if (at >= text.length || text[at] != '"') throw error("object key string", "invalid token");
                byte[] key = string();
                skipSpace();
                if (at >= text.length || text[at] != ':') throw error("colon", "invalid token");
                at++;
                t.rawset(LuaValue.valueOf(key), value());
                skipSpace();
                if (at < text.length && text[at] == ',') {
                    at++;
                } else if (at < text.length && text[at] == '}') {
                    at++;
                    depth--;
                    return t;
                } else {
                    throw error("comma or object end", "invalid token");
                }
            }
        }

        private LuaValue array() {
            enter();
            at++;
            LuaTable t = new LuaTable();
            skipSpace();
            if (at < text.length && text[at] == ']') {
                at++;
                depth--;
                return t;
            }
            for (int i = 1; ; i++) {
                t.rawset(i, value());
                skipSpace();
                if (at < text.length && text[at] == ',') {
                    at++;
                } else if (at < text.length && text[at] == ']') {
                    at++;
                    depth--;
                    return t;
                } else {
                    throw error("comma or array end", "invalid token");
                }
            }
        }

        /** A string at {@code at} (its opening quote), unescaped to its bytes (a {@code \\u} escape as UTF-8). */
        private byte[] string() {
            at++;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                if (at >= text.length) throw error("value", "unexpected end of string");
                byte c = text[at++];
                if (c == '"') return out.toByteArray();
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (at >= text.length) throw error("value", "invalid escape code");
                byte e = text[at++];
                switch (e) {
                    case '"', '\\', '/' -> out.write(e);
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> {
                        if (at + 4 > text.length) throw error("value", "invalid unicode escape code");
                        int cp;
                        try {
                            cp = Integer.parseInt(new String(text, at, 4, StandardCharsets.US_ASCII), 16);
                        } catch (NumberFormatException x) {
                            throw error("value", "invalid unicode escape code");
                        }
                        at += 4;
                        if (cp >= 0xd800
                                && cp < 0xdc00
                                && at + 6 <= text.length
                                && text[at] == '\\'
                                && text[at + 1] == 'u') {
                            int low = Integer.parseInt(new String(text, at + 2, 4, StandardCharsets.US_ASCII), 16);
                            at += 6;
                            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                        }
                        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    }
                    default -> throw error("value", "invalid escape code");
                }
            }
        }
    }
}
