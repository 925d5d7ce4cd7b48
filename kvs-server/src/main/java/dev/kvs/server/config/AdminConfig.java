package dev.kvs.server.config;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Who may use the admin HTTP port, and how much of the node a stranger can hold through it.
 *
 * <p>With a {@code token}, every request but {@code GET /health} must carry {@code Authorization:
 * Bearer TOKEN}, loopback clients included; others get 401. Without one, read-only requests ({@code
 * GET}: {@code /status}, {@code /metrics}, {@code /lost}, {@code /failback}) are open to every client
 * if {@code openReads} (else to loopback clients only), and requests that change the node ({@code
 * POST}: promote, demote, switchover, resolve...) are served to loopback clients only; others get 403.
 * Loopback trust also trusts every local user and any proxy or browser on the host: a node with
 * {@code requirepass}, {@code users} or a cluster secret refuses to start without a token unless
 * {@code trustLoopback} says the operator accepts that.
 *
 * <p>Whatever the mode, a request is refused (403) before its body is read if it carries an {@code
 * Origin} that is not loopback or the node's own, or a {@code Host} that is not an IP literal, {@code
 * localhost}, the node's bind or advertised address or local host name, or one of {@code allowedHosts}
 * (DNS rebinding; an HTTPS-only admin port leaves that to the browser's certificate check); a request that changes the node without a token must carry {@code X-Kvs-Admin} (a header
 * a browser cannot send cross-site without a CORS preflight, which this port never answers).
 *
 * @param token the bearer token, if any: 16 to 1024 characters of {@code A-Z a-z 0-9 - . _ ~ + /},
 *     optionally ending in {@code =} (RFC 6750 {@code b64token}), e.g. {@code openssl rand -hex 32}
 * @param openReads without a token, whether read-only requests are served to every client (true, the
 *     default) or to loopback clients only; ignored with a token
 * @param respCommands whether the RESP port's role-changing command {@code KVS.PROMOTE} is enabled
 *     (default false: it answers {@code -NOPERM}; anyone with the client password could otherwise
 *     promote a backup)
 * @param trustLoopback lets a node with {@code requirepass}, {@code users} or a cluster secret start
 *     without a token, trusting every loopback client to change roles (default false: it refuses to)
 * @param allowedHosts further names a {@code Host} or {@code Origin} header may carry (e.g. the name a
 *     proxy or DNS gives the node), compared without case; empty by default
 * @param maxConnections admin connections open at once (default 128); a new one past it closes the
 *     oldest connection waiting for a request, or is closed itself if every one has a request in hand
 * @param headTimeoutMillis how long a new connection may take to send a whole request head, and a
 *     request its body (default 5,000)
 * @param idleTimeoutMillis how long a kept-alive connection may wait for its next request (default
 *     30,000)
 */
public record AdminConfig(
        Optional<String> token,
        boolean openReads,
        boolean respCommands,
        boolean trustLoopback,
        List<String> allowedHosts,
        int maxConnections,
        long headTimeoutMillis,
        long idleTimeoutMillis) {
    /** Shortest token accepted: a guessable one protects nothing. */
    public static final int MIN_TOKEN_LENGTH = 16;

    public static final int MAX_TOKEN_LENGTH = 1024;

    public static final int DEFAULT_MAX_CONNECTIONS = 128;
    public static final long DEFAULT_HEAD_TIMEOUT_MILLIS = 5_000;
    public static final long DEFAULT_IDLE_TIMEOUT_MILLIS = 30_000;

    private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9._~+/-]+=*");
    /** A DNS name or IP literal as a Host header carries it, without a port. */
    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9._:-]+|\\[[0-9A-Fa-f:.]+\\]");

    /** Never quotes the token: messages end up in logs. */
    public AdminConfig {
        if (token == null) throw new IllegalArgumentException("admin.token == null (use Optional.empty())");
        token.ifPresent(AdminConfig::checkToken);
        if (allowedHosts == null) throw new IllegalArgumentException("admin.allowedHosts == null (use List.of())");
        for (String h : allowedHosts) {
            if (h == null || !HOST_NAME.matcher(h).matches()) {
                throw new IllegalArgumentException("admin.allowedHosts holds something that is not a host name: " + h);
            }
        }
        allowedHosts =
                allowedHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
        if (maxConnections < 1 || maxConnections > 100_000) {
            throw new IllegalArgumentException("admin.maxConnections is not in 1..100000: " + maxConnections);
        }
        if (headTimeoutMillis < 100 || headTimeoutMillis > 600_000) {
            throw new IllegalArgumentException("admin.headTimeoutMs is not in 100..600000: " + headTimeoutMillis);
        }
        if (idleTimeoutMillis < 100 || idleTimeoutMillis > 3_600_000) {
            throw new IllegalArgumentException("admin.idleTimeoutMs is not in 100..3600000: " + idleTimeoutMillis);
        }
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
        return new AdminConfig(
                Optional.empty(),
                true,
                false,
                false,
                List.of(),
                DEFAULT_MAX_CONNECTIONS,
                DEFAULT_HEAD_TIMEOUT_MILLIS,
                DEFAULT_IDLE_TIMEOUT_MILLIS);
    }

    /** This configuration with {@code token} ({@code null}: none). */
    public AdminConfig withToken(String token) {
        return new AdminConfig(
                Optional.ofNullable(token),
                openReads,
                respCommands,
                trustLoopback,
                allowedHosts,
                maxConnections,
                headTimeoutMillis,
                idleTimeoutMillis);
    }

    /** This configuration with {@code openReads}. */
    public AdminConfig withOpenReads(boolean openReads) {
        return new AdminConfig(
                token,
                openReads,
                respCommands,
                trustLoopback,
                allowedHosts,
                maxConnections,
                headTimeoutMillis,
                idleTimeoutMillis);
    }

    /** This configuration with {@code respCommands}. */
    public AdminConfig withRespCommands(boolean respCommands) {
        return new AdminConfig(
                token,
                openReads,
                respCommands,
                trustLoopback,
                allowedHosts,
                maxConnections,
                headTimeoutMillis,
                idleTimeoutMillis);
    }

    /** This configuration with {@code trustLoopback}. */
    public AdminConfig withTrustLoopback(boolean trustLoopback) {
        return new AdminConfig(
                token,
                openReads,
                respCommands,
                trustLoopback,
                allowedHosts,
                maxConnections,
                headTimeoutMillis,
                idleTimeoutMillis);
    }

    /** This configuration with {@code allowedHosts}. */
    public AdminConfig withAllowedHosts(List<String> allowedHosts) {
        return new AdminConfig(
                token,
                openReads,
                respCommands,
                trustLoopback,
                allowedHosts,
                maxConnections,
                headTimeoutMillis,
                idleTimeoutMillis);
    }

    /** This configuration with another connection cap and timeouts. */
    public AdminConfig withLimits(int maxConnections, long headTimeoutMillis, long idleTimeoutMillis) {
        return new AdminConfig(
                token,
                openReads,
                respCommands,
                trustLoopback,
                allowedHosts,
                maxConnections,
                headTimeoutMillis,
                idleTimeoutMillis);
    }

    /** Does not show the token. */
    @Override
    public String toString() {
        return "AdminConfig[token=" + (token.isPresent() ? "(set)" : "(none)") + ", openReads=" + openReads
                + ", respCommands=" + respCommands + ", trustLoopback=" + trustLoopback + ", allowedHosts="
                + allowedHosts + ", maxConnections=" + maxConnections + ", headTimeoutMs=" + headTimeoutMillis
                + ", idleTimeoutMs=" + idleTimeoutMillis + "]";
    }
}
