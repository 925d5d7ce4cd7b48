package dev.kvs.core;

/**
 * An operation met a key that holds another type of value (Redis's {@code WRONGTYPE}): a hash
 * operation on a set or a string, a string read of a hash. Nothing was written.
 */
public final class WrongTypeException extends KvsException {
    private final ValueType expected;
    private final ValueType actual;

    public WrongTypeException(ValueType expected, ValueType actual) {
        super("key holds a " + actual + ", not a " + expected);
        this.expected = expected;
        this.actual = actual;
    }

    public ValueType expected() {
        return expected;
    }

    public ValueType actual() {
        return actual;
    }
}
