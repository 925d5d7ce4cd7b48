package dev.kvs.server.internal.script;

import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

/**
 * The node's Lua scripting: compiles and caches scripts ({@link ScriptCache}), runs one in its sandbox
 * ({@link ScriptSandbox}) turning its result or error into Redis's reply, and knows the one script
 * running, for {@code BUSY} and {@code SCRIPT KILL}.
 *
 * <p>Scripts run on one thread of their own ({@link #submit}), not on an event loop: a script that
 * loops must leave the event loops free to answer other clients {@code BUSY} and to take the {@code
 * SCRIPT KILL} that stops it (Redis, single-threaded, answers them from inside the script's hook). The
 * caller makes the run atomic. Thread-safe; one per node.
 */
public final class ScriptEngine implements AutoCloseable {
    /** Redis's {@code busy-reply-threshold} (alias {@code lua-time-limit}) default, in milliseconds. */
    public static final long DEFAULT_BUSY_MILLIS = 5000;
    /** The longest script body taken, in bytes. */
    public static final int MAX_BODY_BYTES = 4 << 20;
    /** How many compiled scripts are kept, and how many body bytes in all; past either the least recently run goes. */
    public static final int MAX_CACHED_SCRIPTS = 10_000;

    public static final long MAX_CACHED_BYTES = 64L << 20;

    /** The chunk names Redis gives an {@code EVAL} script and a library's code: errors say where by them. */
    static final String SCRIPT_CHUNK = "user_script";

    static final String FUNCTION_CHUNK = "user_function";

    private final ScriptCache cache = new ScriptCache(MAX_CACHED_SCRIPTS, MAX_CACHED_BYTES);
    private final FunctionLibraries functions = new FunctionLibraries();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(null, r, "kvs-script", 64L << 20); // deep recursion ends in an error, not a crash
        t.setDaemon(true);
        return t;
    });

    private volatile long busyMillis = DEFAULT_BUSY_MILLIS;
    private volatile ScriptRun running;

    /** A script that cannot be taken: Redis's error reply. */
    public static final class Refused extends Exception {
        public Refused(String reply) {
            super(reply, null, false, false);
        }
    }

    /**
     * Compiles {@code body} and caches it (unless cached already).
     *
     * @throws Refused with Redis's {@code ERR Error compiling script...} or shebang error
     */
    public Script load(byte[] body) throws Refused {
        String sha = Script.sha1hex(body);
        Script known = cache.get(sha);
        if (known != null) return known;
        if (body.length > MAX_BODY_BYTES) {
            throw new Refused("ERR script of " + body.length + " bytes is over kvs's bound of " + MAX_BODY_BYTES);
        }
        boolean noWrites = false;
        byte[] code = body;
        boolean shebang = body.length >= 2 && body[0] == '#' && body[1] == '!';
        if (shebang) {
            int eol = 0;
            while (eol < body.length && body[eol] != '\n') eol++;
            noWrites = Shebang.noWrites(new String(body, 0, eol, StandardCharsets.UTF_8));
            code = new byte[body.length - eol];
            System.arraycopy(body, eol, code, 0, code.length); // keeps the newline: lines count as written
        }
        Prototype p;
        try {
            p = LuaC.instance.compile(new ByteArrayInputStream(code), "@user_script");
        } catch (LuaError | IOException e) {
            throw new Refused("ERR Error compiling script (new function): " + e.getMessage());
        }
        Script s = new Script(sha, body, p, shebang, noWrites);
        cache.put(s);
        return s;
    }

    /** The cached script named {@code sha} (any case), or null. */
    public Script cached(String sha) {
        return cache.get(sha.toLowerCase(java.util.Locale.ROOT));
    }

    public boolean exists(String sha) {
        return cache.contains(sha.toLowerCase(java.util.Locale.ROOT));
    }

    /** {@code SCRIPT FLUSH}: forgets every script. */
    public void flush() {
        cache.clear();
    }

    public int cachedScripts() {
        return cache.size();
    }

    public long cachedBytes() {
        return cache.bytes();
    }

    /** The node's function libraries ({@code FUNCTION LOAD}...). */
    public FunctionLibraries functions() {
        return functions;
    }

    /** Runs {@code task} on the scripts' thread. */
    public <T> CompletableFuture<T> submit(Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, thread);
    }

    /**
     * Runs {@code script} now, on this thread, with {@code keys} as {@code KEYS} and {@code argv} as
     * {@code ARGV}, its commands going to {@code calls}.
     *
     * @param readOnly run from {@code EVAL_RO}/{@code EVALSHA_RO}: no write command
     * @return its reply: its result converted, or Redis's error reply for what it raised
     */
    public RedisMessage run(Script script, boolean readOnly, byte[][] keys, byte[][] argv, ScriptCalls calls) {
        ScriptRun run = new ScriptRun(script.sha(), readOnly || script.noWrites());
        return tracked(run, SCRIPT_CHUNK, () -> {
            Globals g = ScriptSandbox.globals(run, RedisLib.table(run, calls), keys, argv);
            return new Ran(g, new LuaClosure(script.code(), g).call());
        });
    }

    /**
     * Runs the function {@code name} of {@code library} now, on this thread, with {@code keys} and {@code
     * argv} as its two arguments ({@code FCALL}). The library's code runs first on the fresh sandbox to
     * register its functions again (so nothing is shared between calls), then the function.
     *
     * @param readOnly run from {@code FCALL_RO}: no write command
     * @return its reply: its result converted, or Redis's error reply for what it raised
     */
    public RedisMessage runFunction(
            FunctionLibrary library, String name, boolean readOnly, byte[][] keys, byte[][] argv, ScriptCalls calls) {
        FunctionLibrary.Function f = null;
        for (FunctionLibrary.Function candidate : library.functions()) {
            if (candidate.name().equalsIgnoreCase(name)) f = candidate;
        }
        if (f == null) return new ErrorRedisMessage("ERR Function not found");
        ScriptRun run = new ScriptRun(f.name(), readOnly || f.noWrites(), true, 0);
        return tracked(run, FUNCTION_CHUNK, () -> {
            LuaTable redis = RedisLib.table(run, calls);
            FunctionRegistrar registrar = new FunctionRegistrar();
            redis.rawset("register_function", registrar);
            Globals g = ScriptSandbox.globals(run, redis, null, null);
            new LuaClosure(library.chunk(), g).call();
            registrar.close();
            FunctionRegistrar.Registered r = registrar.registration(run.sha());
            if (r == null) throw new LuaError("function " + run.sha() + " was not registered again");
            return new Ran(g, r.callback().call(ScriptSandbox.strings(keys), ScriptSandbox.strings(argv)));
        });
    }

    /** What a run returned, and the globals it ran in (which know the line it ended on). */
    private record Ran(Globals globals, LuaValue result) {}

    /** Runs {@code body} as {@code run}, known as the running script if none is (a script in EXEC's is). */
    private RedisMessage tracked(ScriptRun run, String chunk, Supplier<Ran> body) {
        boolean tracked = running == null;
        if (tracked) running = run;
        try {
            return LuaReplies.toReply(body.get().result());
        } catch (LuaError e) {
            return errorReply(e, run.sha(), run.line(), chunk);
        } catch (StackOverflowError e) {
            String what = run.function() ? run.sha() : "f_" + run.sha();
            return new ErrorRedisMessage("ERR Error running script (call to " + what + "): stack overflow");
        } catch (OutOfMemoryError e) {
            // one allocation larger than the heap has room for (a string doubled between two checks of
            // the bound): it failed, so the heap is not full; what the script held is garbage now
            return new ErrorRedisMessage(ScriptSandbox.OUT_OF_MEMORY);
        } finally {
            if (tracked) running = null;
        }
    }

    /** Redis's reply for what a script raised: its error table's text, or {@code ERR} and the message; and where. */
    private static RedisMessage errorReply(LuaError e, String name, int lastLine, String chunk) {
        String full = String.valueOf(e.getMessage());
        int trace = full.indexOf("\nstack traceback:");
        if (trace >= 0) full = full.substring(0, trace);
        Matcher at = Pattern.compile(chunk + ":(\\d+)").matcher(full);
        String line = lastLine > 0 ? Integer.toString(lastLine) : at.find() ? at.group(1) : null;
        String where = line == null ? "" : " script: " + name + ", on @" + chunk + ":" + line + ".";
        return new ErrorRedisMessage(LuaReplies.oneLine(errorText(e, chunk, lastLine)) + where);
    }

    /**
     * The text of what a script raised: its error table's, or {@code ERR} and the message with its position
     * (a message raised by a Java function, as cjson's, gets the line the script was on, as Lua 5.1 gives
     * a C function's error the caller's).
     */
    static String errorText(LuaError e, String chunk, int lastLine) {
        LuaValue obj = e.getMessageObject();
        if (obj != null && obj.istable() && obj.get(LuaReplies.ERR).isstring()) {
            return obj.get(LuaReplies.ERR).tojstring();
        }
        String s = obj != null && obj.isstring() ? obj.tojstring() : String.valueOf(e.getMessage());
        int t = s.indexOf("\nstack traceback:");
        if (t >= 0) s = s.substring(0, t);
        // a position LuaJ put before one the message had already is said once
        s = s.replaceFirst("^@?(" + chunk + ":\\d+):? (" + chunk + ":\\d+: )", "$2");
        Matcher positioned = Pattern.compile("^@?(" + chunk + ":\\d+):? ").matcher(s);
        if (positioned.find()) {
            s = positioned.replaceFirst("$1: ");
        } else if (lastLine > 0) {
            s = chunk + ":" + lastLine + ": " + s;
        }
        // Lua 5.1's words where LuaJ's differ, for clients that match them
        return "ERR " + s.replace("attempt to call nil", "attempt to call a nil value");
    }

    /** True if a script has run longer than {@link #busyMillis}: other clients are answered {@code BUSY}. */
    public boolean busy() {
        ScriptRun r = running;
        return r != null && r.runningNanos() > busyMillis * 1_000_000;
    }

    /**
     * What {@code SCRIPT KILL} ({@code function} false) or {@code FUNCTION KILL} answers, as Redis 7.0.15:
     * null once the running script is marked killed, else why not (none runs, it wrote, or it is of the
     * other kind: Redis answers that with the other kind's {@code BUSY}).
     */
    public RedisMessage kill(boolean function) {
        ScriptRun r = running;
        if (r == null) return new ErrorRedisMessage("NOTBUSY No scripts in execution right now.");
        if (r.wrote()) {
            return new ErrorRedisMessage("UNKILLABLE Sorry the script already executed write commands against the"
                    + " dataset. You can either wait the script termination or kill the server in a hard way using"
                    + " the SHUTDOWN NOSAVE command.");
        }
        if (r.function() != function) return busyReply(r.function());
        r.kill();
        return null;
    }

    /** {@code SCRIPT KILL}'s answer: {@link #kill(boolean)} of a script. */
    public RedisMessage kill() {
        return kill(false);
    }

    /** The running script or function, or null. */
    public ScriptRun running() {
        return running;
    }

    /** Redis's {@code BUSY} error while a script ({@code function} false) or a function runs: it names the KILL to use. */
    public static ErrorRedisMessage busyReply(boolean function) {
        return new ErrorRedisMessage("BUSY Redis is busy running a script. You can only call "
                + (function ? "FUNCTION" : "SCRIPT") + " KILL or SHUTDOWN NOSAVE.");
    }

    /** {@code busy-reply-threshold}: how long a script runs before other clients are answered {@code BUSY}. */
    public long busyMillis() {
        return busyMillis;
    }

    public void busyMillis(long millis) {
        busyMillis = millis;
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
