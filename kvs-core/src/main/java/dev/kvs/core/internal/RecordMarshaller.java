package dev.kvs.core.internal;

import dev.kvs.core.RecordState;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.io.IORuntimeException;
import net.openhft.chronicle.hash.serialization.SizedReader;
import net.openhft.chronicle.hash.serialization.SizedWriter;
import net.openhft.chronicle.hash.serialization.impl.EnumMarshallable;

/**
 * Encodes a {@link Record} straight into and out of Chronicle's memory, so a put copies the value
 * once and a get copies it once.
 *
 * <p>Layout: {@code flags:1} (state code in bits 0-1, bit 2 set if chunked, bit 3 set if the key
 * expires), {@code epoch:8}, {@code seq:8}, {@code checksum:4}, {@code valueLength:4}, {@code
 * expireAt:8} (epoch millis; only with bit 3), then the inline value or {@code blobId:8}. A record
 * without expiry is laid out as before expiry existed, so persisted files of older versions read as
 * is.
 * Stateless; its class name is written into persisted map headers, so it must not be renamed.
 */
final class RecordMarshaller implements SizedReader<Record>, SizedWriter<Record>, EnumMarshallable<RecordMarshaller> {
    static final RecordMarshaller INSTANCE = new RecordMarshaller();

    static final int HEADER_BYTES = 1 + 8 + 8 + 4 + 4;
    private static final int CHUNKED = 4;
    private static final int EXPIRES = 8;
    /** The bytes an expiry adds to a record. */
    static final int EXPIRY_BYTES = 8;

    /** Pass to {@code getUsing} to read a record's header without copying its value. */
    static final Record HEADER_ONLY = new Record(RecordState.TOMBSTONE, 0, 0, 0, 0, Record.NO_BLOB, null);

    private RecordMarshaller() {}

    @Override
    public long size(Record r) {
        return HEADER_BYTES + (r.hasExpiry() ? EXPIRY_BYTES : 0) + (r.isChunked() ? 8 : inlineLength(r));
    }

    @Override
    public void write(Bytes<?> out, long size, Record r) {
        out.writeByte((byte) (r.state.ordinal() | (r.isChunked() ? CHUNKED : 0) | (r.hasExpiry() ? EXPIRES : 0)));
        out.writeLong(r.epoch);
        out.writeLong(r.seq);
        out.writeInt(r.checksum);
        out.writeInt(r.valueLength);
        if (r.hasExpiry()) out.writeLong(r.expireAt);
        if (r.isChunked()) {
            out.writeLong(r.blobId);
        } else {
            int n = inlineLength(r);
            if (n > 0) out.write(r.value, 0, n);
        }
    }

    @Override
    public Record read(Bytes<?> in, long size, Record using) {
        int flags = in.readByte();
        RecordState state = RecordState.ofCode(flags & 3);
        long epoch = in.readLong();
        long seq = in.readLong();
        int checksum = in.readInt();
        int valueLength = in.readInt();
        long payload = size - HEADER_BYTES;
        long expireAt = 0;
        if ((flags & EXPIRES) != 0) {
            if (payload < EXPIRY_BYTES) throw corrupt(size, valueLength);
            expireAt = in.readLong();
            payload -= EXPIRY_BYTES;
        }
        if ((flags & CHUNKED) != 0) {
            if (payload != 8) throw corrupt(size, valueLength);
            return new Record(state, epoch, seq, checksum, valueLength, in.readLong(), null, expireAt);
        }
        long expected = state == RecordState.COMPLETE ? valueLength : 0;
        if (payload != expected) throw corrupt(size, valueLength);
        byte[] value = null;
        if (using != HEADER_ONLY) {
            value = new byte[(int) payload];
            in.read(value);
        }
        return new Record(state, epoch, seq, checksum, valueLength, Record.NO_BLOB, value, expireAt);
    }

    private static int inlineLength(Record r) {
        return r.state == RecordState.COMPLETE ? r.valueLength : 0;
    }

    private static IORuntimeException corrupt(long size, int valueLength) {
        return new IORuntimeException("corrupt record: " + size + " bytes for valueLength " + valueLength);
    }

    @Override
    public RecordMarshaller readResolve() {
        return INSTANCE;
    }
}
