package dev.kvs.server.internal.script;

/**
 * A script's first line when it starts with {@code #!}, as Redis 7 reads it: {@code #!lua} then
 * options, of which only {@code flags=} with Redis's flags; {@code no-writes} is the one kvs acts on
 * (the others are accepted: kvs has no out-of-memory or stale-replica state they would lift).
 */
final class Shebang {
    private Shebang() {}

    /**
     * True if the shebang {@code line} sets {@code no-writes}.
     *
     * @throws ScriptEngine.Refused with Redis's words for another engine, option or flag
     */
    static boolean noWrites(String line) throws ScriptEngine.Refused {
        String[] parts = line.trim().split(" +");
        if (!parts[0].equals("#!lua")) {
            throw new ScriptEngine.Refused("ERR Unexpected engine in script shebang: " + parts[0]);
        }
        boolean noWrites = false;
        for (int i = 1; i < parts.length; i++) {
            if (!parts[i].startsWith("flags=")) {
                throw new ScriptEngine.Refused("ERR Unknown lua shebang option: " + parts[i]);
            }
            String flags = parts[i].substring(6);
            if (flags.isEmpty()) continue;
            for (String f : flags.split(",")) {
                switch (f) {
                    case "no-writes" -> noWrites = true;
                    case "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys" -> {}
                    default -> throw new ScriptEngine.Refused("ERR Unexpected flag in script shebang: " + f);
                }
            }
        }
        return noWrites;
    }
}
