package dev.kvs.core.internal;

import java.nio.BufferOverflowException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.core.io.IORuntimeException;
import net.openhft.chronicle.hash.serialization.SizedReader;
import net.openhft.chronicle.hash.serialization.SizedWriter;
import net.openhft.chronicle.hash.serialization.impl.EnumMarshallable;
import sun.misc.Unsafe;

/**
 * Copies a chunk between Chronicle's memory and a slice of the caller's value array (or a caller's
 * buffer) with no intermediate buffer. Reading with a {@code using} slice fills that slice (the chunk must be exactly
 * as long); without one it allocates. Stateless; named in persisted map headers, so never renamed.
 */
final class ValueSliceMarshaller
        implements SizedReader<ValueSlice>, SizedWriter<ValueSlice>, EnumMarshallable<ValueSliceMarshaller> {
    static final ValueSliceMarshaller INSTANCE = new ValueSliceMarshaller();
    /** Below this a plain write is as fast as a bulk copy's call. */
    static final int BULK_COPY_MIN = 1024;

    private ValueSliceMarshaller() {}

    @Override
    public long size(ValueSlice s) {
        return s.length;
    }

    @Override
    public void write(Bytes<?> out, long size, ValueSlice s) {
        if (s.reservation) {
            reserve(out, s);
        } else if (s.array != null) {
            write(out, s.array, s.offset, s.length);
        } else {
            writeFrom(out, s.buffer, s.length);
        }
    }

    /**
     * Skips the chunk's bytes, leaving whatever the entry's memory held, and keeps their address: its
     * writer fills them with one copy per piece of the value as it arrives.
     */
    private static void reserve(Bytes<?> out, ValueSlice s) {
        if (!out.isDirectMemory()) throw new IllegalStateException("a chunk reserved outside native memory");
        s.address = out.addressForWrite(out.writePosition());
        out.writeSkip(s.length);
    }

    private static void write(Bytes<?> out, byte[] array, int offset, int length) {
        if (length >= BULK_COPY_MIN && out.isDirectMemory()) {
            // Chronicle copies a heap array into native memory eight bytes per loop iteration (12% of a
            // 100 kB SET's CPU); the JDK's Unsafe.copyMemory is one intrinsic bulk copy (a chunk is at most
            // 64 KiB, so it holds no safepoint long). The limit is checked (writeSkip) before a byte moves.
            long address = out.addressForWrite(out.writePosition());
            out.writeSkip(length);
            UnsafeMemory.UNSAFE.copyMemory(array, Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) offset, null, address, length);
        } else {
            out.write(array, offset, length);
        }
    }

    /**
     * Copies the {@code length} bytes at {@code buffer}'s position (which it leaves where it is: the
     * caller advances it once the chunk is stored) with one bulk copy, as {@link #write} does an array's.
     */
    private static void writeFrom(Bytes<?> out, ByteBuffer buffer, int length) {
        if (buffer.remaining() < length) throw new BufferUnderflowException();
        int at = buffer.position();
        if (buffer.isDirect() && out.isDirectMemory()) {
            long address = out.addressForWrite(out.writePosition());
            out.writeSkip(length);
            UnsafeMemory.UNSAFE.copyMemory(Jvm.address(buffer) + at, address, length);
        } else if (buffer.hasArray()) {
            write(out, buffer.array(), buffer.arrayOffset() + at, length);
        } else {
            byte[] bytes = new byte[length]; // a read-only heap buffer, or a store on the heap
            buffer.duplicate().get(bytes);
            out.write(bytes);
        }
    }

    @Override
    public ValueSlice read(Bytes<?> in, long size, ValueSlice using) {
        if (using == null) {
            byte[] bytes = new byte[(int) size];
            read(in, bytes, 0, bytes.length);
            return new ValueSlice(bytes, 0, bytes.length);
        }
        if (size != using.length) {
            throw new IORuntimeException("corrupt chunk: " + size + " bytes, expected " + using.length);
        }
        if (using.buffer != null) {
            readInto(in, using.buffer, using.skip, using.count);
        } else {
            read(in, using.array, using.offset, using.length);
        }
        return using;
    }

    /** Reads {@code length} bytes into {@code array}: one bulk copy from native memory, as in {@link #write}. */
    private static void read(Bytes<?> in, byte[] array, int offset, int length) {
        if (length >= BULK_COPY_MIN && in.isDirectMemory()) {
            long address = in.addressForRead(in.readPosition());
            in.readSkip(length);
            UnsafeMemory.UNSAFE.copyMemory(null, address, array, Unsafe.ARRAY_BYTE_BASE_OFFSET + (long) offset, length);
        } else {
            in.read(array, offset, length);
        }
    }

    /**
     * Copies {@code length} bytes from {@code in}, {@code skip} bytes after its read position, to
     * {@code buffer}'s position and advances it.
     */
    private static void readInto(Bytes<?> in, ByteBuffer buffer, int skip, int length) {
        if (buffer.remaining() < length) throw new BufferOverflowException();
        int at = buffer.position();
        if (skip > 0) in.readSkip(skip);
        if (buffer.isDirect()) {
            in.nativeRead(in.readPosition(), Jvm.address(buffer) + at, length); // one memory copy
        } else if (buffer.hasArray()) {
            read(in, buffer.array(), buffer.arrayOffset() + at, length);
        } else {
            byte[] bytes = new byte[length]; // a read-only heap buffer: the store cannot fill it
            in.read(bytes);
            buffer.put(bytes);
            return;
        }
        buffer.position(at + length);
    }

    @Override
    public ValueSliceMarshaller readResolve() {
        return INSTANCE;
    }
}
