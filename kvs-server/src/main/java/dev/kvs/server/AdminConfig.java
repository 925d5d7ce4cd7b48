package dev.kvs.server;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who may use the admin HTTP port.
 *
 * <p>With a {@code token}, every request but {@code GET /health} must carry {@code Authorization:
 * Bearer TOKEN}, loopback clients included; others get 401. Without one, read-only requests ({@code
 * GET}: {@code /status}, {@code /metrics}, {@code /lost}, {@code /failback}) are open to every client
 * if {@code openReads} (else to loopback clients only), and requests that change the node ({@code
 * POST}: promote, demote, switchover, resolve...) are served to loopback clients only; others get 403.
 * Loopback trust also trusts every local user and any proxy on the host: set a token where that
 * matters.
 *
 * @param token the bearer token, if any: 16 to 1024 characters of {@code A-Z a-z 0-9 - . _ ~ + /},
 *     optionally ending in {@code =} (RFC 6750 {@code b64token}), e.g. {@code openssl rand -hex 32}
 * @param openReads without a token, whether read-only requests are served to every client (true, the
 *     default) or to loopback clients only; ignored with a token
 * @param respCommands whether the RESP port's role-changing command {@code KVS.PROMOTE} is enabled
 *     (default false: it answers {@code -NOPERM}; anyone with the client password could otherwise
 *     promote a backup)
 */
public record AdminConfig(Optional<String> token, boolean openReads, boolean respCommands) {
    /** Shortest token accepted: a guessable one protects nothing. */
    public static final int MIN_TOKEN_LENGTH = 16;

    public static final int MAX_TOKEN_LENGTH = 1024;

    private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");

    /** Never quotes the token: messages end up in logs. */
    public AdminConfig {
        if (token == null) throw new IllegalArgumentException("admin.token == null (use Optional.empty())");
        token.ifPresent(AdminConfig::checkToken);
    }

    private static void checkToken(String t) {
        if (t.length() < MIN_TOKEN_LENGTH) {
            throw new IllegalArgumentException("admin.token is shorter than " + MIN_TOKEN_LENGTH + " characters ("
                    + t.length() + "); make one with e.g. openssl rand -hex 32");
        }
        if (t.length() > MAX_TOKEN_LENGTH) {
            throw new IllegalArgumentException(
                    "admin.token is longer than " + MAX_TOKEN_LENGTH + " characters (" + t.length() + ")");
        }
        if (!B64TOKEN.matcher(t).matches()) {
            throw new IllegalArgumentException("admin.token may hold only A-Z a-z 0-9 - . _ ~ + / and trailing ="
                    + " (it travels in an HTTP header); make one with e.g. openssl rand -hex 32");
        }
    }

    /** No token, reads open: mutating requests from loopback clients only. */
    public static AdminConfig defaults() {
        return new AdminConfig(Optional.empty(), true, false);
    }

    /** This configuration with {@code token} ({@code null}: none). */
    public AdminConfig withToken(String token) {
        return new AdminConfig(Optional.ofNullable(token), openReads, respCommands);
    }

    /** This configuration with {@code openReads}. */
    public AdminConfig withOpenReads(boolean openReads) {
        return new AdminConfig(token, openReads, respCommands);
    }

    /** This configuration with {@code respCommands}. */
    public AdminConfig withRespCommands(boolean respCommands) {
        return new AdminConfig(token, openReads, respCommands);
    }

    /** Does not show the token. */
    @Override
    public String toString() {
        return "AdminConfig[token=" + (token.isPresent() ? "(set)" : "(none)") + ", openReads=" + openReads
                + ", respCommands=" + respCommands + "]";
    }
}
