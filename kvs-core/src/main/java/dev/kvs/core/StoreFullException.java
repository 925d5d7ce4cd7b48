package dev.kvs.core;

/**
 * The store has reached its configured entry or byte capacity. Nothing was written; the store stays
 * usable, and deletes or overwrites with smaller values free room.
 */
public final class StoreFullException extends KvsException {
    public StoreFullException(String message) {
        super(message);
    }

    public StoreFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
