package dev.kvs.core;

import java.nio.ByteBuffer;

/**
 * A value written into a store piece by piece before any record refers to it ({@link KvStore#stage}):
 * a backup stores a large value's chunks as they arrive over the WAN, so that the arrival of the last
 * chunk is followed by one short write and a record switch, not a copy of the whole value.
 *
 * <p>The bytes are written in order with {@link #write} until {@link #written()} reaches {@link
 * #length()}; {@link KvStore#putStaged} then makes them a key's record. Until that, no reader sees
 * them. {@link #close} gives back what a stage that was not committed holds (room and memory); after a
 * commit it does nothing. Not thread-safe: one writer.
 */
public interface ValueStage extends AutoCloseable {
    /** The value's length in bytes, fixed when the stage was opened. */
    int length();

    /** Bytes written so far. */
    int written();

    /**
     * Appends {@code data[offset, offset + count)}.
     *
     * @throws IllegalArgumentException if that would pass {@link #length()}
     * @throws IllegalStateException if the stage is closed or committed
     * @throws KvsException if the store cannot hold the bytes (nothing of them is visible; close the
     *     stage)
     */
    void write(byte[] data, int offset, int count);

    /**
     * Appends the remaining bytes of {@code src}, advancing its position. This default copies them
     * through a heap array; stores copy a direct buffer's bytes with one memory copy.
     *
     * @throws IllegalArgumentException, IllegalStateException, KvsException as {@link #write(byte[],
     *     int, int)}
     */
    default void write(ByteBuffer src) {
        int count = src.remaining();
        if (src.hasArray()) {
            write(src.array(), src.arrayOffset() + src.position(), count);
            src.position(src.limit());
            return;
        }
        byte[] copy = new byte[count];
        src.get(copy);
        write(copy, 0, count);
    }

    /**
     * The whole value in an array (possibly the stage's own): for a caller that cannot use the stage
     * after all. The stage stays open.
     *
     * @throws IllegalStateException if not all of it was written, or the stage is closed or committed
     */
    byte[] toArray();

    /** Frees what the stage holds unless it was committed; idempotent. */
    @Override
    void close();
}
