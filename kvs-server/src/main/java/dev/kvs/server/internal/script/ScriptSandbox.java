package dev.kvs.server.internal.script;

import java.io.ByteArrayInputStream;
import java.util.ArrayDeque;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.Bit32Lib;
import org.luaj.vm2.lib.DebugLib;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * The globals one script run sees, built fresh for each run so that nothing one script does is seen by
 * another: the libraries Redis gives scripts (the base functions without {@code dofile}, {@code
 * loadfile}, {@code print}; {@code string}, {@code table}, {@code math}, {@code bit32} and a {@code bit}
 * over it; {@code load}/{@code loadstring} of source text only, into these globals), {@code redis},
 * {@code KEYS} and {@code ARGV}. No {@code os}, {@code io}, {@code require}, {@code package}, {@code
 * luajava}, {@code debug}, {@code coroutine}: nothing that reaches a file, a socket, a class or another
 * thread. Then the table is made read-only as in Redis 7: writing a global fails with {@code Attempt to
 * modify a readonly table}, reading an undefined one with {@code Script attempted to access nonexistent
 * global variable}.
 *
 * <p>A {@link DebugLib} is installed, not exposed: LuaJ calls its instruction hook, where a killed
 * script is stopped ({@link Watchdog}). Building the globals costs about a tenth of a millisecond.
 */
final class ScriptSandbox {
    /** Raised into a killed script at every instruction, so a {@code pcall} cannot swallow it for good. */
    static final String KILLED = "ERR Script killed by user with SCRIPT KILL...";
    /** Raised into a library's code that runs past its load's deadline. */
    static final String LOAD_TIMEOUT = "ERR FUNCTION LOAD timeout";

    /** Raised into a script past its memory bound ({@link ScriptRun#MAX_ALLOCATED_BYTES}), as a killed one's. */
    static final String OUT_OF_MEMORY = "ERR script allocated more than " + (ScriptRun.MAX_ALLOCATED_BYTES >> 20)
            + " MiB, kvs's bound on a script's memory";

    /** How many instructions run between two checks of a script's allocations (a check costs ~100 ns). */
    private static final int MEMORY_CHECK_EVERY = 256;

    private ScriptSandbox() {}

    /** A Java function's frame in {@link Watchdog}'s stack. */
    private static final LuaClosure NATIVE = new LuaClosure(new Prototype(), LuaValue.NIL);

    /**
     * Fresh, read-only globals for {@code run} with {@code redis} as the {@code redis} table, and {@code
     * keys} and {@code argv} as {@code KEYS} and {@code ARGV} (null for a function's run: it gets them as
     * its arguments, and has no such globals).
     */
    static Globals globals(ScriptRun run, LuaTable redis, byte[][] keys, byte[][] argv) {
        SandboxGlobals g = new SandboxGlobals();
        g.load(new BaseLib());
        g.load(new PackageLib()); // the libraries below register in package.loaded; removed after
        g.load(new TableLib());
        g.load(new StringLib());
        g.load(new JseMathLib());
        g.load(new Bit32Lib());
        g.load(new Watchdog(run));
        LoadState.install(g);
        LuaC.install(g);
        for (String name : new String[] {"dofile", "loadfile", "print", "package", "require", "debug"}) {
            g.rawset(name, LuaValue.NIL);
        }
        LuaValue loadText = new LoadText(g);
        g.rawset("load", loadText);
        g.rawset("loadstring", loadText);
        LuaValue table = g.rawget("table");
        g.rawset("unpack", table.get("unpack"));
        table.set("getn", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue t) {
                return LuaValue.valueOf(t.checktable().rawlen());
            }
        });
        g.rawset("bit", bit(g.rawget("bit32")));
        g.rawset("cjson", LuaJson.table());
        g.rawset("cmsgpack", LuaMsgpack.table());
        g.rawset("redis", redis);
        for (String lib : new String[] {"string", "table", "math", "bit32", "bit", "cjson", "cmsgpack", "redis"}) {
            g.rawset(lib, ReadOnlyTable.copyOf(g.rawget(lib)));
        }
        // strings' methods: the static metatable LuaJ's StringLib just set, made read-only too
        LuaString.s_metatable =
                ReadOnlyTable.copyOf(LuaValue.tableOf(new LuaValue[] {LuaValue.INDEX, g.rawget("string")}));
        if (keys != null) g.rawset("KEYS", strings(keys));
        if (argv != null) g.rawset("ARGV", strings(argv));
        freeze(g);
        return g;
    }

    /**
     * The globals a library's code runs in at {@code FUNCTION LOAD}, as Redis 7.0 gives them: {@code redis}
     * alone ({@code redis} being {@code register_function}, {@code log} and its levels), both read-only
     * and raising Redis's error for any other name; no library, no {@code error}, no {@code pairs}. The
     * code can only register functions.
     */
    static Globals loadGlobals(ScriptRun run, LuaTable redis) {
        SandboxGlobals g = new SandboxGlobals();
        g.load(new PackageLib()); // the debug library registers in package.loaded; removed after
        g.load(new Watchdog(run));
        g.rawset("debug", LuaValue.NIL);
        g.rawset("package", LuaValue.NIL);
        LoadState.install(g);
        LuaC.install(g);
        ReadOnlyTable api = ReadOnlyTable.copyOf(redis);
        api.frozen = false;
        api.setmetatable(strictMeta());
        api.frozen = true;
        g.rawset("redis", api);
        freeze(g);
        return g;
    }

    /** Makes {@code g} read-only, raising Redis's error for an undefined name. */
    private static void freeze(SandboxGlobals g) {
        g.setmetatable(strictMeta());
        g.frozen = true;
    }

    /** A frozen metatable that raises Redis's errors for reading an undefined name and for any write. */
    private static ReadOnlyTable strictMeta() {
        ReadOnlyTable meta = new ReadOnlyTable();
        meta.rawset("__index", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue name) {
                throw new LuaError("Script attempted to access nonexistent global variable '" + name.tojstring() + "'");
            }
        });
        meta.rawset("__newindex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                throw new LuaError(READONLY);
            }
        });
        meta.frozen = true;
        return meta;
    }

    static final String READONLY = "Attempt to modify a readonly table";

    /** A table that refuses every write once frozen, as Redis 7 makes its globals and libraries. */
    static final class ReadOnlyTable extends LuaTable {
        boolean frozen;

        /** A frozen copy of {@code t}'s entries. */
        static ReadOnlyTable copyOf(LuaValue t) {
            ReadOnlyTable copy = new ReadOnlyTable();
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs n = t.next(k);
                if ((k = n.arg1()).isnil()) break;
                copy.rawset(k, n.arg(2));
            }
            copy.frozen = true;
            return copy;
        }

        @Override
        public void rawset(int key, LuaValue value) {
            if (frozen) throw new LuaError(READONLY);
            super.rawset(key, value);
        }

        @Override
        public void rawset(LuaValue key, LuaValue value) {
            if (frozen) throw new LuaError(READONLY);
            super.rawset(key, value);
        }

        @Override
        public LuaValue setmetatable(LuaValue metatable) {
            if (frozen) throw new LuaError(READONLY);
            return super.setmetatable(metatable);
        }
    }

    /** The globals, read-only once frozen (see {@link ReadOnlyTable}). */
    private static final class SandboxGlobals extends Globals {
        boolean frozen;

        @Override
        public void rawset(int key, LuaValue value) {
            if (frozen) throw new LuaError(READONLY);
            super.rawset(key, value);
        }

        @Override
        public void rawset(LuaValue key, LuaValue value) {
            if (frozen) throw new LuaError(READONLY);
            super.rawset(key, value);
        }

        @Override
        public LuaValue setmetatable(LuaValue metatable) {
            if (frozen) throw new LuaError(READONLY);
            return super.setmetatable(metatable);
        }
    }

    static LuaTable strings(byte[][] values) {
        LuaTable t = new LuaTable(values.length, 0);
        for (int i = 0; i < values.length; i++) t.rawset(i + 1, LuaValue.valueOf(values[i]));
        return t;
    }

    /**
     * Redis's {@code bit} (LuaBitOp) over LuaJ's {@code bit32}: the same operations, answering signed
     * 32-bit numbers as LuaBitOp does ({@code bit32} answers them unsigned).
     */
    private static LuaTable bit(LuaValue bit32) {
        LuaTable bit = new LuaTable();
        String[][] same = {
            {"band", "band"},
            {"bor", "bor"},
            {"bxor", "bxor"},
            {"bnot", "bnot"},
            {"lshift", "lshift"},
            {"rshift", "rshift"},
            {"arshift", "arshift"},
            {"rol", "lrotate"},
            {"ror", "rrotate"}
        };
        for (String[] op : same) {
            LuaValue f = bit32.get(op[1]);
            bit.rawset(op[0], new VarArgFunction() {
                @Override
                public Varargs invoke(Varargs args) {
                    return LuaValue.valueOf((int) (long) f.invoke(args).arg1().todouble());
                }
            });
        }
        bit.rawset("bswap", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue x) {
                return LuaValue.valueOf(Integer.reverseBytes((int) (long) x.checkdouble()));
            }
        });
        bit.rawset("tohex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                int x = (int) (long) args.checkdouble(1);
                int n = args.isnoneornil(2) ? 8 : args.checkint(2);
                boolean upper = n < 0;
                n = Math.min(8, Math.abs(n));
                String hex = String.format(upper ? "%08X" : "%08x", x);
                return LuaValue.valueOf(hex.substring(8 - n));
            }
        });
        bit.rawset("tobit", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue x) {
                return LuaValue.valueOf((int) (long) x.checkdouble());
            }
        });
        return bit;
    }

    /** {@code load}/{@code loadstring} of Lua source into the script's own globals; never bytecode. */
    private static final class LoadText extends VarArgFunction {
        private final Globals g;

        LoadText(Globals g) {
            this.g = g;
        }

        @Override
        public Varargs invoke(Varargs args) {
            byte[] text = LuaReplies.argument(args.checkstring(1));
            if (text.length > 0 && text[0] == 0x1b) {
                return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf("bytecode is not allowed"));
            }
            try {
                return g.load(new ByteArrayInputStream(text), args.optjstring(2, "=(load)"), "t", g);
            } catch (LuaError e) {
                return LuaValue.varargsOf(LuaValue.NIL, LuaValue.valueOf(String.valueOf(e.getMessage())));
            }
        }
    }

    /**
     * Stops a killed script, and knows the line it runs: LuaJ calls {@link #onInstruction} before every
     * instruction once a debug library is installed; once {@code SCRIPT KILL} marked the run, every
     * instruction raises {@link #KILLED} (again after a {@code pcall} caught it), so the script ends.
     * The line is where an error raised by a Java function (a {@code redis.call}) happened: LuaJ gives
     * such an error no position when the call is a tail call ({@code return redis.call(...)}).
     */
    static final class Watchdog extends DebugLib {
        private final ScriptRun run;
        /** The Lua functions being run, innermost last (null for a Java function's frame). */
        private final ArrayDeque<LuaClosure> frames = new ArrayDeque<>();

        private int line;
        private int sinceMemoryCheck;

        Watchdog(ScriptRun run) {
            this.run = run;
        }

        /** The line of the script's last instruction run, 0 before the first. */
        int line() {
            return line;
        }

        @Override
        public void onCall(LuaFunction f) {
            frames.push(NATIVE);
            super.onCall(f);
        }

        @Override
        public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
            frames.push(c);
            super.onCall(c, varargs, stack);
        }

        @Override
        public void onReturn() {
            frames.poll();
            super.onReturn();
        }

        @Override
        public LuaValue call(LuaValue name, LuaValue env) {
            LuaValue lib = super.call(name, env);
            env.checkglobals().debuglib = this;
            return lib;
        }

        @Override
        public void onInstruction(int pc, Varargs v, int top) {
            if (run.killed()) throw new LuaError(LuaReplies.single(LuaReplies.ERR, LuaValue.valueOf(KILLED)));
            if (run.pastDeadline()) {
                throw new LuaError(LuaReplies.single(LuaReplies.ERR, LuaValue.valueOf(LOAD_TIMEOUT)));
            }
            if (++sinceMemoryCheck >= MEMORY_CHECK_EVERY) {
                sinceMemoryCheck = 0;
                // raised again at the next check after a pcall caught it: still past
                if (run.pastMemory()) {
                    sinceMemoryCheck = MEMORY_CHECK_EVERY;
                    throw new LuaError(LuaReplies.single(LuaReplies.ERR, LuaValue.valueOf(OUT_OF_MEMORY)));
                }
            }
            LuaClosure c = frames.peek();
            if (c != null && c != NATIVE && c.p.lineinfo != null && pc < c.p.lineinfo.length) {
                line = c.p.lineinfo[pc];
                run.line(line);
            }
            super.onInstruction(pc, v, top);
        }
    }
}
