package dev.kvs.server.internal.script;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * {@code redis.register_function} of one run of a library's code, in both of Redis 7.0's forms ({@code
 * (name, callback)} and {@code {function_name=, callback=, flags=, description=}}), with Redis's checks and
 * error words. It collects the functions registered; once {@linkplain #close closed} (the library's code
 * has run, and a function runs) it is gone, as in Redis, where a function's {@code redis} has no {@code
 * register_function}. Used on one thread.
 */
final class FunctionRegistrar extends VarArgFunction {
    static final String BAD_NAME = "ERR Library names can only contain letters, numbers, or underscores(_) and must be"
            + " at least one character long";

    /** The registered functions by lower-case name (Redis's function names are case-insensitive). */
    private final Map<String, Registered> functions = new LinkedHashMap<>();

    private boolean closed;

    /** One registration: what {@code FUNCTION LIST} shows, and the callback of this run. */
    record Registered(FunctionLibrary.Function function, LuaFunction callback) {}

    @Override
    public Varargs invoke(Varargs args) {
        // Redis's words for calling a field that is not there (its functions' redis has no register_function);
        // the engine adds the line
        if (closed) throw new LuaError("attempt to call field 'register_function' (a nil value)");
        String name = null;
        String description = null;
        LuaFunction callback = null;
        List<String> flags = new ArrayList<>();
        if (args.narg() == 1) {
            if (!args.arg1().istable())
                throw RedisLib.raised(
                        "ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs n = args.arg1().next(k);
                if ((k = n.arg1()).isnil()) break;
                LuaValue v = n.arg(2);
                if (!k.isstring())
                    throw RedisLib.raised("ERR named argument key given to redis.register_function is not a string");
                switch (k.tojstring()) {
                    case "function_name" -> {
                        if (!v.isstring())
                            throw RedisLib.raised(
                                    "ERR function_name argument given to redis.register_function must be a string");
                        name = v.tojstring();
                    }
                    case "description" -> {
                        if (!v.isstring())
                            throw RedisLib.raised(
                                    "ERR description argument given to redis.register_function must be a string");
                        description = v.tojstring();
                    }
                    case "callback" -> {
                        if (!v.isfunction())
                            throw RedisLib.raised(
                                    "ERR callback argument given to redis.register_function must be a function");
                        callback = (LuaFunction) v;
                    }
                    case "flags" -> flags = flags(v);
                    default -> throw RedisLib.raised("ERR unknown argument given to redis.register_function");
                }
            }
            if (name == null) throw RedisLib.raised("ERR redis.register_function must get a function name argument");
            if (callback == null) throw RedisLib.raised("ERR redis.register_function must get a callback argument");
        } else if (args.narg() == 2) {
            if (!args.arg1().isstring())
                throw RedisLib.raised("ERR first argument to redis.register_function must be a string");
            if (!args.arg(2).isfunction())
                throw RedisLib.raised("ERR second argument to redis.register_function must be a function");
            name = args.arg1().tojstring();
            callback = (LuaFunction) args.arg(2);
        } else {
            throw RedisLib.raised("ERR wrong number of arguments to redis.register_function");
        }
        if (!validName(name)) throw RedisLib.raised(BAD_NAME);
        String key = name.toLowerCase(Locale.ROOT);
        if (functions.containsKey(key)) throw RedisLib.raised("ERR Function already exists in the library");
        functions.put(key, new Registered(new FunctionLibrary.Function(name, description, flags), callback));
        return LuaValue.NONE;
    }

    private static List<String> flags(LuaValue v) {
        if (!v.istable())
            throw RedisLib.raised(
                    "ERR flags argument to redis.register_function must be a table representing function flags");
        List<String> given = new ArrayList<>();
        for (int i = 1; ; i++) {
            LuaValue f = v.get(i);
            if (f.isnil()) break;
            if (!f.isstring() || !FunctionLibrary.FLAGS.contains(f.tojstring()))
                throw RedisLib.raised("ERR unknown flag given");
            given.add(f.tojstring());
        }
        List<String> ordered = new ArrayList<>();
        for (String f : FunctionLibrary.FLAGS) if (given.contains(f)) ordered.add(f);
        return ordered;
    }

    /** Redis's rule for library and function names: letters, digits and {@code _}, at least one. */
    static boolean validName(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
        }
        return true;
    }

    /** The functions registered so far, in order. */
    List<Registered> registered() {
        return List.copyOf(functions.values());
    }

    /** The registration of {@code name} (any case), or null. */
    Registered registration(String name) {
        return functions.get(name.toLowerCase(Locale.ROOT));
    }

    /** The library's code has run: {@code register_function} is gone. */
    void close() {
        closed = true;
    }
}
