package dev.kvs.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A wall clock tests move by hand, or that follows the system clock at a fixed offset (a node whose
 * clock is skewed). Thread-safe.
 */
public final class TestClock extends Clock {
    private final boolean follows;
    private final AtomicLong millis; // the time, or the offset from the system clock
    private final AtomicLong reads = new AtomicLong();

    private TestClock(boolean follows, long millis) {
        this.follows = follows;
        this.millis = new AtomicLong(millis);
    }

    /** A clock standing still at {@code epochMillis} until {@link #advance}d. */
    public static TestClock fixedAt(long epochMillis) {
        return new TestClock(false, epochMillis);
    }

    /** The system clock shifted by {@code offset} (positive: ahead). */
    public static TestClock skewed(Duration offset) {
        return new TestClock(true, offset.toMillis());
    }

    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    /** How many times the time was read. */
    public long reads() {
        return reads.get();
    }

    @Override
    public long millis() {
        reads.incrementAndGet();
        return follows ? System.currentTimeMillis() + millis.get() : millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a test clock has one zone");
    }
}
