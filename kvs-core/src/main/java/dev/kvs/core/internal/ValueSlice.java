package dev.kvs.core.internal;

import java.nio.ByteBuffer;

/**
 * A range of a byte array, or the next bytes of a buffer: one chunk of a large value, written from or
 * read into the value itself (or, for a read, into a caller's buffer at its position).
 */
final class ValueSlice {
    final byte[] array;
    final int offset;
    final int length;
    /** Set (and {@link #array} null) for a read into a buffer. */
    final ByteBuffer buffer;

    ValueSlice(byte[] array, int offset, int length) {
        this.array = array;
        this.offset = offset;
        this.length = length;
        this.buffer = null;
    }

    /** The next {@code length} bytes of {@code buffer}, from its position; a read advances it. */
    ValueSlice(ByteBuffer buffer, int length) {
        this.array = null;
        this.offset = 0;
        this.length = length;
        this.buffer = buffer;
    }
}
