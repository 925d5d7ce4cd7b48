package dev.kvs.core.internal;

import net.openhft.chronicle.hash.Data;

/**
 * Hooks run around each write of a member page or record, for tests that stop a write where a crash
 * (kill -9) would, and then check what the next open makes of the files, or make that write fail. Unset
 * (null) outside such tests: one read of a volatile field per hook point.
 */
final class WriteFaults {
    /** Run before each page or record write; it may throw to cut the write short there. */
    static volatile Runnable hook;

    /**
     * Run after a page or record's new bytes are in the map's memory, while the write still holds the
     * entry's lock (Chronicle has not yet done what it does as a write's context closes): told where the
     * bytes lie, so a test may copy the files as a kill there would leave them, or tear the bytes.
     */
    static volatile Written written;

    /** Where a write's new bytes lie: {@code length} bytes at native {@code address}. */
    interface Written {
        void at(long address, long length);
    }

    private WriteFaults() {}

    static void beforeWrite() {
        Runnable h = hook;
        if (h != null) h.run();
    }

    /** Calls {@link #written}, if set, with where {@code value} (an entry's value just written) lies. */
    static void afterWrite(Data<?> value) {
        Written w = written;
        if (w != null) w.at(value.bytes().addressForRead(value.offset()), value.size());
    }
}
