package dev.kvs.server.internal.resp;

import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.config.UserConfig.Role;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The users of the client port, from {@code users} and {@code requirepass} (the {@code default}
 * user's password, as in Redis; that user has role {@link Role#ADMIN}, i.e. every right, as Redis's
 * default user and as before users existed). Without either, there is no login: every connection is
 * {@link #OPEN}. With {@code users} but no {@code requirepass}, there is no {@code default} user
 * unless one is listed: every connection must log in by name. Immutable.
 *
 * <p>Only passwords' SHA-256 digests are held; a login hashes the password given and compares the
 * digests in constant time, so that neither the time taken nor the heap reveals a password.
 */
final class Users {
    /** Who every connection is when no login is required: the default user, with every right. */
    static final UserConfig OPEN = new UserConfig(UserConfig.DEFAULT_USER, "0".repeat(64), Role.ADMIN);

    /** By name, in configuration order (the default user first); digests decoded once. */
    private final Map<String, Entry> byName = new LinkedHashMap<>();

    private record Entry(UserConfig user, byte[] digest) {}

    Users(NodeConfig config) {
        config.requirepass().ifPresent(p -> add(UserConfig.withPassword(UserConfig.DEFAULT_USER, p, Role.ADMIN)));
        config.users().forEach(this::add);
    }

    private void add(UserConfig u) {
        byName.put(u.name(), new Entry(u, HexFormat.of().parseHex(u.passwordSha256())));
    }

    /** True if {@code AUTH password} has a user to log in as. */
    boolean hasDefaultUser() {
        return byName.containsKey(UserConfig.DEFAULT_USER);
    }

    /**
     * The user named {@code name} if {@code password} is its password, else {@code null} (unknown
     * user or wrong password: the caller must not say which).
     */
    UserConfig authenticate(String name, byte[] password) {
        Entry e = byName.get(name);
        byte[] given = UserConfig.sha256(password);
        // an unknown user costs the same hash and comparison as a known one
        byte[] expected = e != null ? e.digest() : new byte[given.length];
        boolean ok = MessageDigest.isEqual(given, expected);
        return e != null && ok ? e.user() : null;
    }

    /** The names of the users, the default user first if it exists. */
    List<String> names() {
        return new ArrayList<>(byName.keySet());
    }

    /** Every user, in the order of {@link #names()}. */
    List<UserConfig> all() {
        List<UserConfig> out = new ArrayList<>();
        for (Entry e : byName.values()) out.add(e.user());
        return out;
    }

    /** {@code name} as UTF-8 text; user names are ASCII, so any other byte matches no user. */
    static String name(byte[] arg) {
        return new String(arg, StandardCharsets.UTF_8);
    }
}
