package dev.kvs.core.internal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.bytes.RandomDataOutput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How the record maps write a {@link Record}: the bytes {@link RecordMarshaller} writes, put straight into
 * the map's memory at the entry's offset.
 *
 * <p>Chronicle's own access for a {@code SizedWriter} ({@code SizedMarshallableDataAccess}) points a
 * {@code Bytes} view at the target memory for every write, which reserves and releases the memory's
 * reference count and calls its listeners: a profile of 100 B SETs at {@code -P 16} spent 5.2% of the
 * node's CPU in that write, 0.6% of it in the marshaller's own writes. Here the fields go with one
 * positioned write each, and the inline value with one copy; a {@code Bytes} is made only if Chronicle
 * asks for {@link #bytes()}. The layout is {@link RecordMarshaller}'s, which still reads every record,
 * so files written with either access read with the other.
 *
 * <p>Not thread-safe: Chronicle {@linkplain #copy() copies} a data access per query context. Its class
 * name is written into persisted map headers, so it must not be renamed.
 */
final class RecordDataAccess extends AbstractData<Record> implements DataAccess<Record> {
    private transient Record record;
    private transient Bytes<?> serialized;

    @Override
    public Data<Record> getData(Record instance) {
        record = instance;
        serialized = null;
        return this;
    }

    @Override
    public void uninit() {
        record = null;
        serialized = null;
    }

    @Override
    public long size() {
        return RecordMarshaller.INSTANCE.size(record);
    }

    @Override
    public void writeTo(RandomDataOutput target, long targetOffset) {
        RecordMarshaller.write(target, targetOffset, record);
    }

    /** The record as the marshaller writes it, in a heap buffer made on first use. */
    @Override
    public RandomDataInput bytes() {
        if (serialized == null) {
            long size = size();
            Bytes<?> b = Bytes.allocateElasticOnHeap((int) size);
            RecordMarshaller.INSTANCE.write(b, size, record);
            serialized = b;
        }
        return serialized.bytesStore();
    }

    @Override
    public long offset() {
        return 0;
    }

    @Override
    public Record get() {
        return record;
    }

    /** Records are immutable: the same one. */
    @Override
    public Record getUsing(Record using) {
        return record;
    }

    @Override
    public DataAccess<Record> copy() {
        return new RecordDataAccess();
    }

    @Override
    public void writeMarshallable(WireOut wire) {
        // no configuration: nothing to write into the map's header
    }

    @Override
    public void readMarshallable(WireIn wire) {
        uninit();
    }
}
