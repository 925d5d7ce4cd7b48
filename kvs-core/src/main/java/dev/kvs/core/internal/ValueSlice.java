package dev.kvs.core.internal;

import java.nio.ByteBuffer;

/**
 * A range of a byte array, or the next bytes of a buffer: one chunk of a large value, written from or
 * read into the value itself, or a caller's buffer at its position.
 */
final class ValueSlice {
    final byte[] array;
    final int offset;
    final int length;
    /** Set (and {@link #array} null) for a read into a buffer. */
    final ByteBuffer buffer;
    /** For a read into a buffer: the first byte of the stored chunk to copy. */
    final int skip;
    /** For a read into a buffer: how many bytes of the stored chunk to copy from {@link #skip}. */
    final int count;
    /** A reservation: the chunk is stored with its bytes unwritten, and {@link #address} tells where they are. */
    final boolean reservation;
    /** For a reservation, once stored: the address of the chunk's first byte. */
    long address;

    ValueSlice(byte[] array, int offset, int length) {
        this.array = array;
        this.offset = offset;
        this.length = length;
        this.buffer = null;
        this.skip = 0;
        this.count = length;
        this.reservation = false;
    }

    private ValueSlice(int length) {
        this.array = null;
        this.offset = 0;
        this.length = length;
        this.buffer = null;
        this.skip = 0;
        this.count = length;
        this.reservation = true;
    }

    /**
     * A chunk of {@code length} bytes to store unwritten: its writer fills them in place at {@link
     * #address} before any reader may read the chunk.
     */
    static ValueSlice reservation(int length) {
        return new ValueSlice(length);
    }

    /**
     * The next {@code length} bytes of {@code buffer}, from its position: a read advances it; a write
     * copies them and leaves the position to the caller (which advances it once the chunk is stored).
     */
    ValueSlice(ByteBuffer buffer, int length) {
        this(buffer, length, 0, length);
    }

    /**
     * Bytes {@code [skip, skip + count)} of a stored chunk of {@code length} bytes, into the next
     * {@code count} bytes of {@code buffer}; a read advances it.
     */
    ValueSlice(ByteBuffer buffer, int length, int skip, int count) {
        if (skip < 0 || count < 0 || (long) skip + count > length) {
            throw new IllegalArgumentException("[" + skip + ", +" + count + ") outside a chunk of " + length);
        }
        this.array = null;
        this.offset = 0;
        this.length = length;
        this.buffer = buffer;
        this.skip = skip;
        this.count = count;
        this.reservation = false;
    }
}
