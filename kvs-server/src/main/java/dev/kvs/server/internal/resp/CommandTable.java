package dev.kvs.server.internal.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Command lookup by name, case-insensitive. Hot path: names are matched on their bytes, without
 * allocating a String, through a small open-addressed table.
 */
final class CommandTable {
    private final Map<String, CommandSpec> byName = new HashMap<>();
    private CommandSpec[] slots = new CommandSpec[0];
    private byte[][] slotNames = new byte[0][];

    void add(String name, int arity, int flags, int firstKey, int lastKey, int keyStep, Command command) {
        byName.put(
                name,
                new CommandSpec(
                        name,
                        arity,
                        flags,
                        firstKey,
                        lastKey,
                        keyStep,
                        command,
                        Map.of(),
                        Map.of(),
                        new CommandCounters(),
                        null));
        rebuild();
    }

    /** Adds {@code flags} to subcommand {@code sub} of the registered command {@code name}. */
    void addSubcommandFlags(String name, String sub, int flags) {
        CommandSpec spec = byName.get(name);
        if (spec == null) throw new IllegalArgumentException("no command " + name);
        byName.put(name, spec.withSubcommandFlags(sub, flags));
        rebuild();
    }

    /**
     * Subcommand {@code sub} of the registered command {@code name} takes one key, at argument {@code
     * index}: checked for its slot on a clustered node as any command's keys.
     */
    void addSubcommandKey(String name, String sub, int index) {
        CommandSpec spec = byName.get(name);
        if (spec == null) throw new IllegalArgumentException("no command " + name);
        byName.put(name, spec.withSubcommandKey(sub, index));
        rebuild();
    }

    /** The registered command {@code name} runs a run of itself on one key as one, through {@code run}. */
    void addRun(String name, RunCommand run) {
        CommandSpec spec = byName.get(name);
        if (spec == null) throw new IllegalArgumentException("no command " + name);
        byName.put(name, spec.withRun(run));
        rebuild();
    }

    Collection<CommandSpec> all() {
        return byName.values();
    }

    CommandSpec get(String upperName) {
        return byName.get(upperName);
    }

    /** The command named by {@code name} in any case, or {@code null}. */
    CommandSpec lookup(byte[] name) {
        int mask = slots.length - 1;
        for (int i = hash(name) & mask; ; i = (i + 1) & mask) {
            byte[] candidate = slotNames[i];
            if (candidate == null) return null;
            if (equalsUpper(candidate, name)) return slots[i];
        }
    }

    private void rebuild() {
        int size = Integer.highestOneBit(Math.max(16, byName.size() * 4) - 1) << 1;
        CommandSpec[] s = new CommandSpec[size];
        byte[][] n = new byte[size][];
        for (CommandSpec spec : byName.values()) {
            byte[] upper = spec.name().getBytes(StandardCharsets.US_ASCII);
            int i = hash(upper) & (size - 1);
            while (n[i] != null) i = (i + 1) & (size - 1);
            n[i] = upper;
            s[i] = spec;
        }
        slots = s;
        slotNames = n;
    }

    private static int hash(byte[] name) {
        int h = name.length;
        for (byte b : name) h = h * 31 + (b & 0xDF); // 0xDF folds ASCII lower case onto upper case
        return h ^ (h >>> 16);
    }

    private static boolean equalsUpper(byte[] upper, byte[] name) {
        if (upper.length != name.length) return false;
        for (int i = 0; i < upper.length; i++) {
            byte b = name[i];
            if (b >= 'a' && b <= 'z') b -= 32;
            if (b != upper[i]) return false;
        }
        return true;
    }

    List<String> names() {
        return new ArrayList<>(byName.keySet());
    }
}
