package dev.kvs.server.internal.script;

import java.io.ByteArrayOutputStream;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * Redis's {@code cmsgpack} (lua-cmsgpack 0.4.0 as Redis 7.0 ships it): {@code pack(...)} (each argument
 * encoded, concatenated), {@code unpack}, {@code unpack_one}, {@code unpack_limit}, with its rules: an
 * integral number in the smallest integer form, another a float if it survives as one, else a double; a
 * table whose keys are exactly 1..n an array, any other a map; a table nested 16 deep (a circular one)
 * becomes nil; anything else that is not a string or boolean is nil. Stateless.
 */
final class LuaMsgpack {
    private static final int MAX_NESTING = 16;

    private LuaMsgpack() {}

    static LuaTable table() {
        LuaTable t = new LuaTable();
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() == 0) throw new LuaError("MessagePack pack needs input.");
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (int i = 1; i <= args.narg(); i++) encode(args.arg(i), out, 0);
                return LuaValue.valueOf(out.toByteArray());
            }
        });
        t.rawset("unpack", unpacker(0));
        t.rawset("unpack_one", unpacker(1));
        t.rawset("unpack_limit", unpacker(-1));
        t.rawset("_NAME", "cmsgpack");
        t.rawset("_VERSION", "lua-cmsgpack 0.4.0");
        return t;
    }

    /** {@code unpack} (limit 0), {@code unpack_one} (limit 1) or {@code unpack_limit} (limit -1: the second argument). */
    private static LuaValue unpacker(int fixedLimit) {
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaString s = args.checkstring(1);
                long limit = fixedLimit >= 0 ? fixedLimit : args.optlong(2, 0);
                long offset = fixedLimit == 0 ? 0 : args.optlong(fixedLimit == 1 ? 2 : 3, 0);
                return unpack(s, limit, offset);
            }
        };
    }

    private static Varargs unpack(LuaString s, long limit, long offset) {
        boolean all = limit == 0 && offset == 0;
        if (offset < 0 || limit < 0) {
            throw new LuaError(
                    "Invalid request to unpack with offset of " + offset + " and limit of " + s.m_length + ".");
        }
        if (offset > s.m_length) {
            throw new LuaError("Start offset " + offset + " greater than input length " + s.m_length + ".");
        }
        byte[] b = new byte[s.m_length];
        s.copyInto(0, b, 0, b.length);
        Cursor c = new Cursor(b, (int) offset);
        java.util.List<LuaValue> out = new java.util.ArrayList<>();
        if (all) limit = Integer.MAX_VALUE;
        while (c.at < b.length && out.size() < limit) out.add(c.value());
        if (!all) out.add(0, LuaValue.valueOf(c.at == b.length ? -1 : c.at));
        return LuaValue.varargsOf(out.toArray(new LuaValue[0]));
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int level) {
        int type = v.type();
        if (type == LuaValue.TTABLE && level == MAX_NESTING) type = LuaValue.TNIL;
        switch (type) {
            case LuaValue.TSTRING -> bytes(v.checkstring(), out);
            case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(v.todouble(), out);
            case LuaValue.TTABLE -> table((LuaTable) v, out, level);
            default -> out.write(0xc0);
        }
    }

    private static void bytes(LuaString s, ByteArrayOutputStream out) {
        int n = s.m_length;
        if (n < 32) out.write(0xa0 | n);
        else if (n <= 0xff) header(out, 0xd9, n, 1);
        else if (n <= 0xffff) header(out, 0xda, n, 2);
        else header(out, 0xdb, n, 4);
        out.write(s.m_bytes, s.m_offset, n);
    }

    private static void header(ByteArrayOutputStream out, int code, long n, int width) {
        out.write(code);
        for (int i = width - 1; i >= 0; i--) out.write((int) (n >>> (8 * i)) & 0xff);
    }

    private static void number(double d, ByteArrayOutputStream out) {
        if (!Double.isInfinite(d) && d == Math.rint(d) && Math.abs(d) < 9.2e18) {
            integer((long) d, out);
        } else if (d == (double) (float) d || Double.isNaN(d)) {
            header(out, 0xca, Float.floatToIntBits((float) d) & 0xffffffffL, 4);
        } else {
            out.write(0xcb);
            long bits = Double.doubleToLongBits(d);
            for (int i = 7; i >= 0; i--) out.write((int) (bits >>> (8 * i)) & 0xff);
        }
    }

    private static void integer(long n, ByteArrayOutputStream out) {
        if (n >= 0) {
            if (n <= 127) out.write((int) n);
            else if (n <= 0xff) header(out, 0xcc, n, 1);
            else if (n <= 0xffff) header(out, 0xcd, n, 2);
            else if (n <= 0xffffffffL) header(out, 0xce, n, 4);
            else header(out, 0xcf, n, 8);
        } else {
            if (n >= -32) out.write((int) n & 0xff);
            else if (n >= -128) header(out, 0xd0, n, 1);
            else if (n >= -32768) header(out, 0xd1, n, 2);
            else if (n >= -2147483648L) header(out, 0xd2, n, 4);
            else header(out, 0xd3, n, 8);
        }
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int level) {
        int count = 0;
        double max = 0;
        boolean array = true;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            count++;
            if (array) {
                double d = k.type() == LuaValue.TNUMBER ? k.todouble() : -1;
                if (d <= 0 || d != Math.rint(d)) array = false;
                else max = Math.max(max, d);
            }
        }
        if (array && max == count) {
            if (count <= 15) out.write(0x90 | count);
            else header(out, count <= 0xffff ? 0xdc : 0xdd, count, count <= 0xffff ? 2 : 4);
            for (int i = 1; i <= count; i++) encode(t.get(i), out, level + 1);
            return;
        }
        if (count <= 15) out.write(0x80 | count);
        else header(out, count <= 0xffff ? 0xde : 0xdf, count, count <= 0xffff ? 2 : 4);
        k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            encode(k, out, level + 1);
            encode(n.arg(2), out, level + 1);
        }
    }

    /** A decoding position in one input, with lua-cmsgpack's errors. */
    private static final class Cursor {
        private final byte[] b;
        int at;

        Cursor(byte[] b, int at) {
            this.b = b;
            this.at = at;
        }

        private int u8() {
            if (at >= b.length) throw new LuaError("Missing bytes in input.");
            return b[at++] & 0xff;
        }

        private long unsigned(int width) {
            if (at + width > b.length) throw new LuaError("Missing bytes in input.");
            long n = 0;
            for (int i = 0; i < width; i++) n = (n << 8) | (b[at++] & 0xff);
            return n;
        }

        private LuaValue str(long n) {
            if (at + n > b.length) throw new LuaError("Missing bytes in input.");
            LuaValue s = LuaValue.valueOf(java.util.Arrays.copyOfRange(b, at, at + (int) n));
            at += (int) n;
            return s;
        }

        private static LuaValue num(double d) {
            return d == (int) d ? LuaValue.valueOf((int) d) : LuaValue.valueOf(d);
        }

        LuaValue value() {
            int c = u8();
            if (c <= 0x7f) return LuaValue.valueOf(c);
            if (c >= 0xe0) return LuaValue.valueOf((byte) c);
            if ((c & 0xe0) == 0xa0) return str(c & 0x1f);
            if ((c & 0xf0) == 0x90) return array(c & 0x0f);
            if ((c & 0xf0) == 0x80) return map(c & 0x0f);
            return switch (c) {
                case 0xc0 -> LuaValue.NIL;
                case 0xc2 -> LuaValue.FALSE;
                case 0xc3 -> LuaValue.TRUE;
                case 0xca -> num(Float.intBitsToFloat((int) unsigned(4)));
                case 0xcb -> num(Double.longBitsToDouble(unsigned(8)));
                case 0xcc -> num(unsigned(1));
                case 0xcd -> num(unsigned(2));
                case 0xce -> num(unsigned(4));
                case 0xcf -> num(unsignedDouble(unsigned(8)));
                case 0xd0 -> num((byte) unsigned(1));
                case 0xd1 -> num((short) unsigned(2));
                case 0xd2 -> num((int) unsigned(4));
                case 0xd3 -> num(unsigned(8));
                case 0xc4, 0xd9 -> str(unsigned(1));
                case 0xc5, 0xda -> str(unsigned(2));
                case 0xc6, 0xdb -> str(unsigned(4));
                case 0xdc -> array(unsigned(2));
                case 0xdd -> array(unsigned(4));
                case 0xde -> map(unsigned(2));
                case 0xdf -> map(unsigned(4));
                default -> throw new LuaError("Bad data format in input.");
            };
        }

        private static double unsignedDouble(long n) {
            return n >= 0 ? n : (double) (n >>> 1) * 2 + (n & 1);
        }

        private LuaValue array(long n) {
            LuaTable t = new LuaTable();
            for (int i = 1; i <= n; i++) t.rawset(i, value());
            return t;
        }

        private LuaValue map(long n) {
            LuaTable t = new LuaTable();
            for (long i = 0; i < n; i++) {
                LuaValue k = value();
                LuaValue v = value();
                if (!k.isnil()) t.rawset(k, v);
            }
            return t;
        }
    }
}
