package dev.kvs.core.internal;

/** A range of a byte array: one chunk of a large value, written from or read into the value itself. */
final class ValueSlice {
    final byte[] array;
    final int offset;
    final int length;

    ValueSlice(byte[] array, int offset, int length) {
        this.array = array;
        this.offset = offset;
        this.length = length;
    }
}
