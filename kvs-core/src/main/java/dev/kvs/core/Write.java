package dev.kvs.core;

/**
 * What a {@link KvStore#update} function decides to do with one key: keep the record, put a new one,
 * or remove the key.
 */
public sealed interface Write {
    /** Leave the record (or its absence) as it is. */
    static Write keep() {
        return Keep.INSTANCE;
    }

    /** Remove the key. */
    static Write remove() {
        return Remove.INSTANCE;
    }

    /** Replace the record with {@code value}. */
    static Write put(StoredValue value) {
        return new Put(value);
    }

    /** See {@link #keep()}. */
    enum Keep implements Write {
        INSTANCE
    }

    /** See {@link #remove()}. */
    enum Remove implements Write {
        INSTANCE
    }

    /** See {@link #put(StoredValue)}. */
    record Put(StoredValue value) implements Write {
        public Put {
            if (value == null) throw new NullPointerException("value == null");
        }
    }
}
