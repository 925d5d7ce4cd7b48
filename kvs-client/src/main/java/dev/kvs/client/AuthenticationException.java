package dev.kvs.client;

/**
 * {@code -NOAUTH} or {@code -WRONGPASS}: the server requires a password and none, or a wrong one,
 * was configured with {@link KvsClient.Builder#password(String)}. Not retried: it is a
 * configuration error.
 */
public class AuthenticationException extends KvsClientException {
    /** @param message the server's error text */
    public AuthenticationException(String message) {
        super(message);
    }
}
