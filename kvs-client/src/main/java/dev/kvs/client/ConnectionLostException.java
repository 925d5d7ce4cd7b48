package dev.kvs.client;

/**
 * The connection dropped after a write was sent and before its reply arrived: the write <b>may or
 * may not have been applied</b>. The client never resends a write after such an ambiguous failure,
 * because a resent write could overwrite a newer value written by someone else in between; the
 * caller decides (read the key back, or write again if the write is idempotent for it).
 *
 * <p>Reads are never failed with this exception for a lost connection: they are resent, on the same
 * or the next endpoint.
 */
public class ConnectionLostException extends KvsClientException {
    /** An exception with a message and the underlying cause (usually an {@code IOException}). */
    public ConnectionLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
