package dev.kvs.core.log;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * One kind of WARN (a refused connection, a failed login) written at most once per interval: a
 * stranger who reconnects in a tight loop fills no disk. The first event is written at once; the
 * events within the next interval are counted, and the next line written says how many were left out
 * ({@code (1,234 more like this since the last such line)}). {@link #events()} counts them all, for
 * {@code INFO} and {@code /metrics}. Thread-safe, lock-free.
 */
public final class ThrottledLog {
    /** The interval the node uses for security events: a few lines a minute at most per kind. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private final Logger log;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final AtomicLong nextLineAt;
    private final AtomicLong leftOut = new AtomicLong();
    private final LongAdder events = new LongAdder();

    /** Writes to {@code log} at most once per {@link #DEFAULT_INTERVAL}. */
    public ThrottledLog(Logger log) {
        this(log, DEFAULT_INTERVAL, System::nanoTime);
    }

    /**
     * @param interval the least time between two lines
     * @param nanoClock a monotonic clock in nanoseconds (tests pass their own)
     */
    public ThrottledLog(Logger log, Duration interval, LongSupplier nanoClock) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        this.log = log;
        this.intervalNanos = interval.toNanos();
        this.nanoClock = nanoClock;
        this.nextLineAt = new AtomicLong(nanoClock.getAsLong());
    }

    /**
     * Counts one event and writes it as a WARN ({@code format} as SLF4J takes it) unless a line of this
     * kind was written within the interval.
     *
     * @return whether the line was written
     */
    public boolean warn(String format, Object... args) {
        events.increment();
        long now = nanoClock.getAsLong();
        long next = nextLineAt.get();
        if (now - next < 0 || !nextLineAt.compareAndSet(next, now + intervalNanos)) {
            leftOut.incrementAndGet();
            return false;
        }
        long skipped = leftOut.getAndSet(0);
        if (skipped == 0) {
            log.warn(format, args);
        } else {
            Object[] more = Arrays.copyOf(args, args.length + 1);
            more[args.length] = String.format("%,d", skipped);
            log.warn(format + " ({} more like this since the last such line)", more);
        }
        return true;
    }

    /** Events counted since start, written or not. */
    public long events() {
        return events.sum();
    }
}
