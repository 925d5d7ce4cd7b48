package dev.kvs.client;

/**
 * {@code -WRONGTYPE}: the key holds another type of value than the call works on (a hash call on a
 * set or a string, a string call on a hash). Nothing was written.
 */
public class WrongTypeException extends KvsClientException {
    /** @param message the server's error text */
    public WrongTypeException(String message) {
        super(message);
    }
}
