package dev.kvs.bench.cluster;

import dev.kvs.client.KvsClient;

/**
 * What the tools' SDK clients need to reach secured nodes: TLS ({@code tls.clients: true}) and a login
 * ({@code users:} or {@code requirepass}). {@link #PLAIN} for nodes with neither.
 *
 * @param tls the client port's TLS files, null for plain TCP
 * @param user the user to log in as, null for {@code default} (with a password: {@code AUTH password})
 * @param password the password, null for no {@code AUTH}
 */
public record NodeAccess(ClientTlsFiles tls, String user, String password) {
    /** Plain TCP, no login. */
    public static final NodeAccess PLAIN = new NodeAccess(null, null, null);

    public NodeAccess {
        if (user != null && password == null) throw new IllegalArgumentException("a user needs a password");
    }

    /** {@code builder} with TLS and the login set, as configured. */
    public KvsClient.Builder applyTo(KvsClient.Builder builder) {
        if (tls != null) tls.applyTo(builder);
        if (password != null) {
            if (user != null) builder.credentials(user, password);
            else builder.password(password);
        }
        return builder;
    }

    /** Without the password. */
    @Override
    public String toString() {
        return "NodeAccess[tls=" + tls + ", user=" + user + ", password=" + (password == null ? "none" : "***") + "]";
    }

    /** Whether anything beyond plain, unauthenticated TCP is set. */
    public boolean secured() {
        return tls != null || password != null;
    }
}
