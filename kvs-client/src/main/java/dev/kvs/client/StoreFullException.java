package dev.kvs.client;

/** {@code -OOM}: the server's store is full (entries or bytes). Nothing was written. */
public class StoreFullException extends KvsClientException {
    /** @param message the server's error text */
    public StoreFullException(String message) {
        super(message);
    }
}
