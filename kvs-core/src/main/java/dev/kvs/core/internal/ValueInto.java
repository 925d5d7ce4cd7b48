package dev.kvs.core.internal;

import dev.kvs.core.RecordState;
import dev.kvs.core.ValueRead;
import dev.kvs.core.ValueSink;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.core.Jvm;

/**
 * Passed to {@code getUsing} to read a record whose complete inline value goes straight from
 * Chronicle's memory into a {@link ValueSink}'s buffer, under the segment's read lock: one copy, no
 * value-sized array (a GET's value lands in the reply buffer). The sink is asked once the record's
 * length is known; if it gives no buffer the value is read into an array as usual. One per read, on
 * the reader's thread; not a record itself (only its reads are).
 */
final class ValueInto extends Record {
    private final ValueSink sink;
    /** The sink's buffer the last read copied the value into; null if it copied none. */
    private ByteBuffer buffer;

    ValueInto(ValueSink sink) {
        super(RecordState.TOMBSTONE, 0, 0, 0, 0, NO_BLOB, null);
        this.sink = sink;
    }

    /** Forgets the last read's buffer, before another read. */
    ValueInto reset() {
        buffer = null;
        return this;
    }

    /**
     * Reads the record of {@code size} bytes at {@code offset} of {@code in}: a complete inline string's
     * value into the sink's buffer (the record returned then has no value), else as {@link
     * RecordMarshaller#read(RandomDataInput, long, long, boolean)} with the value.
     */
    Record read(RandomDataInput in, long offset, long size) {
        Record h = RecordMarshaller.read(in, offset, size, false);
        if (h.state != RecordState.COMPLETE || h.isChunked() || h.isStructure()) return h;
        int length = h.valueLength;
        ByteBuffer b = sink.buffer(length);
        if (b == null) return RecordMarshaller.read(in, offset, size, true);
        if (b.remaining() < length) {
            throw new IllegalArgumentException(
                    "sink gave " + b.remaining() + " bytes of room for a value of " + length);
        }
        if (b.isReadOnly()) throw new IllegalArgumentException("sink gave a read-only buffer");
        long from = offset + size - length; // the value ends the record (RecordMarshaller checked the length)
        int at = b.position();
        if (b.isDirect()) {
            in.nativeRead(from, Jvm.address(b) + at, length);
        } else {
            in.read(from, b.array(), b.arrayOffset() + at, length); // writable heap: it has its array
        }
        b.position(at + length);
        buffer = b;
        return h;
    }

    /**
     * The read of inline record {@code r} that the last {@link #read} returned: in the sink's buffer if
     * it was copied there, else with its value; null for a chunked record (its value is still to read).
     */
    ValueRead result(Record r) {
        if (buffer != null) return new ValueRead(r.header(), null, buffer);
        if (r.isChunked()) return null;
        return new ValueRead(r.header(), r.toStoredValue().value(), null);
    }
}
