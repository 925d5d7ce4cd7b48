package dev.kvs.replication.primary;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The write timeout of every write waiting for the backup, kept by one sweep: each write's future is
 * completed with a {@link TimeoutException} once its deadline has passed, within a tenth of the timeout
 * (at least 1 ms, at most 100 ms) after it.
 *
 * <p>{@link CompletableFuture#orTimeout} does the same with one task per write on the JDK's shared delay
 * scheduler: two locked heap operations per write (schedule, then cancel), and the scheduler's thread
 * woken whenever a write's deadline became its earliest. With 64 clients writing 1 KiB values id-first
 * that thread took 0.05 wake-ups and 1.7 µs of CPU per write. Here a write costs an entry in a queue,
 * and the sweep runs on a replication event loop ten times per timeout, busy or idle.
 *
 * <p>Every write gets the same timeout, so deadlines come in the order writes are watched (to within the
 * few microseconds two event loops may race by): the sweep stops at the first entry that is neither done
 * nor due.
 *
 * <p>The same sweep withdraws every wait at once when the primary may no longer acknowledge writes (a
 * coordinated primary whose lease lapsed): each future still waiting completes with {@link Withdrawn}, so
 * its client is answered within a sweep period of the lapse, not at the end of its timeout. Thread-safe.
 */
final class WriteTimeouts {
    private record Entry(long deadline, CompletableFuture<?> future) {}

    /** A wait ended because the primary may no longer acknowledge writes. */
    static final class Withdrawn extends Exception {
        Withdrawn() {
            super(null, null, false, false);
        }
    }

    private final long timeoutNanos;
    private final BooleanSupplier mayAcknowledge;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final ScheduledFuture<?> sweeper;

    /** Sweeps on {@code executor} until {@link #close}; every write may be acknowledged. */
    WriteTimeouts(long timeoutMillis, EventExecutor executor) {
        this(timeoutMillis, executor, () -> true);
    }

    /** Sweeps on {@code executor} until {@link #close}, withdrawing every wait while {@code mayAcknowledge} fails. */
    WriteTimeouts(long timeoutMillis, EventExecutor executor, BooleanSupplier mayAcknowledge) {
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.mayAcknowledge = mayAcknowledge;
        long period = Math.max(1, Math.min(100, timeoutMillis / 10));
        this.sweeper = executor.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    /** {@code future} fails with a {@link TimeoutException} if not done within the timeout; returns it. */
    <T> CompletableFuture<T> watch(CompletableFuture<T> future) {
        Entry e = new Entry(System.nanoTime() + timeoutNanos, future);
        synchronized (this) {
            entries.addLast(e);
        }
        return future;
    }

    /** Writes watched and not yet done or timed out (and done ones behind an older pending one). */
    synchronized int size() {
        return entries.size();
    }

    /** Completes the futures past their deadline; drops the done ones at the head. */
    void sweep() {
        if (!mayAcknowledge.getAsBoolean()) {
            withdrawAll();
            return;
        }
        long now = System.nanoTime();
        while (true) {
            Entry e;
            synchronized (this) {
                e = entries.peekFirst();
                if (e == null || (!e.future.isDone() && e.deadline - now > 0)) return;
                entries.pollFirst();
            }
            if (!e.future.isDone()) e.future.completeExceptionally(new TimeoutException());
        }
    }

    private void withdrawAll() {
        while (true) {
            Entry e;
            synchronized (this) {
                e = entries.pollFirst();
            }
            if (e == null) return;
            if (!e.future.isDone()) e.future.completeExceptionally(new Withdrawn());
        }
    }

    /** Stops sweeping; the writes still waiting are answered by whoever closes replication. */
    void close() {
        sweeper.cancel(false);
    }
}
