package dev.kvs.core.internal;

/**
 * A hook run just before each write of a member page or record, for tests that stop a structure write
 * before any one of its writes, as a crash would (and then check what the next open makes of the
 * files), or make that write fail. Unset (null) outside such tests: one read of a volatile field per
 * write.
 */
final class WriteFaults {
    /** Run before each page or record write; it may throw to cut the write short there. */
    static volatile Runnable hook;

    private WriteFaults() {}

    static void beforeWrite() {
        Runnable h = hook;
        if (h != null) h.run();
    }
}
