package dev.kvs.client;

/**
 * {@code -NOPERM}: the user the client logged in as (see {@link KvsClient.Builder#credentials(String,
 * String)}) may not run this command, e.g. a write by a {@code readonly} user. Nothing was executed.
 * Not retried: it is a configuration error (log in as a user whose role allows the command).
 */
public class NoPermissionException extends KvsClientException {
    /** @param message the server's error text */
    public NoPermissionException(String message) {
        super(message);
    }
}
