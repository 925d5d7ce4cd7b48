package dev.kvs.core.internal;

import dev.kvs.core.RecordState;
import dev.kvs.core.ValueType;
import java.util.Objects;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.bytes.RandomDataOutput;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.core.io.IORuntimeException;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.SizedReader;
import net.openhft.chronicle.hash.serialization.SizedWriter;
import net.openhft.chronicle.hash.serialization.impl.EnumMarshallable;
import sun.misc.Unsafe;

/**
 * Encodes a {@link Record} straight into and out of Chronicle's memory, so a put copies the value
 * once and a get copies it once.
 *
 * <p>Layout: {@code flags:1} (state code in bits 0-1, bit 2 set if chunked, bit 3 set if the key
 * expires), {@code epoch:8}, {@code seq:8}, {@code checksum:4}, {@code valueLength:4}, {@code
 * expireAt:8} (epoch millis; only with bit 3), then the inline value or {@code blobId:8}. A record
 * without expiry is laid out as before expiry existed, so persisted files of older versions read as
 * is. Bits 4-6 hold the {@link dev.kvs.core.ValueType} code, 0 for a string, so records written before
 * types existed read as strings; a complete structure's payload is its {@link MembersHeader} ({@link
 * MembersHeader#BYTES}), read even by a header-only read.
 * Stateless; its class name is written into persisted map headers, so it must not be renamed.
 */
final class RecordMarshaller implements SizedReader<Record>, SizedWriter<Record>, EnumMarshallable<RecordMarshaller> {
    static final RecordMarshaller INSTANCE = new RecordMarshaller();

    static final int HEADER_BYTES = 1 + 8 + 8 + 4 + 4;
    private static final int CHUNKED = 4;
    private static final int EXPIRES = 8;
    private static final int TYPE_SHIFT = 4;
    private static final int TYPE_MASK = 7;
    /** The bytes an expiry adds to a record. */
    static final int EXPIRY_BYTES = 8;

    /** Pass to {@code getUsing} to read a record's header without copying its value. */
    static final Record HEADER_ONLY = new Record(RecordState.TOMBSTONE, 0, 0, 0, 0, Record.NO_BLOB, null);

    private RecordMarshaller() {}

    @Override
    public long size(Record r) {
        return HEADER_BYTES + (r.hasExpiry() ? EXPIRY_BYTES : 0) + (r.isChunked() ? 8 : inlineLength(r));
    }

    private static int typeBits(Record r) {
        return r.type.code() << TYPE_SHIFT;
    }

    @Override
    public void write(Bytes<?> out, long size, Record r) {
        long at = out.writePosition();
        out.writeSkip(size); // an elastic buffer grows to hold the record
        write((RandomDataOutput) out, at, r);
    }

    /**
     * Writes {@code r} at {@code offset} of {@code out}, in {@link #size} bytes laid out as the class
     * comment says, with positioned writes: no {@code Bytes} view of the memory.
     */
    static void write(RandomDataOutput out, long offset, Record r) {
        out.writeByte(offset, (byte)
                (r.state.ordinal() | (r.isChunked() ? CHUNKED : 0) | (r.hasExpiry() ? EXPIRES : 0) | typeBits(r)));
        out.writeLong(offset + 1, r.epoch);
        out.writeLong(offset + 9, r.seq);
        out.writeInt(offset + 17, r.checksum);
        out.writeInt(offset + 21, r.valueLength);
        long at = offset + HEADER_BYTES;
        if (r.hasExpiry()) {
            out.writeLong(at, r.expireAt);
            at += EXPIRY_BYTES;
        }
        if (r.isChunked()) {
            out.writeLong(at, r.blobId);
        } else if (r.members != null) {
            MembersHeader m = r.members;
            out.writeLong(at, m.count());
            out.writeInt(at + 8, m.pageCount());
            out.writeInt(at + 12, m.storedPages());
            out.writeLong(at + 16, m.digest());
            out.writeLong(at + 24, m.bytes());
        } else {
            int n = inlineLength(r);
            if (n >= ValueSliceMarshaller.BULK_COPY_MIN && out.isDirectMemory()) {
                // Chronicle copies a heap array into native memory eight bytes per loop iteration (1.8% of a
                // 1 KiB SET's CPU); one intrinsic bulk copy instead, as ValueSliceMarshaller does. Both ends
                // are bounds-checked before a byte moves.
                Objects.checkFromIndexSize(0, n, r.value.length);
                long address = out.addressForWrite(at);
                out.addressForWrite(at + n - 1);
                UnsafeMemory.UNSAFE.copyMemory(r.value, Unsafe.ARRAY_BYTE_BASE_OFFSET, null, address, n);
            } else if (n > 0) {
                out.write(at, r.value, 0, n);
            }
        }
    }

    @Override
    public Record read(Bytes<?> in, long size, Record using) {
        long at = in.readPosition();
        Record r = using instanceof ValueInto into ? into.read(in, at, size) : read(in, at, size, using != HEADER_ONLY);
        in.readPosition(at + size);
        return r;
    }

    /**
     * Reads the record of {@code size} bytes at {@code offset} of {@code in} with positioned reads (no
     * {@code Bytes} view of the memory); its inline value only if {@code withValue}.
     */
    static Record read(RandomDataInput in, long offset, long size, boolean withValue) {
        int flags = in.readByte(offset);
        RecordState state = RecordState.ofCode(flags & 3);
        long epoch = in.readLong(offset + 1);
        long seq = in.readLong(offset + 9);
        int checksum = in.readInt(offset + 17);
        int valueLength = in.readInt(offset + 21);
        long at = offset + HEADER_BYTES;
        long payload = size - HEADER_BYTES;
        long expireAt = 0;
        if ((flags & EXPIRES) != 0) {
            if (payload < EXPIRY_BYTES) throw corrupt(size, valueLength);
            expireAt = in.readLong(at);
            at += EXPIRY_BYTES;
            payload -= EXPIRY_BYTES;
        }
        if ((flags & CHUNKED) != 0) {
            if (payload != 8) throw corrupt(size, valueLength);
            return new Record(state, epoch, seq, checksum, valueLength, in.readLong(at), null, expireAt);
        }
        ValueType type = ValueType.ofCode((flags >>> TYPE_SHIFT) & TYPE_MASK);
        if (type.isStructure()) {
            if (state != RecordState.COMPLETE) {
                if (payload != 0) throw corrupt(size, valueLength);
                return new Record(state, epoch, seq, 0, 0, Record.NO_BLOB, null, expireAt, type, null);
            }
            if (payload != MembersHeader.BYTES) throw corrupt(size, valueLength);
            MembersHeader m = new MembersHeader(
                    in.readLong(at),
                    in.readInt(at + 8),
                    in.readInt(at + 12),
                    in.readLong(at + 16),
                    in.readLong(at + 24));
            return new Record(state, epoch, seq, 0, 0, Record.NO_BLOB, null, expireAt, type, m);
        }
        long expected = state == RecordState.COMPLETE ? valueLength : 0;
        if (payload != expected) throw corrupt(size, valueLength);
        byte[] value = null;
        if (withValue) {
            value = new byte[(int) payload];
            in.read(at, value, 0, value.length);
        }
        return new Record(state, epoch, seq, checksum, valueLength, Record.NO_BLOB, value, expireAt);
    }

    /** The header of the record {@code value} holds (its inline value not copied), read in place. */
    static Record header(Data<Record> value) {
        return read(value.bytes(), value.offset(), value.size(), false);
    }

    private static int inlineLength(Record r) {
        if (r.members != null) return MembersHeader.BYTES;
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
