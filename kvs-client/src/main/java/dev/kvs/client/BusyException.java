package dev.kvs.client;

/**
 * {@code -BUSY}: a replication bound on the primary stayed full for the server's write timeout.
 * Nothing was written; retrying later (with backoff) is safe.
 */
public class BusyException extends KvsClientException {
    /** @param message the server's error text */
    public BusyException(String message) {
        super(message);
    }
}
