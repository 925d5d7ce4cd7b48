package dev.kvs.client;

/**
 * Root of every exception the kvs client throws. Unchecked: a caller catches the subclass it can act
 * on (for example {@link UnfinishedKeyException} to retry later, {@link ConnectionLostException} to
 * find out whether a write was applied) and lets the rest propagate.
 *
 * <p>An instance of this class itself (not a subclass) carries an error the server answered that has
 * no more specific type, such as {@code -ERR ...}; its message is the server's text.
 */
public class KvsClientException extends RuntimeException {
    /** An exception with a message and no cause. */
    public KvsClientException(String message) {
        super(message);
    }

    /** An exception with a message and the underlying cause. */
    public KvsClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
