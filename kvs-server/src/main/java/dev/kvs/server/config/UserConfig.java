package dev.kvs.server.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * One user of the RESP client port (Redis 6 ACL style): a name, the SHA-256 of its password (as
 * Redis ACL keeps it; the password itself is never held), and a {@link Role}. Clients log in with
 * {@code AUTH name password} or {@code HELLO 2 AUTH name password}; {@code AUTH password} logs in as
 * {@value #DEFAULT_USER}.
 *
 * @param name 1 to 64 characters of {@code A-Z a-z 0-9 - _ . @ :}
 * @param passwordSha256 the password's SHA-256, 64 hex digits (lower case once built)
 * @param role what the user may run
 */
public record UserConfig(String name, String passwordSha256, Role role) {
    /** The user {@code AUTH password} (one argument) logs in as; {@code requirepass} is its password. */
    public static final String DEFAULT_USER = "default";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@:-]{1,64}");
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    /** What a user may run; each role may run everything the one before it may. */
    public enum Role {
        /** Connection commands and commands that only read (GET, MGET, INFO, ACL WHOAMI...). */
        READONLY,
        /** Also commands that write data (SET, DEL, MSET...). */
        READWRITE,
        /** Also admin commands: KVS.PROMOTE (with {@code admin.respCommands: true}), ACL USERS, ACL LIST. */
        ADMIN;

        /** The role named {@code text}: {@code admin}, {@code readwrite} or {@code readonly}, any case. */
        public static Role parse(String text) {
            String t = text == null ? "" : text.strip().toUpperCase(Locale.ROOT);
            for (Role r : values()) {
                if (r.name().equals(t)) return r;
            }
            throw new IllegalArgumentException("role is not admin, readwrite or readonly: " + text);
        }

        /** Its name in the config file: {@code admin}, {@code readwrite} or {@code readonly}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Never quotes the hash: messages end up in logs. */
    public UserConfig {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "user name is not 1 to 64 characters of A-Z a-z 0-9 - _ . @ : : \"" + name + "\"");
        }
        if (passwordSha256 == null || !SHA256_HEX.matcher(passwordSha256).matches()) {
            throw new IllegalArgumentException("user " + name + ": passwordSha256 is not 64 hex digits (the SHA-256"
                    + " of the password, e.g. printf %s 'PASSWORD' | sha256sum)");
        }
        passwordSha256 = passwordSha256.toLowerCase(Locale.ROOT);
        if (role == null) throw new IllegalArgumentException("user " + name + ": role is missing");
    }

    /**
     * A user whose password is {@code password}: only its SHA-256 is kept.
     *
     * @throws IllegalArgumentException if {@code password} is empty or a field is bad
     */
    public static UserConfig withPassword(String name, String password, Role role) {
        if (password == null || password.isEmpty()) {
            throw new IllegalArgumentException("user " + name + ": password is empty");
        }
        return new UserConfig(name, sha256Hex(password.getBytes(StandardCharsets.UTF_8)), role);
    }

    /** The SHA-256 of {@code bytes} in lower-case hex. */
    public static String sha256Hex(byte[] bytes) {
        return HexFormat.of().formatHex(sha256(bytes));
    }

    /** The SHA-256 of {@code bytes}. */
    public static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /** Does not show the hash. */
    @Override
    public String toString() {
        return "UserConfig[name=" + name + ", role=" + role.label() + "]";
    }
}
