package dev.kvs.server.internal.resp;

import dev.kvs.server.config.UserConfig.Role;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A command's name, arity (Redis convention: positive means exact, negative means at least), and what
 * it needs.
 *
 * @param name upper-case name
 * @param arity argument count including the name
 * @param flags {@link #NOAUTH}, {@link #DATA}, {@link #WRITE}, {@link #ADMIN}
 * @param firstKey index of the first key argument (0: none), for COMMAND INFO
 * @param lastKey index of the last key (-1: last argument), for COMMAND INFO
 * @param keyStep step between keys, for COMMAND INFO
 * @param command the implementation
 * @param subcommandFlags flags some subcommands (upper case) add to {@code flags}, e.g. {@code ACL
 *     USERS}: {@link #ADMIN}; empty for most commands
 * @param subcommandKeys the index of the one key some subcommands (upper case) of a command without
 *     keys of its own take, as Redis's key specs of the subcommand: {@code MEMORY USAGE key} has it at
 *     2; empty for most commands
 * @param counters the command's figures for {@code INFO commandstats}
 * @param run how a run of the command on one key in one read runs as one ({@link CommandRuns}), or
 *     {@code null}: each runs alone
 */
record CommandSpec(
        String name,
        int arity,
        int flags,
        int firstKey,
        int lastKey,
        int keyStep,
        Command command,
        Map<String, Integer> subcommandFlags,
        Map<String, Integer> subcommandKeys,
        CommandCounters counters,
        RunCommand run) {
    /** Allowed before AUTH. */
    static final int NOAUTH = 1;
    /** Reads or writes data: refused on a backup. */
    static final int DATA = 2;
    /** Writes data: refused to {@link Role#READONLY} users. */
    static final int WRITE = 4;
    /** Changes the node or shows its users: only for {@link Role#ADMIN} users. */
    static final int ADMIN = 8;

    CommandSpec {
        subcommandFlags = Map.copyOf(subcommandFlags);
        subcommandKeys = Map.copyOf(subcommandKeys);
    }

    boolean arityOk(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** This spec with {@code extra} flags for subcommand {@code sub}. */
    CommandSpec withSubcommandFlags(String sub, int extra) {
        Map<String, Integer> m = new HashMap<>(subcommandFlags);
        m.merge(sub, extra, (a, b) -> a | b);
        return new CommandSpec(
                name, arity, flags, firstKey, lastKey, keyStep, command, m, subcommandKeys, counters, run);
    }

    /** This spec with subcommand {@code sub}'s one key at argument {@code index}. */
    CommandSpec withSubcommandKey(String sub, int index) {
        Map<String, Integer> m = new HashMap<>(subcommandKeys);
        m.put(sub, index);
        return new CommandSpec(
                name, arity, flags, firstKey, lastKey, keyStep, command, subcommandFlags, m, counters, run);
    }

    /** This spec, with {@code value} running a run of it on one key as one. */
    CommandSpec withRun(RunCommand value) {
        return new CommandSpec(
                name,
                arity,
                flags,
                firstKey,
                lastKey,
                keyStep,
                command,
                subcommandFlags,
                subcommandKeys,
                counters,
                value);
    }

    /**
     * The index of the one key of the subcommand {@code args} names ({@link #subcommandKeys}), or 0 if
     * it has none. Allocates only for a command with such subcommands.
     */
    int subcommandKey(byte[][] args) {
        if (subcommandKeys.isEmpty() || args.length < 2) return 0;
        Integer index = subcommandKeys.get(Args.upper(args[1]));
        return index == null ? 0 : index;
    }

    /**
     * The index of the first key {@code args} names: {@link #firstKey}, or its subcommand's one key for a
     * command with none of its own ({@code MEMORY USAGE key}); 0 if it names none.
     */
    int firstKeyIn(byte[][] args) {
        return firstKey > 0 ? firstKey : subcommandKey(args);
    }

    /**
     * The index of the last key {@code args} names ({@link #lastKey}, counted from the end when negative,
     * within {@code args}); a subcommand's one key is its first and last. Keys run from {@link #firstKeyIn}
     * every {@link #keyStep} (at least 1) arguments.
     */
    int lastKeyIn(byte[][] args) {
        if (firstKey <= 0) return subcommandKey(args);
        return lastKey < 0 ? args.length + lastKey : Math.min(lastKey, args.length - 1);
    }

    /** The flags of the command {@code args} names: {@link #flags}, plus those of its subcommand, if any. */
    int flagsFor(byte[][] args) {
        if (subcommandFlags.isEmpty() || args.length < 2) return flags;
        Integer extra = subcommandFlags.get(Args.upper(args[1]));
        return extra == null ? flags : flags | extra;
    }

    /**
     * True if a user with {@code role} may run a command with {@code flags}: readonly users no
     * {@link #WRITE} or {@link #ADMIN} command, readwrite users no {@link #ADMIN} command, admins all.
     */
    static boolean permits(Role role, int flags) {
        return switch (role) {
            case ADMIN -> true;
            case READWRITE -> (flags & ADMIN) == 0;
            case READONLY -> (flags & (ADMIN | WRITE)) == 0;
        };
    }

    /** The name Redis gives the command {@code args} names in NOPERM errors: {@code set}, {@code acl|users}. */
    String permissionName(byte[][] args) {
        String n = name.toLowerCase(Locale.ROOT);
        if (args.length >= 2 && subcommandFlags.containsKey(Args.upper(args[1]))) {
            n += "|" + Args.upper(args[1]).toLowerCase(Locale.ROOT);
        }
        return n;
    }
}
