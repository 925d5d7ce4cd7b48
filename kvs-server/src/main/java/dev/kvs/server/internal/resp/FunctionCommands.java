package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.script.FunctionLibraries;
import dev.kvs.server.internal.script.FunctionLibrary;
import dev.kvs.server.internal.script.ScriptEngine;
import dev.kvs.server.internal.script.ScriptRun;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Redis's {@code FUNCTION} command: {@code LOAD [REPLACE]}, {@code LIST [LIBRARYNAME pattern] [WITHCODE]},
 * {@code DELETE}, {@code FLUSH [ASYNC|SYNC]}, {@code DUMP}, {@code RESTORE [FLUSH|APPEND|REPLACE]}, {@code
 * STATS}, {@code KILL} and {@code HELP}, with Redis 7.0.15's replies and error words; the libraries are
 * the engine's ({@link FunctionLibraries}), {@code FCALL} is {@link ScriptCommands}'. {@code DUMP}'s
 * payload is kvs's own (it {@code RESTORE}s on kvs, not on Redis). Stateless; shared by the connections.
 */
final class FunctionCommands {
    private final ScriptEngine engine;
    private final FunctionLibraries libraries;
    /** The command of the script running now ({@code FUNCTION STATS}), or null. */
    private final Supplier<byte[][]> runningCommand;

    FunctionCommands(ScriptEngine engine, Supplier<byte[][]> runningCommand) {
        this.engine = engine;
        this.libraries = engine.functions();
        this.runningCommand = runningCommand;
    }

    void register(CommandTable t) {
        t.add("FUNCTION", -2, 0, 0, 0, 0, this::function);
    }

    private RedisMessage function(Session s, byte[][] a) {
        String sub = Args.upper(a[1]);
        return switch (sub) {
            case "LOAD" -> load(a);
            case "LIST" -> list(a);
            case "DELETE" -> {
                if (a.length != 3) yield Replies.wrongArity("function|delete");
                yield libraries.delete(Args.text(a[2])) ? Replies.OK : Replies.error("ERR Library not found");
            }
            case "FLUSH" -> flush(a);
            case "DUMP" -> a.length != 2 ? Replies.wrongArity("function|dump") : Replies.bulk(libraries.dump());
            case "RESTORE" -> restore(a);
            case "STATS" -> a.length != 2 ? Replies.wrongArity("function|stats") : stats();
            case "KILL" -> {
                if (a.length != 2) yield Replies.wrongArity("function|kill");
                RedisMessage refused = engine.kill(true);
                yield refused != null ? refused : Replies.OK;
            }
            case "HELP" -> a.length != 2 ? Replies.wrongArity("function|help") : help();
            default -> Replies.error("ERR unknown subcommand '" + Args.text(a[1]) + "'. Try FUNCTION HELP.");
        };
    }

    private RedisMessage load(byte[][] a) {
        if (a.length < 3) return Replies.wrongArity("function|load");
        boolean replace = false;
        int i = 2;
        for (; i < a.length - 1; i++) {
            if (!Args.upper(a[i]).equals("REPLACE"))
                return Replies.error("ERR Unknown option given: " + Args.text(a[i]));
            replace = true;
        }
        try {
            return Replies.bulk(libraries.load(a[i], replace));
        } catch (ScriptEngine.Refused e) {
            return Replies.error(e.getMessage());
        }
    }

    private RedisMessage restore(byte[][] a) {
        if (a.length < 3) return Replies.wrongArity("function|restore");
        if (a.length > 4) {
            return Replies.error("ERR unknown subcommand or wrong number of arguments for '" + Args.text(a[1])
                    + "'. Try FUNCTION HELP.");
        }
        FunctionLibraries.Policy policy = FunctionLibraries.Policy.APPEND;
        if (a.length == 4) {
            try {
                policy = FunctionLibraries.Policy.valueOf(Args.upper(a[3]));
            } catch (IllegalArgumentException e) {
                return Replies.error(
                        "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            }
        }
        try {
            libraries.restore(a[2], policy);
            return Replies.OK;
        } catch (ScriptEngine.Refused e) {
            return Replies.error(e.getMessage());
        }
    }

    private RedisMessage flush(byte[][] a) {
        if (a.length > 3) {
            return Replies.error("ERR unknown subcommand or wrong number of arguments for '" + Args.text(a[1])
                    + "'. Try FUNCTION HELP.");
        }
        if (a.length == 3) {
            String mode = Args.upper(a[2]);
            if (!mode.equals("SYNC") && !mode.equals("ASYNC")) {
                return Replies.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
            }
        }
        libraries.flush();
        return Replies.OK;
    }

    /** {@code FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]}: each library as a map, as Redis 7.0.15. */
    private RedisMessage list(byte[][] a) {
        boolean withCode = false;
        GlobPattern pattern = null;
        for (int i = 2; i < a.length; i++) {
            String arg = Args.upper(a[i]);
            if (arg.equals("WITHCODE") && !withCode) {
                withCode = true;
            } else if (arg.equals("LIBRARYNAME") && pattern == null) {
                if (i + 1 >= a.length) return Replies.error("ERR library name argument was not given");
                pattern = new GlobPattern(a[++i]);
            } else {
                return Replies.error("ERR Unknown argument " + Args.text(a[i]));
            }
        }
        List<RedisMessage> out = new ArrayList<>();
        for (FunctionLibrary lib : libraries.libraries()) {
            if (pattern != null && !pattern.matches(lib.name().getBytes(StandardCharsets.UTF_8))) continue;
            List<RedisMessage> functions = new ArrayList<>();
            for (FunctionLibrary.Function f : lib.functions()) {
                List<RedisMessage> flags = new ArrayList<>();
                for (String flag : f.flags()) flags.add(Replies.bulk(flag));
                functions.add(TypedReplies.map(List.of(
                        Replies.bulk("name"),
                        Replies.bulk(f.name()),
                        Replies.bulk("description"),
                        f.description() == null ? Replies.NIL : Replies.bulk(f.description()),
                        Replies.bulk("flags"),
                        TypedReplies.set(flags))));
            }
            List<RedisMessage> entry = new ArrayList<>(List.of(
                    Replies.bulk("library_name"),
                    Replies.bulk(lib.name()),
                    Replies.bulk("engine"),
                    Replies.bulk("LUA"),
                    Replies.bulk("functions"),
                    Replies.array(functions)));
            if (withCode) {
                entry.add(Replies.bulk("library_code"));
                entry.add(Replies.bulk(lib.code()));
            }
            out.add(TypedReplies.map(entry));
        }
        return Replies.array(out);
    }

    /** {@code FUNCTION STATS}: the script running now (if any) and the one engine's counts. */
    private RedisMessage stats() {
        ScriptRun run = engine.running();
        byte[][] command = runningCommand.get();
        RedisMessage running = Replies.NIL;
        if (run != null && command != null) {
            List<RedisMessage> args = new ArrayList<>(command.length);
            for (byte[] arg : command) args.add(Replies.bulk(arg));
            running = TypedReplies.map(List.of(
                    Replies.bulk("name"),
                    Replies.bulk(run.function() ? run.sha() : "f_" + run.sha()),
                    Replies.bulk("command"),
                    Replies.array(args),
                    Replies.bulk("duration_ms"),
                    Replies.integer(run.runningMillis())));
        }
        RedisMessage lua = TypedReplies.map(List.of(
                Replies.bulk("libraries_count"),
                Replies.integer(libraries.libraryCount()),
                Replies.bulk("functions_count"),
                Replies.integer(libraries.functionCount())));
        return TypedReplies.map(List.of(
                Replies.bulk("running_script"),
                running,
                Replies.bulk("engines"),
                TypedReplies.map(List.of(Replies.bulk("LUA"), lua))));
    }

    private static final String[] HELP = {
        "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION"
                + " RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        "HELP",
        "    Prints this help."
    };

    private static RedisMessage help() {
        List<RedisMessage> out = new ArrayList<>(HELP.length);
        for (String line : HELP) out.add(new SimpleStringRedisMessage(line));
        return Replies.array(out);
    }
}
