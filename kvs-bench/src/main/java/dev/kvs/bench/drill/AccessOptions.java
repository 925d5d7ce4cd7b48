package dev.kvs.bench.drill;

import dev.kvs.bench.cluster.ClientTlsFiles;
import dev.kvs.bench.cluster.NodeAccess;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How {@code kvs drill load} and {@code kvs drill verify} reach secured nodes: TLS for a client port
 * with {@code tls.clients: true} (and a client certificate for {@code tls.clientAuth: require}), and a
 * login for nodes with {@code users:} or {@code requirepass}.
 */
final class AccessOptions {
    @Option(
            names = "--tls-ca",
            paramLabel = "FILE",
            description = "Connect with TLS, trusting the CA certificates in FILE (PEM): for nodes with"
                    + " tls.clients: true")
    Path tlsCa;

    @Option(
            names = "--tls-cert",
            paramLabel = "FILE",
            description = "Client certificate chain (PEM) for nodes with tls.clientAuth: require; needs"
                    + " --tls-key and --tls-ca")
    Path tlsCert;

    @Option(
            names = "--tls-key",
            paramLabel = "FILE",
            description = "The client certificate's private key (PEM, PKCS#8 unencrypted)")
    Path tlsKey;

    @Option(
            names = "--tls-no-verify-hostname",
            description = "Accept any certificate the CA signed, whatever host it names (a private CA only)")
    boolean noVerifyHostname;

    @Option(
            names = "--user",
            paramLabel = "NAME",
            description = "Log in as this user of the nodes' users: list (AUTH NAME PASSWORD); needs a password")
    String user;

    @Option(
            names = "--password",
            paramLabel = "PASSWORD",
            defaultValue = "${env:KVS_PASSWORD}",
            description = "Password of --user, or of the default user (requirepass) without --user"
                    + " (default: the environment variable KVS_PASSWORD)")
    String password;

    /** Checks what picocli cannot; returns an error message or null. */
    String problem() {
        if ((tlsCert == null) != (tlsKey == null)) return "--tls-cert and --tls-key go together";
        if (tlsCert != null && tlsCa == null) return "--tls-cert needs --tls-ca (the CA the nodes are checked with)";
        if (noVerifyHostname && tlsCa == null) return "--tls-no-verify-hostname needs --tls-ca";
        if (user != null && (password == null || password.isEmpty()))
            return "--user needs a password: --password or KVS_PASSWORD";
        return null;
    }

    /**
     * What the SDK clients are given.
     *
     * @throws IllegalArgumentException if a TLS file cannot be read
     */
    NodeAccess access() {
        ClientTlsFiles tls = tlsCa == null ? null : new ClientTlsFiles(tlsCa, tlsCert, tlsKey, !noVerifyHostname);
        String pw = password == null || password.isEmpty() ? null : password;
        return new NodeAccess(tls, user, pw);
    }
}
