package dev.kvs.core;

import java.util.Objects;

/**
 * A {@link ValueStage} in a heap array: what stores without a staging area of their own hand out. It
 * cannot be read while written: {@link #readable()} stays 0 and a {@link StageListener} is never
 * called.
 */
public final class HeapValueStage implements ValueStage {
    private final byte[] bytes;
    private int written;
    private boolean closed;

    /** A stage for a value of {@code length} bytes. */
    public HeapValueStage(int length) {
        if (length < 0) throw new IllegalArgumentException("length < 0: " + length);
        this.bytes = new byte[length];
    }

    @Override
    public int length() {
        return bytes.length;
    }

    @Override
    public int written() {
        return written;
    }

    @Override
    public void write(byte[] data, int offset, int count) {
        Objects.checkFromIndexSize(offset, count, data.length);
        if (closed) throw new IllegalStateException("stage is closed");
        if (count > bytes.length - written) {
            throw new IllegalArgumentException(
                    written + " + " + count + " bytes written to a stage of " + bytes.length);
        }
        System.arraycopy(data, offset, bytes, written, count);
        written += count;
    }

    /**
     * The whole value, not copied (callers must not modify it).
     *
     * @throws IllegalStateException if not all of it was written
     */
    public byte[] bytes() {
        if (written != bytes.length) {
            throw new IllegalStateException("stage holds " + written + " of " + bytes.length + " bytes");
        }
        return bytes;
    }

    /** {@link #bytes()}: the stage's own array. */
    @Override
    public byte[] toArray() {
        if (closed) throw new IllegalStateException("stage is closed");
        return bytes();
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "HeapValueStage[" + written + "/" + bytes.length + "]";
    }
}
