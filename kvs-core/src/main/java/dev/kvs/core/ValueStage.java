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
 *
 * <p>A stage whose store writes its bytes where other threads can reach them (chunk by chunk) lets
 * them read what was written so far while the writer goes on ({@link #readable()}, {@link
 * #readRange}) and tells a {@link StageListener} what becomes of it: replication ships a large value
 * as it arrives instead of after its last byte. {@link #readable()} and {@link #readRange} are the
 * only methods other threads may call.
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

    /**
     * How many bytes, from the first, another thread may read now with {@link #readRange} while the
     * writer goes on: it grows as the store writes whole chunks of the value, so it lags {@link
     * #written()} by less than a chunk, and equals {@link #length()} once everything is written. A
     * reader that reads this first sees those bytes in {@link #readRange}. Safe to call from any
     * thread. This default returns 0: a stage that cannot be read while written.
     */
    default int readable() {
        return 0;
    }

    /**
     * Copies bytes {@code [offset, offset + length)}, which must lie within {@code [0, readable())},
     * into {@code buffer} from its position, advancing it. Safe to call from any thread, while the
     * writer goes on; also after a commit, while the key's record still holds these bytes.
     *
     * @return false if the stage's bytes are gone (it was closed without a commit, its record was
     *     replaced, or the store was cleared or closed); the buffer's contents and position are then
     *     unspecified
     * @throws IllegalArgumentException if the range is negative, passes {@link #readable()}, or does
     *     not fit in {@code buffer}
     */
    default boolean readRange(int offset, int length, ByteBuffer buffer) {
        ValueRead.checkRange(offset, length, buffer);
        checkReadable(offset, length, readable());
        if (length > 0) throw new UnsupportedOperationException("readRange on " + this);
        return true;
    }

    /**
     * Checks that {@code [offset, offset + length)}, not negative, lies within {@code [0, readable)}.
     *
     * @throws IllegalArgumentException if not
     */
    private static void checkReadable(int offset, int length, int readable) {
        if ((long) offset + length > readable) {
            throw new IllegalArgumentException(
                    "range [" + offset + ", +" + length + ") passes the " + readable + " readable bytes");
        }
    }

    /**
     * Makes {@code listener} the stage's {@link StageListener}: at most one, set by the writer before
     * its first write. This default does nothing: a stage that cannot be read while written never calls
     * a listener.
     *
     * @throws IllegalStateException (stages that call it) if a listener is set already, or bytes were
     *     written, or the stage is closed or committed
     */
    default void listen(StageListener listener) {}

    /**
     * Frees what the stage holds unless it was committed; idempotent. Tells the listener the stage was
     * {@linkplain StageListener#abandoned abandoned} if it was open.
     */
    @Override
    void close();
}
