package dev.kvs.core;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A record read by {@link KvStore#readValue}: its header, and a complete record's value either in
 * {@link #value()} or copied into {@link #buffer()}, the buffer the {@link ValueSink} returned last.
 *
 * @param header state, TxId, checksum and length, read atomically with the value
 * @param value the value bytes if not copied into a buffer (empty for records that are not complete),
 *     else {@code null}
 * @param buffer the sink's buffer holding the value (from the position it had when returned, {@code
 *     header.valueLength()} bytes, position now after them), or {@code null}
 */
public record ValueRead(RecordHeader header, byte[] value, ByteBuffer buffer) {
    public ValueRead {
        Objects.requireNonNull(header, "header == null");
        if ((value == null) == (buffer == null)) {
            throw new IllegalArgumentException("exactly one of value and buffer must be given");
        }
        if (buffer != null && header.state() != RecordState.COMPLETE) {
            throw new IllegalArgumentException(header.state() + " record has no value to copy");
        }
    }

    /** The read of {@code v} (or null): copies a complete value into {@code sink}'s buffer if it gives one. */
    public static ValueRead of(StoredValue v, ValueSink sink) {
        if (v == null) return null;
        if (v.state() != RecordState.COMPLETE) return new ValueRead(v.header(), v.value(), null);
        ByteBuffer b = sink.buffer(v.value().length);
        if (b == null) return new ValueRead(v.header(), v.value(), null);
        b.put(v.value());
        return new ValueRead(v.header(), null, b);
    }

    /** Checks the arguments of {@link KvStore#readRange}. */
    public static void checkRange(int offset, int length, ByteBuffer buffer) {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("range [" + offset + ", +" + length + ") is negative");
        }
        if (buffer.remaining() < length) {
            throw new IllegalArgumentException(
                    "buffer has " + buffer.remaining() + " bytes of room for a range of " + length);
        }
    }

    /** True if {@code header}'s record is complete and its value holds {@code [offset, offset + length)}. */
    public static boolean covers(RecordHeader header, int offset, int length) {
        return header.state() == RecordState.COMPLETE && (long) offset + length <= header.valueLength();
    }

    public RecordState state() {
        return header.state();
    }

    /** True if the value is in {@link #buffer()}. */
    public boolean inBuffer() {
        return buffer != null;
    }
}
