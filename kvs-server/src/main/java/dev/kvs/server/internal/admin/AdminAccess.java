package dev.kvs.server.internal.admin;

import dev.kvs.server.config.AdminConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * Decides whether a request may reach its route, as {@link AdminConfig} says: with a token, every
 * request but {@code GET /health} needs {@code Authorization: Bearer TOKEN} (401 otherwise); without
 * one, requests that change the node need a loopback client, and reads too unless reads are open (403
 * otherwise). Immutable, thread-safe.
 */
final class AdminAccess {
    static final String REALM = "Bearer realm=\"kvs-admin\"";

    /** SHA-256 of the token, or null without one: digests compare in constant time whatever the lengths. */
    private final byte[] tokenDigest;

    private final boolean openReads;

    AdminAccess(AdminConfig config) {
        this.tokenDigest = config.token().map(AdminAccess::sha256).orElse(null);
        this.openReads = config.openReads();
    }

    /**
     * Null if the request may go on, else the refusal to answer.
     *
     * @param authorization the {@code Authorization} header, or null
     * @param client the client's address (null if unknown: not loopback)
     */
    AdminResponse check(String method, String path, String authorization, SocketAddress client) {
        boolean read = method.equals("GET") || method.equals("HEAD");
        if (read && path.equals("/health")) return null; // liveness probes carry no credentials
        if (tokenDigest != null) return checkToken(authorization);
        if (isLoopback(client)) return null;
        if (read && openReads) return null;
        String who = method + " " + path + " from " + describe(client) + " refused: ";
        if (read) {
            return AdminResponse.error(
                    403,
                    who + "admin.openReads is false and no admin.token is set, so only loopback clients may read;"
                            + " set admin.token and send Authorization: Bearer <token>, or ask from the node's host");
        }
        return AdminResponse.error(
                403,
                who + "without admin.token only loopback clients may change the node; set admin.token in the"
                        + " config (or KVS_ADMIN_TOKEN) and send Authorization: Bearer <token>");
    }

    private AdminResponse checkToken(String authorization) {
        if (authorization == null || authorization.isBlank()) {
            return AdminResponse.error(
                            401, "this node's admin API needs its token: send Authorization: Bearer <admin.token>")
                    .withHeader("WWW-Authenticate", REALM);
        }
        String presented = bearer(authorization);
        if (presented == null) {
            return AdminResponse.error(401, "the Authorization header is not \"Bearer <admin.token>\"")
                    .withHeader("WWW-Authenticate", REALM);
        }
        if (!MessageDigest.isEqual(tokenDigest, sha256(presented))) {
            return AdminResponse.error(401, "wrong admin token")
                    .withHeader("WWW-Authenticate", REALM + ", error=\"invalid_token\"");
        }
        return null;
    }

    /** The credentials of a {@code Bearer} authorization (scheme in any case), or null for another scheme. */
    static String bearer(String authorization) {
        String a = authorization.strip();
        int space = a.indexOf(' ');
        if (space < 0 || !a.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")) return null;
        String token = a.substring(space + 1).strip();
        return token.isEmpty() ? null : token;
    }

    static boolean isLoopback(SocketAddress client) {
        if (!(client instanceof InetSocketAddress a)) return false;
        InetAddress address = a.getAddress();
        return address != null && address.isLoopbackAddress();
    }

    private static String describe(SocketAddress client) {
        if (client instanceof InetSocketAddress a && a.getAddress() != null)
            return a.getAddress().getHostAddress();
        return String.valueOf(client);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
