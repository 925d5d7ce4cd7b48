package dev.kvs.client;

/**
 * TLS with a server failed: its certificate is not signed by the configured CA or does not carry the
 * host name dialled, it refused this client's certificate (or the lack of one), the TLS handshake
 * did not finish within the connect timeout (does the port speak TLS?), or the client has no TLS
 * configured and the server accepts TLS only ({@code -TLSREQUIRED}). Nothing was executed. Not
 * retried: it is a configuration error. See {@link KvsClient.Builder#tls(java.nio.file.Path)}.
 */
public class KvsTlsException extends KvsClientException {
    /** An exception with a message and no cause. */
    public KvsTlsException(String message) {
        super(message);
    }

    /** An exception with a message and the underlying cause (usually an {@code SSLException}). */
    public KvsTlsException(String message, Throwable cause) {
        super(message, cause);
    }
}
