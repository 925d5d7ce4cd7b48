package dev.kvs.client;

/**
 * No endpoint could serve the request: each one was unreachable or answered {@code -NOTPRIMARY}
 * (it is a backup). Nothing was executed. The message names every endpoint tried and why it was
 * passed over. Typical during a failover, before the backup is promoted: retry later.
 */
public class NoPrimaryException extends KvsClientException {
    /** An exception with a message and the last underlying cause, if any. */
    public NoPrimaryException(String message, Throwable cause) {
        super(message, cause);
    }
}
