package dev.kvs.server.internal.script;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.luaj.vm2.Prototype;

/**
 * One compiled script: its body, the SHA-1 that names it ({@code EVALSHA}, {@code SCRIPT EXISTS}), its
 * compiled Lua, and whether its shebang says {@code flags=no-writes}. Immutable; shared by every run.
 *
 * @param sha the lower-case hex SHA-1 of {@code body}
 * @param body the script as sent
 * @param code the compiled chunk, run on a fresh sandbox each time
 * @param shebang the script starts with a {@code #!lua} line: its flags say what it does ({@code EVAL_RO}
 *     refuses one without {@code no-writes})
 * @param noWrites the shebang's {@code no-writes} flag: the script may run no write command
 */
public record Script(String sha, byte[] body, Prototype code, boolean shebang, boolean noWrites) {

    /** The lower-case hex SHA-1 of {@code bytes}, as Redis names scripts. */
    public static String sha1hex(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(bytes);
            StringBuilder b = new StringBuilder(40);
            for (byte x : d) b.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    static String sha1hex(String text) {
        return sha1hex(text.getBytes(StandardCharsets.UTF_8));
    }
}
