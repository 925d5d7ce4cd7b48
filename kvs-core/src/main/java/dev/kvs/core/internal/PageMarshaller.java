package dev.kvs.core.internal;

import dev.kvs.core.Checksums;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.core.io.IORuntimeException;
import net.openhft.chronicle.hash.serialization.SizedReader;
import net.openhft.chronicle.hash.serialization.SizedWriter;
import net.openhft.chronicle.hash.serialization.impl.EnumMarshallable;
import sun.misc.Unsafe;

/**
 * A member page as a pages map in a file holds it: the page's bytes, then their CRC32C ({@link
 * #TRAILER} bytes, native order), written with the bytes. A kill -9 in the middle of a page's copy in
 * place leaves bytes the checksum does not match, which the open after the crash finds ({@link #intact})
 * and fences the structure for, instead of reading members out of half of two pages. Reads leave the
 * checksum out; only that check reads it. A map in memory, and a file made before, holds pages bare.
 * Stateless; its class name is written into the map's file header, so it must not be renamed.
 */
final class PageMarshaller implements SizedReader<byte[]>, SizedWriter<byte[]>, EnumMarshallable<PageMarshaller> {
    static final PageMarshaller INSTANCE = new PageMarshaller();
    /** Bytes after a page's own: its checksum. */
    static final int TRAILER = 4;

    private PageMarshaller() {}

    @Override
    public long size(byte[] page) {
        return page.length + (long) TRAILER;
    }

    @Override
    public void write(Bytes<?> out, long size, byte[] page) {
        long at = out.writePosition();
        out.writeSkip(size); // an elastic buffer grows to hold the page
        int n = page.length;
        if (n >= ValueSliceMarshaller.BULK_COPY_MIN && out.isDirectMemory()) {
            // one intrinsic bulk copy, as RecordMarshaller's; both ends bounds-checked before a byte moves
            long address = out.addressForWrite(at);
            out.addressForWrite(at + n - 1);
            UnsafeMemory.UNSAFE.copyMemory(page, Unsafe.ARRAY_BYTE_BASE_OFFSET, null, address, n);
        } else if (n > 0) {
            out.write(at, page, 0, n);
        }
        out.writeInt(at + n, Checksums.crc32c(page));
    }

    @Override
    public byte[] read(Bytes<?> in, long size, byte[] using) {
        long at = in.readPosition();
        int n = length(size);
        byte[] page = using != null && using.length == n ? using : new byte[n];
        in.read(at, page, 0, n);
        in.readPosition(at + size);
        return page;
    }

    /** The page's own bytes in a stored value of {@code size} bytes. */
    static int length(long size) {
        if (size < TRAILER || size - TRAILER > Integer.MAX_VALUE) {
            throw new IORuntimeException("corrupt page: a stored value of " + size + " bytes");
        }
        return (int) (size - TRAILER);
    }

    /** Whether the stored value of {@code size} bytes at {@code offset} of {@code in} matches its checksum. */
    static boolean intact(RandomDataInput in, long offset, long size) {
        if (size < TRAILER || size - TRAILER > Integer.MAX_VALUE) return false;
        int n = (int) (size - TRAILER);
        byte[] page = new byte[n];
        in.read(offset, page, 0, n);
        return in.readInt(offset + n) == Checksums.crc32c(page);
    }

    @Override
    public PageMarshaller readResolve() {
        return INSTANCE;
    }
}
