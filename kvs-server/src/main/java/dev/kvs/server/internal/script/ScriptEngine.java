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

    private static final Pattern LINE = Pattern.compile("user_script:(\\d+)");
    private static final Pattern POSITION = Pattern.compile("^@?(user_script:\\d+) ");

    private final ScriptCache cache = new ScriptCache(MAX_CACHED_SCRIPTS, MAX_CACHED_BYTES);
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
        boolean tracked = running == null;
        if (tracked) running = run;
        Globals g = null;
        try {
            g = ScriptSandbox.globals(run, RedisLib.table(run, calls), keys, argv);
            return LuaReplies.toReply(new LuaClosure(script.code(), g).call());
        } catch (LuaError e) {
            int line = g != null && g.debuglib instanceof ScriptSandbox.Watchdog w ? w.line() : 0;
            return errorReply(e, script.sha(), line);
        } catch (StackOverflowError e) {
            return new ErrorRedisMessage("ERR Error running script (call to f_" + script.sha() + "): stack overflow");
        } finally {
            if (tracked) running = null;
        }
    }

    /** Redis's reply for what a script raised: its error table's text, or {@code ERR} and the message; and where. */
    private static RedisMessage errorReply(LuaError e, String sha, int lastLine) {
        String full = String.valueOf(e.getMessage());
        int trace = full.indexOf("\nstack traceback:");
        if (trace >= 0) full = full.substring(0, trace);
        Matcher at = LINE.matcher(full);
        String line = lastLine > 0 ? Integer.toString(lastLine) : at.find() ? at.group(1) : null;
        LuaValue obj = e.getMessageObject();
        String text;
        if (obj != null && obj.istable() && obj.get(LuaReplies.ERR).isstring()) {
            text = obj.get(LuaReplies.ERR).tojstring();
        } else {
            String s = obj != null && obj.isstring() ? obj.tojstring() : full;
            int t = s.indexOf("\nstack traceback:");
            if (t >= 0) s = s.substring(0, t);
            // Lua 5.1's words where LuaJ's differ, for clients that match them
            text = "ERR "
                    + POSITION.matcher(s)
                            .replaceFirst("$1: ")
                            .replace("attempt to call nil", "attempt to call a nil value");
        }
        String where = line == null ? "" : " script: " + sha + ", on @user_script:" + line + ".";
        return new ErrorRedisMessage(LuaReplies.oneLine(text) + where);
    }

    /** True if a script has run longer than {@link #busyMillis}: other clients are answered {@code BUSY}. */
    public boolean busy() {
        ScriptRun r = running;
        return r != null && r.runningNanos() > busyMillis * 1_000_000;
    }

    /** What {@code SCRIPT KILL} answers: OK once the running script is marked killed, else why not. */
    public RedisMessage kill() {
        ScriptRun r = running;
        if (r == null) return new ErrorRedisMessage("NOTBUSY No scripts in execution right now.");
        if (r.wrote()) {
            return new ErrorRedisMessage("UNKILLABLE Sorry the script already executed write commands against the"
                    + " dataset. You can either wait the script termination or kill the server in a hard way using"
                    + " the SHUTDOWN NOSAVE command.");
        }
        r.kill();
        return null;
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
