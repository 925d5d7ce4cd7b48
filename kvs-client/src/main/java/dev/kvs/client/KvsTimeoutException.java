package dev.kvs.client;

/**
 * No reply arrived within the request timeout. For a write this is as ambiguous as {@link
 * ConnectionLostException}: it may or may not have been applied (and may still be). A read that
 * timed out on a connection that had gone silent is resent instead of failing with this exception.
 */
public class KvsTimeoutException extends KvsClientException {
    /** An exception with a message. */
    public KvsTimeoutException(String message) {
        super(message);
    }
}
