package dev.kvs.core;

/** Base of every failure kvs reports; unchecked. A missing key is never an exception. */
public class KvsException extends RuntimeException {
    public KvsException(String message) {
        super(message);
    }

    public KvsException(String message, Throwable cause) {
        super(message, cause);
    }
}
