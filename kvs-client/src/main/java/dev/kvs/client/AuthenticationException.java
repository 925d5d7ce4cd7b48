package dev.kvs.client;

/**
 * {@code -NOAUTH} or {@code -WRONGPASS}: the server requires a login and none, or a wrong user or
 * password, was configured with {@link KvsClient.Builder#password(String)} or {@link
 * KvsClient.Builder#credentials(String, String)}. Not retried, and no other endpoint is tried: it is
 * a configuration error.
 */
public class AuthenticationException extends KvsClientException {
    /** @param message the server's error text */
    public AuthenticationException(String message) {
        super(message);
    }
}
