package dev.kvs.server.internal.resp;

import dev.kvs.cluster.HashSlots;
import dev.kvs.core.KvsException;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.script.FunctionLibrary;
import dev.kvs.server.internal.script.Script;
import dev.kvs.server.internal.script.ScriptCalls;
import dev.kvs.server.internal.script.ScriptEngine;
import dev.kvs.server.internal.script.ScriptRun;
import dev.kvs.server.internal.write.WriteUnit;
import dev.kvs.server.internal.write.Writes;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Redis's scripting commands: {@code EVAL}, {@code EVALSHA}, {@code EVAL_RO}, {@code EVALSHA_RO} and
 * {@code SCRIPT LOAD|EXISTS|FLUSH|KILL|HELP}, with Redis 7.0.15's replies; the Lua side is {@link
 * ScriptEngine}'s.
 *
 * <p>A script is atomic on the primary exactly as an {@code EXEC}: it runs alone in the {@link
 * ExecBarrier}, and its writes, each with its own TxId, are committed to replication together in one
 * {@link WriteUnit} (opened at its first write); its reply waits for them as an EXEC's does. It runs
 * on the engine's thread, not on the event loop ({@link #start}): the connection's later commands are
 * held until it ends ({@link Session#script}), and the event loops stay free to answer other clients
 * {@code BUSY} once it has run longer than {@code busy-reply-threshold}, and to take the {@code SCRIPT
 * KILL} that stops it. Inside {@code MULTI} a script is queued and run by {@code EXEC}, on its thread
 * and in its barrier and unit. Each {@code redis.call} is checked as Redis checks a script's call, then
 * run as a queued command is. Owns no state of its own; shared by the port's connections.
 */
final class ScriptCommands {
    static final ErrorRedisMessage BUSY =
            Replies.error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
    static final ErrorRedisMessage NOSCRIPT = Replies.error("NOSCRIPT No matching script. Please use EVAL.");

    /** Redis 7.0.15's commands flagged {@code allow-busy} that kvs has, and SCRIPT (for SCRIPT KILL). */
    private static final Set<String> ALLOWED_WHILE_BUSY =
            Set.of("AUTH", "DISCARD", "HELLO", "MULTI", "QUIT", "RESET", "SHUTDOWN", "UNWATCH", "WATCH");
    /**
     * Redis 7.0.15's commands flagged {@code noscript} that kvs has, the ones Redis refuses by subcommand, and
     * the blocking ones kvs lacks (a script gets Redis's refusal for them, not "unknown").
     */
    private static final Set<String> NOT_IN_SCRIPTS = Set.of(
            "AUTH",
            "DISCARD",
            "EVAL",
            "EVAL_RO",
            "EVALSHA",
            "EVALSHA_RO",
            "FCALL",
            "FCALL_RO",
            "EXEC",
            "HELLO",
            "MULTI",
            "QUIT",
            "RESET",
            "ROLE",
            "SHUTDOWN",
            "UNWATCH",
            "WAIT",
            "WATCH",
            "SCRIPT",
            "FUNCTION",
            "CLIENT",
            "FAILOVER",
            "REPLICAOF",
            "SLAVEOF",
            "SAVE",
            "BGSAVE",
            "BGREWRITEAOF",
            "MONITOR",
            "SUBSCRIBE",
            "UNSUBSCRIBE",
            "PSUBSCRIBE",
            "PUNSUBSCRIBE",
            "SSUBSCRIBE",
            "SUNSUBSCRIBE",
            "BLPOP",
            "BRPOP",
            "BLMOVE",
            "BRPOPLPUSH",
            "BZPOPMIN",
            "BZPOPMAX");

    private final CommandContext node;
    private final ScriptEngine engine;
    private final ExecBarrier barrier;
    private final Writes writes;
    private final CommandTable table;
    private final CommandRefusals refusals;
    private final ClusterView cluster;
    private final ClientStats stats;

    ScriptCommands(
            CommandContext node,
            ScriptEngine engine,
            ExecBarrier barrier,
            CommandTable table,
            CommandRefusals refusals,
            ClientStats stats) {
        this.node = node;
        this.engine = engine;
        this.barrier = barrier;
        this.writes = node.writes();
        this.table = table;
        this.refusals = refusals;
        this.cluster = node.cluster();
        this.stats = stats;
    }

    void register(CommandTable t) {
        int data = CommandSpec.DATA;
        // the table's command runs the script on the caller's thread: EXEC's, which holds the barrier
        t.add("EVAL", -3, data, 0, 0, 0, (s, a) -> runHere(s, a, "EVAL"));
        t.add("EVALSHA", -3, data, 0, 0, 0, (s, a) -> runHere(s, a, "EVALSHA"));
        t.add("EVAL_RO", -3, data, 0, 0, 0, (s, a) -> runHere(s, a, "EVAL_RO"));
        t.add("EVALSHA_RO", -3, data, 0, 0, 0, (s, a) -> runHere(s, a, "EVALSHA_RO"));
        t.add("FCALL", -3, data, 0, 0, 0, (s, a) -> runHere(s, a, "FCALL"));
        t.add("FCALL_RO", -3, data, 0, 0, 0, (s, a) -> runHere(s, a, "FCALL_RO"));
        t.add("SCRIPT", -2, 0, 0, 0, 0, this::script);
    }

    /** True if {@code spec} runs a script: {@link CommandDispatch} runs it with {@link #start}. */
    static boolean runsScript(CommandSpec spec) {
        return spec.name().startsWith("EVAL") || spec.name().startsWith("FCALL");
    }

    /** The keys a script's or function's command {@code a} declares ({@code KEYS}); none if its count is wrong. */
    static List<byte[]> declaredKeys(byte[][] a) {
        Long numkeys = a.length > 2 ? Args.parseLong(a[2]) : null;
        if (numkeys == null || numkeys < 0 || numkeys > a.length - 3) return List.of();
        return Arrays.asList(a).subList(3, 3 + numkeys.intValue());
    }

    /** True while a script has run longer than {@code busy-reply-threshold}. */
    boolean busy() {
        return engine.busy();
    }

    /** The {@code BUSY} error other clients get meanwhile: it names {@code SCRIPT KILL} or {@code FUNCTION KILL}. */
    RedisMessage busyReply() {
        ScriptRun r = engine.running();
        return r != null && r.function() ? ScriptEngine.busyReply(true) : BUSY;
    }

    /** True if the command {@code args} names runs while a script is busy (the rest are answered {@link #BUSY}). */
    static boolean allowedWhileBusy(CommandSpec spec, byte[][] args) {
        if (ALLOWED_WHILE_BUSY.contains(spec.name())) return true;
        if (spec.name().equals("SCRIPT"))
            return args.length == 2 && Args.upper(args[1]).equals("KILL");
        if (!spec.name().equals("FUNCTION") || args.length != 2) return false;
        String sub = Args.upper(args[1]);
        return sub.equals("KILL") || sub.equals("STATS");
    }

    /** A script's or function's command's parts, checked (a function's call has its library, no script). */
    private record Call(
            Script script,
            FunctionLibrary library,
            String function,
            boolean readOnly,
            byte[][] keys,
            byte[][] argv,
            byte[][] command) {}

    /** The command of the script running alone now ({@code FUNCTION STATS}), or null. */
    private volatile byte[][] runningCommand;

    byte[][] runningCommand() {
        return runningCommand;
    }

    /**
     * Starts the script {@code args} names on the engine's thread, alone in the barrier; {@code s}'s later
     * commands wait for it ({@link Session#script}). Where reads wait for fenced keys (a backup serving
     * {@code READONLY}, a promoted node's {@code block} policy), it first waits for its declared keys'
     * values, outside the barrier: inside, a read of a fenced key is refused ({@link KeyGate}), since
     * nothing it waited for could arrive while the script holds the barrier.
     *
     * @return an error at once, or the script's reply to come
     */
    RedisMessage start(Session s, CommandSpec spec, byte[][] args) {
        Object parsed = parse(s, spec.name(), args);
        if (parsed instanceof RedisMessage error) return error;
        Call call = (Call) parsed;
        CompletableFuture<Void> ready = KeyGate.whenReadable(node.readGate(), Arrays.asList(call.keys));
        // a key still fenced at the gate's timeout is the script's to meet: its read is refused
        CompletableFuture<RedisMessage> ran = ready == null
                ? engine.submit(() -> barrier.alone(() -> runAtomic(s, call)))
                : ready.handle((v, e) -> null)
                        .thenCompose(v -> engine.submit(() -> barrier.alone(() -> runAtomic(s, call))));
        s.script = ran;
        return new LaterReply(
                ran.thenCompose(r -> r instanceof LaterReply l ? l.reply() : CompletableFuture.completedFuture(r)));
    }

    /** Inside EXEC: runs the script on this thread, in EXEC's barrier (and unit, if it has one). */
    private RedisMessage runHere(Session s, byte[][] args, String name) {
        Object parsed = parse(s, name, args);
        if (parsed instanceof RedisMessage error) return error;
        return runAtomic(s, (Call) parsed);
    }

    /** The script's parts, or the error reply for them. */
    private Object parse(Session s, String name, byte[][] a) {
        boolean function = name.startsWith("FCALL");
        FunctionLibrary library = null;
        if (function) {
            library = engine.functions().libraryOf(Args.text(a[1]));
            if (library == null) return Replies.error("ERR Function not found");
            if (Args.parseLong(a[2]) == null) return Replies.error("ERR Bad number of keys provided");
        }
        Long numkeys = Args.parseLong(a[2]);
        if (numkeys == null) return Replies.error("ERR value is not an integer or out of range");
        if (numkeys < 0) return Replies.error("ERR Number of keys can't be negative");
        if (numkeys > a.length - 3) return Replies.error("ERR Number of keys can't be greater than number of args");
        Script script = null;
        boolean readOnly = name.endsWith("_RO");
        if (function) {
            FunctionLibrary.Function f = functionNamed(library, Args.text(a[1]));
            if (readOnly && !f.noWrites()) {
                return Replies.error("ERR Can not execute a script with write flag using *_ro command.");
            }
        } else if (name.startsWith("EVALSHA")) {
            script = engine.cached(Args.text(a[1]));
            if (script == null) return NOSCRIPT;
        } else {
            try {
                script = engine.load(a[1]);
            } catch (ScriptEngine.Refused e) {
                return Replies.error(e.getMessage());
            }
        }
        if (!function && readOnly && script.shebang() && !script.noWrites()) {
            return Replies.error("ERR Can not execute a script with write flag using *_ro command.");
        }
        byte[][] keys = Arrays.copyOfRange(a, 3, 3 + numkeys.intValue());
        if (cluster.enabled() && keys.length > 0) {
            int slot = HashSlots.slot(keys[0]);
            for (byte[] k : keys) if (HashSlots.slot(k) != slot) return SlotCheck.CROSSSLOT;
            CommandSpec get = table.get("GET");
            RedisMessage elsewhere = refusals.servingRefusal(s, get, new byte[][] {a[0], keys[0]});
            if (elsewhere != null) return elsewhere;
        }
        return new Call(
                script,
                library,
                function ? Args.text(a[1]) : null,
                readOnly,
                keys,
                Arrays.copyOfRange(a, 3 + numkeys.intValue(), a.length),
                a);
    }

    private static FunctionLibrary.Function functionNamed(FunctionLibrary library, String name) {
        for (FunctionLibrary.Function f : library.functions()) if (f.name().equalsIgnoreCase(name)) return f;
        throw new IllegalStateException("library " + library.name() + " has no function " + name);
    }

    /** Runs the script; called with the barrier held alone. Its writes are one unit. */
    private RedisMessage runAtomic(Session s, Call call) {
        Calls calls = new Calls(s, call.keys);
        RedisMessage reply;
        runningCommand = call.command;
        boolean wasAlone = s.alone; // inside EXEC, EXEC's
        s.alone = true;
        try {
            reply = call.library != null
                    ? engine.runFunction(call.library, call.function, call.readOnly, call.keys, call.argv, calls)
                    : engine.run(call.script, call.readOnly, call.keys, call.argv, calls);
        } finally {
            s.alone = wasAlone;
            runningCommand = null;
            if (calls.unit != null) calls.unit.end();
        }
        if (calls.waits.isEmpty()) return reply;
        RedisMessage known = reply;
        return new LaterReply(CompletableFuture.allOf(calls.waits.toArray(new CompletableFuture<?>[0]))
                .handle((v, e) -> e == null ? known : failure(e)));
    }

    /** A write's replication failed: the script's reply is its error, as ReplyQueue answers it. */
    private static RedisMessage failure(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof KvsException k ? Replies.storeError(k) : Replies.error("ERR " + cause.getMessage());
    }

    /** One script's {@code redis.call}s: checked as Redis checks them, run as a queued command is. */
    private final class Calls implements ScriptCalls {
        private final Session session;
        /** The slot of the script's declared keys on a clustered node, or -1. */
        private int slot = -1;

        WriteUnit unit;
        /** Set when EXEC's unit is open on this thread: the script's writes are in it. */
        private boolean inExecUnit;

        final List<CompletableFuture<RedisMessage>> waits = new ArrayList<>();

        Calls(Session session, byte[][] keys) {
            this.session = session;
            if (keys.length > 0) slot = HashSlots.slot(keys[0]);
        }

        @Override
        public RedisMessage call(ScriptRun run, byte[][] args) {
            CommandSpec spec = table.lookup(args[0]);
            if (spec == null) {
                // a command Redis refuses in scripts (a blocking one) is refused so here too, had or not
                return NOT_IN_SCRIPTS.contains(Args.upper(args[0]))
                        ? Replies.error("ERR This Redis command is not allowed from script")
                        : Replies.error("ERR Unknown Redis command called from script");
            }
            if (!spec.arityOk(args.length)) {
                return Replies.error("ERR Wrong number of args calling Redis command from script");
            }
            if (NOT_IN_SCRIPTS.contains(spec.name())) {
                return Replies.error("ERR This Redis command is not allowed from script");
            }
            boolean write = (spec.flagsFor(args) & CommandSpec.WRITE) != 0;
            if (write && run.readOnly()) {
                return Replies.error("ERR Write commands are not allowed from read-only scripts.");
            }
            if (cluster.enabled()) {
                RedisMessage refusal = slotRefusal(spec, args);
                if (refusal != null) return refusal;
            }
            RedisMessage refusal = refusals.refusal(session, spec, args);
            if (refusal != null) return refusal;
            if (write) {
                run.writing();
                RedisMessage notWritable = openUnit();
                if (notWritable != null) return notWritable;
            }
            RedisMessage reply = execute(spec, args);
            if (reply instanceof LaterReply later) {
                CompletableFuture<RedisMessage> f = later.reply().toCompletableFuture();
                waits.add(f);
                if (f instanceof Replies.Known k) return k.reply;
                // not a write's known reply: FLUSHALL/FLUSHDB, whose reply is OK once replicated (a read
                // of a fenced key does not wait in a script: KeyGate refuses it)
                if (!write) return f.join();
                return Replies.OK;
            }
            return reply;
        }

        /** Redis cluster's checks of a script's key: in the declared keys' slot, and served here. */
        private RedisMessage slotRefusal(CommandSpec spec, byte[][] args) {
            int first = spec.firstKeyIn(args);
            if (first <= 0 || first >= args.length) return null;
            int last = spec.lastKeyIn(args);
            int step = Math.max(1, spec.keyStep());
            for (int i = first; i <= last; i += step) {
                int keySlot = HashSlots.slot(args[i]);
                if (slot < 0) slot = keySlot;
                if (keySlot != slot) {
                    return Replies.error("ERR Script attempted to access keys that do not hash to the same slot");
                }
            }
            RedisMessage elsewhere = refusals.servingRefusal(session, spec, args);
            if (elsewhere instanceof ErrorRedisMessage e && e.content().startsWith("MOVED ")) {
                return Replies.error("ERR Script attempted to access a non local key in a cluster node");
            }
            return elsewhere;
        }

        /** Opens the script's write unit before its first write, unless EXEC's is open on this thread. */
        private RedisMessage openUnit() {
            if (unit != null || inExecUnit) return null;
            try {
                unit = writes.beginUnit();
            } catch (IllegalStateException e) {
                inExecUnit = true; // only an EXEC running this script holds a unit while the barrier is ours
            } catch (KvsException e) {
                return Replies.storeError(e);
            }
            return null;
        }

        private RedisMessage execute(CommandSpec spec, byte[][] args) {
            long start = System.nanoTime();
            RedisMessage result;
            try {
                result = spec.command().execute(session, args);
            } catch (KvsException e) {
                result = Replies.storeError(e);
            }
            CommandCounters c = spec.counters();
            c.calls.increment();
            c.nanos.add(System.nanoTime() - start);
            stats.commandsProcessed.increment();
            return result;
        }
    }

    private RedisMessage script(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        switch (sub) {
            case "LOAD" -> {
                if (a.length != 3) return Replies.wrongArity("script|load");
                try {
                    return Replies.bulk(engine.load(a[2]).sha());
                } catch (ScriptEngine.Refused e) {
                    return Replies.error(e.getMessage());
                }
            }
            case "EXISTS" -> {
                if (a.length < 3) return Replies.wrongArity("script|exists");
                List<RedisMessage> out = new ArrayList<>(a.length - 2);
                for (int i = 2; i < a.length; i++) out.add(engine.exists(Args.text(a[i])) ? Replies.ONE : Replies.ZERO);
                return Replies.array(out);
            }
            case "FLUSH" -> {
                if (a.length > 3) return Replies.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
                if (a.length == 3) {
                    String mode = Args.upper(a[2]);
                    if (!mode.equals("SYNC") && !mode.equals("ASYNC")) {
                        return Replies.error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
                    }
                }
                engine.flush();
                return Replies.OK;
            }
            case "KILL" -> {
                if (a.length != 2) return Replies.wrongArity("script|kill");
                RedisMessage refused = engine.kill(false);
                return refused != null ? refused : Replies.OK;
            }
            case "HELP" -> {
                if (a.length != 2) return Replies.wrongArity("script|help");
                return help();
            }
            default -> {
                return Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try SCRIPT HELP.");
            }
        }
    }

    private static final String[] HELP = {
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help."
    };

    private static RedisMessage help() {
        List<RedisMessage> out = new ArrayList<>(HELP.length);
        for (String line : HELP) out.add(new SimpleStringRedisMessage(line));
        return Replies.array(out);
    }

    /** {@code INFO memory}'s scripting lines, as Redis 7.0 names them. */
    void info(StringBuilder b) {
        long bytes = engine.cachedBytes();
        b.append("used_memory_scripts_eval:").append(bytes).append("\r\n");
        b.append("number_of_cached_scripts:").append(engine.cachedScripts()).append("\r\n");
        b.append("used_memory_scripts:").append(bytes).append("\r\n");
    }
}
