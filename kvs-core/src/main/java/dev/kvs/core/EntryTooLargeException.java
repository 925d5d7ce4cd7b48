package dev.kvs.core;

/** A key or value is longer than the store's configured limit. Nothing was written. */
public final class EntryTooLargeException extends KvsException {
    public EntryTooLargeException(String message) {
        super(message);
    }
}
