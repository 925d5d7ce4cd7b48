package dev.kvs.core;

import java.nio.ByteBuffer;

/**
 * Where {@link KvStore#readValue} and {@link KvStore#readAll} copy a complete value: a buffer of the
 * caller's (a network buffer, say), so a long value is not copied into a new array first.
 */
@FunctionalInterface
public interface ValueSink {
    /**
     * A buffer with at least {@code length} bytes remaining, into which the store copies a complete value
     * of {@code length} bytes from the buffer's position (advancing it), or {@code null} to receive the
     * value in a new array instead. A direct buffer is filled with one memory copy per stored chunk.
     *
     * <p>The store may call this while it holds a lock of its own (an inline value is copied while its
     * record is read): it must be quick and must not call the store.
     *
     * <p>{@link KvStore#readValue} may call this again for the same key when the record was replaced
     * while it copied: the value is then in the buffer of the last call, and the store no longer touches
     * the earlier ones (the sink may reuse or free them).
     */
    ByteBuffer buffer(int length);
}
