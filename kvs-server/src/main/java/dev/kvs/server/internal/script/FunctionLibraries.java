package dev.kvs.server.internal.script;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

/**
 * The node's function libraries ({@code FUNCTION LOAD}, {@code DELETE}, {@code FLUSH}, {@code DUMP},
 * {@code RESTORE}): each library compiled and its code run once at load in Redis 7.0's bare load globals
 * ({@link ScriptSandbox#loadGlobals}) to learn its functions, with Redis 7.0.15's checks and error words.
 * Bounded in count and in code bytes ({@link #MAX_LIBRARIES}, {@link #MAX_CODE_BYTES}): past either a load
 * is refused (a library, unlike a cached script, cannot be forgotten: an {@code FCALL} has no fallback).
 * Thread-safe (synchronized; changes are all-or-nothing).
 *
 * <p>{@code DUMP}'s payload is kvs's own, not Redis's RDB blob: {@code KVSF}, a version byte, each
 * library's code (length-prefixed), a CRC32C. Only kvs's {@code RESTORE} reads it.
 */
public final class FunctionLibraries {
    public static final int MAX_LIBRARIES = 1_000;
    public static final long MAX_CODE_BYTES = 16L << 20;
    /** How long a library's code may run at load, as Redis's 500 ms. */
    static final long LOAD_LIMIT_NANOS = 500_000_000L;

    private static final byte[] MAGIC = {'K', 'V', 'S', 'F', 1};

    private Map<String, FunctionLibrary> byName = new LinkedHashMap<>();
    /** Each function's library, by lower-case function name. */
    private Map<String, FunctionLibrary> byFunction = new HashMap<>();

    private long bytes;

    /** What {@code FUNCTION RESTORE} does with the libraries already loaded. */
    public enum Policy {
        FLUSH,
        APPEND,
        REPLACE
    }

    /**
     * {@code FUNCTION LOAD [REPLACE] code}.
     *
     * @return the library's name
     * @throws ScriptEngine.Refused with Redis's error for bad metadata, code, registrations or a collision
     */
    public String load(byte[] code, boolean replace) throws ScriptEngine.Refused {
        FunctionLibrary lib = compile(code);
        install(List.of(lib), replace ? Policy.REPLACE : Policy.APPEND, false);
        return lib.name();
    }

    /** {@code FUNCTION DELETE}: false if there is no such library. */
    public synchronized boolean delete(String name) {
        FunctionLibrary lib = byName.remove(name);
        if (lib == null) return false;
        for (FunctionLibrary.Function f : lib.functions())
            byFunction.remove(f.name().toLowerCase(Locale.ROOT));
        bytes -= lib.code().length;
        return true;
    }

    /** {@code FUNCTION FLUSH}. */
    public synchronized void flush() {
        byName = new LinkedHashMap<>();
        byFunction = new HashMap<>();
        bytes = 0;
    }

    /** The libraries, in load order. */
    public synchronized List<FunctionLibrary> libraries() {
        return List.copyOf(byName.values());
    }

    /** The library that has the function {@code name} (any case), or null. */
    public synchronized FunctionLibrary libraryOf(String name) {
        return byFunction.get(name.toLowerCase(Locale.ROOT));
    }

    public synchronized int libraryCount() {
        return byName.size();
    }

    public synchronized int functionCount() {
        return byFunction.size();
    }

    /** The libraries' code, in bytes. */
    public synchronized long codeBytes() {
        return bytes;
    }

    /** {@code FUNCTION DUMP}: every library's code, in kvs's payload. */
    public byte[] dump() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            out.write(MAGIC);
            for (FunctionLibrary lib : libraries()) {
                out.writeInt(lib.code().length);
                out.write(lib.code());
            }
            CRC32C crc = new CRC32C();
            crc.update(b.toByteArray());
            out.writeInt((int) crc.getValue());
        } catch (IOException e) {
            throw new IllegalStateException("a byte array cannot fail", e);
        }
        return b.toByteArray();
    }

    /**
     * {@code FUNCTION RESTORE payload policy}: the payload's libraries, all or none.
     *
     * @throws ScriptEngine.Refused for a payload not made by {@link #dump}, or as {@link #load} refuses
     */
    public void restore(byte[] payload, Policy policy) throws ScriptEngine.Refused {
        List<FunctionLibrary> libs = new ArrayList<>();
        for (byte[] code : codes(payload)) libs.add(compile(code));
        install(libs, policy, true);
    }

    private static List<byte[]> codes(byte[] payload) throws ScriptEngine.Refused {
        ScriptEngine.Refused bad = new ScriptEngine.Refused("ERR DUMP payload version or checksum are wrong");
        if (payload.length < MAGIC.length + 4) throw bad;
        for (int i = 0; i < MAGIC.length; i++) if (payload[i] != MAGIC[i]) throw bad;
        CRC32C crc = new CRC32C();
        crc.update(payload, 0, payload.length - 4);
        int end = payload.length - 4;
        int stored = ((payload[end] & 0xff) << 24)
                | ((payload[end + 1] & 0xff) << 16)
                | ((payload[end + 2] & 0xff) << 8)
                | (payload[end + 3] & 0xff);
        if (stored != (int) crc.getValue()) throw bad;
        List<byte[]> codes = new ArrayList<>();
        try (DataInputStream in =
                new DataInputStream(new ByteArrayInputStream(payload, MAGIC.length, end - MAGIC.length))) {
            while (in.available() > 0) {
                int n = in.readInt();
                if (n < 0 || n > in.available()) throw bad;
                codes.add(in.readNBytes(n));
            }
        } catch (IOException e) {
            throw bad;
        }
        return codes;
    }

    /** Adds {@code libs} as {@code policy} says, or nothing if any collides or the bounds would be passed. */
    private synchronized void install(List<FunctionLibrary> libs, Policy policy, boolean restoring)
            throws ScriptEngine.Refused {
        Map<String, FunctionLibrary> names =
                policy == Policy.FLUSH ? new LinkedHashMap<>() : new LinkedHashMap<>(byName);
        for (FunctionLibrary lib : libs) {
            if (names.containsKey(lib.name()) && policy != Policy.REPLACE) {
                // Redis's words differ: quoted from LOAD, not from RESTORE
                throw new ScriptEngine.Refused(
                        restoring
                                ? "ERR Library " + lib.name() + " already exists"
                                : "ERR Library '" + lib.name() + "' already exists");
            }
            names.put(lib.name(), lib);
        }
        Map<String, FunctionLibrary> functions = new HashMap<>();
        long total = 0;
        for (FunctionLibrary lib : names.values()) {
            total += lib.code().length;
            for (FunctionLibrary.Function f : lib.functions()) {
                if (functions.putIfAbsent(f.name().toLowerCase(Locale.ROOT), lib) != null) {
                    throw new ScriptEngine.Refused("ERR Function " + f.name() + " already exists");
                }
            }
        }
        if (names.size() > MAX_LIBRARIES || total > MAX_CODE_BYTES) {
            throw new ScriptEngine.Refused("ERR kvs holds at most " + MAX_LIBRARIES + " libraries and " + MAX_CODE_BYTES
                    + " bytes of their code: FUNCTION DELETE one first");
        }
        byName = names;
        byFunction = functions;
        bytes = total;
    }

    /** Compiles {@code code} and runs it in the load globals to learn its functions. */
    static FunctionLibrary compile(byte[] code) throws ScriptEngine.Refused {
        if (code.length > ScriptEngine.MAX_BODY_BYTES) {
            throw new ScriptEngine.Refused(
                    "ERR library of " + code.length + " bytes is over kvs's bound of " + ScriptEngine.MAX_BODY_BYTES);
        }
        if (code.length < 2 || code[0] != '#' || code[1] != '!')
            throw new ScriptEngine.Refused("ERR Missing library metadata");
        int eol = 0;
        while (eol < code.length && code[eol] != '\n') eol++;
        if (eol == code.length) throw new ScriptEngine.Refused("ERR Invalid library metadata");
        String name = libraryName(new String(code, 0, eol, StandardCharsets.UTF_8));
        byte[] body = new byte[code.length - eol];
        System.arraycopy(code, eol, body, 0, body.length); // keeps the newline: lines count as written
        Prototype chunk;
        try {
            chunk = LuaC.instance.compile(new ByteArrayInputStream(body), "@" + ScriptEngine.FUNCTION_CHUNK);
        } catch (LuaError | IOException e) {
            throw new ScriptEngine.Refused("ERR Error compiling function: " + e.getMessage());
        }
        ScriptRun run = new ScriptRun(name, true, true, LOAD_LIMIT_NANOS);
        FunctionRegistrar registrar = new FunctionRegistrar();
        LuaTable redis = new LuaTable();
        redis.rawset("register_function", registrar);
        RedisLib.addLog(redis);
        RedisLib.addVersion(redis);
        try {
            new LuaClosure(chunk, ScriptSandbox.loadGlobals(run, redis)).call();
        } catch (LuaError e) {
            throw new ScriptEngine.Refused("ERR Error registering functions: "
                    + ScriptEngine.errorText(e, ScriptEngine.FUNCTION_CHUNK, run.line()));
        } catch (StackOverflowError e) {
            throw new ScriptEngine.Refused("ERR Error registering functions: stack overflow");
        }
        List<FunctionLibrary.Function> functions = new ArrayList<>();
        for (FunctionRegistrar.Registered r : registrar.registered()) functions.add(r.function());
        if (functions.isEmpty()) throw new ScriptEngine.Refused("ERR No functions registered");
        return new FunctionLibrary(name, code.clone(), chunk, functions);
    }

    /** The library's name from its shebang line ({@code #!lua name=...}), checked as Redis 7.0.15 checks it. */
    private static String libraryName(String shebang) throws ScriptEngine.Refused {
        List<String> parts = splitArgs(shebang);
        String engine = parts.isEmpty()
                ? ""
                : parts.get(0).substring(Math.min(2, parts.get(0).length()));
        if (!engine.equalsIgnoreCase("lua")) throw new ScriptEngine.Refused("ERR Engine '" + engine + "' not found");
        String name = null;
        for (String part : parts.subList(1, parts.size())) {
            if (!part.startsWith("name=")) throw new ScriptEngine.Refused("ERR Invalid metadata value given: " + part);
            if (name != null) {
                throw new ScriptEngine.Refused("ERR Invalid metadata value, name argument was given multiple times");
            }
            name = part.substring(5);
        }
        if (name == null) throw new ScriptEngine.Refused("ERR Library name was not given");
        if (!FunctionRegistrar.validName(name)) throw new ScriptEngine.Refused(FunctionRegistrar.BAD_NAME);
        return name;
    }

    /** The line's words as Redis's {@code sdssplitargs} reads them: split on spaces, quotes taken out. */
    private static List<String> splitArgs(String line) throws ScriptEngine.Refused {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                else word.append(c);
            } else if (c == ' ' || c == '\t' || c == '\r') {
                if (word != null) words.add(word.toString());
                word = null;
            } else {
                if (word == null) word = new StringBuilder();
                if (c == '"' || c == '\'') quote = c;
                else word.append(c);
            }
        }
        if (quote != 0) throw new ScriptEngine.Refused("ERR Invalid library metadata");
        if (word != null) words.add(word.toString());
        return words;
    }
}
