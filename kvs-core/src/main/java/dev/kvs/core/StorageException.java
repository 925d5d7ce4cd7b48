package dev.kvs.core;

/** The store's backing memory or files failed (I/O error, corrupt file, closed store). */
public final class StorageException extends KvsException {
    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
