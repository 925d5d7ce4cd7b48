package dev.kvs.server.config;

import java.util.Locale;

/**
 * TLS on the client (RESP) and admin ports, with the node's {@code tls:} certificate and key. Both off
 * by default: the ports speak plain TCP and HTTP.
 *
 * @param clients the RESP port speaks TLS only (like Redis {@code tls-port} with {@code port 0}); a
 *     plain-text client is answered {@code -TLSREQUIRED} and closed before any command runs
 * @param admin the admin port speaks HTTPS only; a plain HTTP request is answered 400 and closed
 * @param clientAuth whether the TLS ports ask clients for a certificate the {@code tls.caFile} CA signed
 */
public record TlsPortsConfig(boolean clients, boolean admin, ClientAuth clientAuth) {

    /** Whether a TLS port asks the client for a certificate (Redis {@code tls-auth-clients}). */
    public enum ClientAuth {
        /** No client certificate is asked for (the default). */
        NONE,
        /** A client may present a certificate; if it does, it must lead to {@code caFile}. */
        OPTIONAL,
        /** A client must present a certificate leading to {@code caFile}, else the handshake fails. */
        REQUIRE;

        /**
         * {@code none}, {@code optional} or {@code require}, in any case.
         *
         * @throws IllegalArgumentException for anything else, quoted
         */
        public static ClientAuth parse(String s) {
            if (s != null) {
                switch (s.toLowerCase(Locale.ROOT)) {
                    case "none":
                        return NONE;
                    case "optional":
                        return OPTIONAL;
                    case "require":
                        return REQUIRE;
                    default:
                        break;
                }
            }
            throw new IllegalArgumentException("tls.clientAuth is not none, optional or require: " + s);
        }

        /** The YAML spelling. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public TlsPortsConfig {
        if (clientAuth == null) throw new IllegalArgumentException("tls.clientAuth is missing");
        if (clientAuth != ClientAuth.NONE && !clients && !admin) {
            throw new IllegalArgumentException("tls.clientAuth is " + clientAuth.label()
                    + " but neither tls.clients nor tls.admin is true: no port would ask for a certificate");
        }
    }

    /** Both ports plain. */
    public static TlsPortsConfig defaults() {
        return new TlsPortsConfig(false, false, ClientAuth.NONE);
    }

    /** Whether either port speaks TLS. */
    public boolean any() {
        return clients || admin;
    }
}
