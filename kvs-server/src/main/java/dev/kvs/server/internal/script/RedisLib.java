package dev.kvs.server.internal.script;

import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code redis} table of one script run, as Redis 7.0 gives it: {@code call} (a command's error
 * is raised), {@code pcall} (returned as {@code {err=...}}), {@code error_reply}, {@code status_reply},
 * {@code sha1hex}, {@code log} with {@code LOG_DEBUG}..{@code LOG_WARNING} (to SLF4J, logger {@code
 * kvs.script}), {@code setresp(2)} ({@code 3} is refused: kvs's scripts speak RESP2), and {@code
 * replicate_commands} (always true: a script is replicated as its writes' effects).
 */
final class RedisLib {
    private static final Logger scriptLog = LoggerFactory.getLogger("kvs.script");

    private RedisLib() {}

    /** The {@code redis} table for {@code run}, its calls going to {@code calls}. */
    static LuaTable table(ScriptRun run, ScriptCalls calls) {
        LuaTable redis = new LuaTable();
        redis.rawset("call", new Call(run, calls, true));
        redis.rawset("pcall", new Call(run, calls, false));
        redis.rawset("error_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue msg) {
                return errorTable(msg.checkjstring());
            }
        });
        redis.rawset("status_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue msg) {
                return LuaReplies.single(LuaReplies.OK, LuaValue.valueOf(msg.checkjstring()));
            }
        });
        redis.rawset("sha1hex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() != 1) throw raised("ERR wrong number of arguments");
                return LuaValue.valueOf(Script.sha1hex(LuaReplies.argument(args.checkstring(1))));
            }
        });
        addLog(redis);
        redis.rawset("setresp", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                int resp = v.checkint();
                if (resp == 2) return LuaValue.NONE;
                if (resp == 3) throw raised("ERR RESP3 is not supported in kvs scripts yet: redis.setresp(2) only");
                throw raised("ERR RESP version must be 2 or 3.");
            }
        });
        redis.rawset("replicate_commands", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.TRUE;
            }
        });
        // Redis 7 replicates a script as its effects whatever set_repl says; kvs always does: accepted, no-op
        redis.rawset("REPL_NONE", 0);
        redis.rawset("REPL_AOF", 1);
        redis.rawset("REPL_SLAVE", 2);
        redis.rawset("REPL_REPLICA", 2);
        redis.rawset("REPL_ALL", 3);
        redis.rawset("set_repl", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                if (args.narg() != 1) throw raised("ERR redis.set_repl() requires two arguments.");
                int flags = args.arg1().isnumber() || args.arg1().isstring()
                        ? (int) args.arg1().optdouble(0)
                        : 0;
                if ((flags & ~3) != 0) {
                    throw raised("ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
                }
                return LuaValue.NONE;
            }
        });
        // as Redis without its Lua debugger (SCRIPT DEBUG): no breakpoint is ever taken, debug prints nothing
        redis.rawset("breakpoint", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.FALSE;
            }
        });
        redis.rawset("debug", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.NONE;
            }
        });
        addVersion(redis);
        return redis;
    }

    /** The Redis version kvs answers as, as {@code INFO}'s {@code redis_version} gives it. */
    static final String REDIS_VERSION = "7.2.0";

    /** Adds {@code REDIS_VERSION} and {@code REDIS_VERSION_NUM} to {@code redis} (a library's load has them too). */
    static void addVersion(LuaTable redis) {
        redis.rawset("REDIS_VERSION", REDIS_VERSION);
        String[] v = REDIS_VERSION.split("\\.");
        redis.rawset(
                "REDIS_VERSION_NUM",
                (Integer.parseInt(v[0]) << 16) | (Integer.parseInt(v[1]) << 8) | Integer.parseInt(v[2]));
    }

    /** Adds {@code log} and its levels to {@code redis} (a library's load has them too). */
    static void addLog(LuaTable redis) {
        redis.rawset("log", new Log());
        redis.rawset("LOG_DEBUG", 0);
        redis.rawset("LOG_VERBOSE", 1);
        redis.rawset("LOG_NOTICE", 2);
        redis.rawset("LOG_WARNING", 3);
    }

    /**
     * Redis's error table for {@code text}: {@code -CODE msg} keeps its code, any other text gets {@code
     * ERR} (so {@code error_reply('x')} is {@code ERR x}, {@code error_reply('MY x')} is {@code MY x}).
     */
    static LuaTable errorTable(String text) {
        String t = text.startsWith("-") ? text.substring(1) : text;
        if (t.indexOf(' ') < 0) t = "ERR " + t;
        while (t.endsWith("\r") || t.endsWith("\n")) t = t.substring(0, t.length() - 1);
        return LuaReplies.single(LuaReplies.ERR, LuaValue.valueOf(t));
    }

    /** An error raised into the script, as a table: the script's reply shows where it was raised. */
    static LuaError raised(String text) {
        return new LuaError(LuaReplies.single(LuaReplies.ERR, LuaValue.valueOf(text)));
    }

    /** {@code redis.call} ({@code raise}) or {@code redis.pcall}. */
    private static final class Call extends VarArgFunction {
        private final ScriptRun run;
        private final ScriptCalls calls;
        private final boolean raise;

        Call(ScriptRun run, ScriptCalls calls, boolean raise) {
            this.run = run;
            this.calls = calls;
            this.raise = raise;
        }

        @Override
        public Varargs invoke(Varargs args) {
            int n = args.narg();
            if (n == 0) return failed("ERR Please specify at least one argument for this redis lib call");
            byte[][] argv = new byte[n][];
            for (int i = 0; i < n; i++) {
                argv[i] = LuaReplies.argument(args.arg(i + 1));
                if (argv[i] == null) return failed("ERR Lua redis lib command arguments must be strings or integers");
            }
            RedisMessage reply = calls.call(run, argv);
            if (raise && reply instanceof ErrorRedisMessage e) throw raised(e.content());
            try {
                return LuaReplies.toLua(reply);
            } finally {
                ReferenceCountUtil.release(reply); // as the encoder releases a reply it wrote
            }
        }

        /** A call that could not be made: raised by {@code call}, returned by {@code pcall}. */
        private LuaValue failed(String text) {
            if (raise) throw raised(text);
            return LuaReplies.single(LuaReplies.ERR, LuaValue.valueOf(text));
        }
    }

    /** {@code redis.log(level, message...)}: the messages joined by spaces, at the level's SLF4J level. */
    private static final class Log extends VarArgFunction {
        @Override
        public Varargs invoke(Varargs args) {
            if (args.narg() < 2) throw raised("ERR redis.log() requires two arguments or more.");
            if (!args.arg1().isnumber()) throw raised("ERR First argument must be a number (log level).");
            int level = args.arg1().toint();
            if (level < 0 || level > 3) throw raised("ERR Invalid debug level.");
            StringBuilder b = new StringBuilder();
            for (int i = 2; i <= args.narg(); i++) {
                if (i > 2) b.append(' ');
                b.append(args.arg(i).tojstring());
            }
            switch (level) {
                case 0 -> scriptLog.debug("{}", b);
                case 1, 2 -> scriptLog.info("{}", b);
                default -> scriptLog.warn("{}", b);
            }
            return LuaValue.NONE;
        }
    }
}
