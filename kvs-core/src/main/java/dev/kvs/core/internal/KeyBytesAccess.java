package dev.kvs.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.bytes.RandomDataOutput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How the record maps see a {@code byte[]} key: as Chronicle's own {@code ByteArrayDataAccess}, but
 * without going through a {@link BytesStore} for the three things every lookup does.
 *
 * <p>Chronicle's access wraps each key in a new heap {@code BytesStore} (an allocation with reference
 * counting) and hashes it through a bounds- and release-checked {@code RandomDataInput}, one virtual
 * call per eight bytes: a profile of 100 B SETs at {@code -P 16} spent 22% of the node's CPU in
 * {@code XxHash_r39.hash} on 16-byte keys. Here the key is hashed with {@link
 * LongHashFunction#hashBytes(byte[])} (the same function over the same bytes, so the same hash: files
 * written with either access read with the other), compared eight bytes at a time, and written with
 * one copy; a {@code BytesStore} is made only if Chronicle asks for {@link #bytes()}.
 *
 * <p>Not thread-safe: Chronicle {@linkplain #copy() copies} a data access per query context.
 */
class KeyBytesAccess extends AbstractData<byte[]> implements DataAccess<byte[]> {
    /** Reads a long from a byte[] in the byte order Chronicle's native memory uses. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private transient byte[] array;
    private transient BytesStore<?, ?> wrapped;

    @Override
    public Data<byte[]> getData(byte[] instance) {
        array = instance;
        wrapped = null;
        return this;
    }

    @Override
    public void uninit() {
        array = null;
        wrapped = null;
    }

    @Override
    public RandomDataInput bytes() {
        if (wrapped == null) wrapped = BytesStore.wrap(array);
        return wrapped;
    }

    @Override
    public long offset() {
        return 0;
    }

    @Override
    public long size() {
        return array.length;
    }

    @Override
    public long hash(LongHashFunction f) {
        return f.hashBytes(array);
    }

    @Override
    public boolean equivalent(RandomDataInput source, long sourceOffset) {
        byte[] a = array;
        int i = 0;
        for (; i + Long.BYTES <= a.length; i += Long.BYTES) {
            if (source.readLong(sourceOffset + i) != (long) LONGS.get(a, i)) return false;
        }
        for (; i < a.length; i++) {
            if (source.readByte(sourceOffset + i) != a[i]) return false;
        }
        return true;
    }

    @Override
    public void writeTo(RandomDataOutput target, long targetOffset) {
        target.write(targetOffset, array, 0, array.length);
    }

    @Override
    public byte[] get() {
        return array;
    }

    @Override
    public byte[] getUsing(byte[] using) {
        byte[] out = using != null && using.length == array.length ? using : new byte[array.length];
        System.arraycopy(array, 0, out, 0, array.length);
        return out;
    }

    @Override
    public DataAccess<byte[]> copy() {
        return new KeyBytesAccess();
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
