package dev.kvs.server.internal.resp;

import dev.kvs.server.internal.role.ReadersOut;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What makes an {@code EXEC} atomic on the primary: every data command runs through the barrier
 * shared ({@link #enter}), an EXEC of two or more commands runs its queued commands alone ({@link
 * #alone}), so no other client's command, read or write, runs between two of them or sees part of them.
 *
 * <p>Why a barrier in front of the commands and not the store's key locks: reads of a single key take
 * no lock (the store reads optimistically), so locking the EXEC's keys would keep writers out but not
 * readers, and a reader could see the EXEC's first write and not its second; and some commands (FLUSHDB,
 * SCAN, DBSIZE, RANDOMKEY) touch keys no argument names. Why striped: commands run on several event
 * loops, and one shared lock word would be written by all of them on every command. Here each thread
 * takes the read lock of its own stripe (an uncontended compare-and-set on a lock no other loop writes,
 * the same cost as the store's {@code OpenGate}), and an EXEC takes every stripe's write lock, in stripe
 * order (two EXECs never deadlock). A waiting EXEC keeps new commands of a stripe out once it is queued
 * for it (the lock's writer preference), so a busy loop cannot starve it.
 *
 * <p>An EXEC of reads only is no exception: it must see one state of the store, so writers must stay
 * out while it runs, and a barrier of two modes cannot keep writers out and let readers in; it is as
 * short as the EXEC's reads. An EXEC of one command (or none) needs no barrier: one command is atomic
 * alone.
 *
 * <p>No event loop waits for another one except while that one runs a command: the barrier is held
 * only while commands run, never while a reply waits for replication (a write's reply waits for its
 * future, outside). The node's own writers (active expiry, failover's resolutions) do not pass it: they
 * delete keys whose expiry has passed, which no command sees anyway, or run while no client writes.
 * Thread-safe; shared by the port's connections.
 */
final class ExecBarrier implements ReadersOut {
    private static final int STRIPES = 16; // a power of two, at least the event loops of a 2-core node

    private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];

    ExecBarrier() {
        for (int i = 0; i < STRIPES; i++) stripes[i] = new ReentrantReadWriteLock();
    }

    /** Enters the barrier for one command on this thread; unlock what it returns when the command ran. */
    Lock enter() {
        Lock l = stripes[(int) Thread.currentThread().getId() & (STRIPES - 1)].readLock();
        l.lock();
        return l;
    }

    /**
     * As {@link #enter()}, but gives up and answers null once {@code givesUp} is true while waiting: a
     * script that has run past {@code busy-reply-threshold} holds the barrier, and the command is
     * answered {@code BUSY} instead of waiting for it.
     */
    Lock enter(BooleanSupplier givesUp) {
        Lock l = stripes[(int) Thread.currentThread().getId() & (STRIPES - 1)].readLock();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    // tryLock with a timeout, unlike tryLock(), keeps the writer preference an EXEC relies on
                    if (l.tryLock(BUSY_POLL_MILLIS, TimeUnit.MILLISECONDS)) return l;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
                if (givesUp.getAsBoolean()) return null;
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /** How often a command waiting for the barrier asks whether it should give up. */
    private static final long BUSY_POLL_MILLIS = 50;

    /**
     * Runs {@code fn} with no command in the barrier; commands wait until it returns. Also the backup's
     * guard while it applies an {@code EXEC}'s writes ({@link ReadersOut}): READONLY reads pass the barrier.
     */
    @Override
    public <T> T alone(Supplier<T> fn) {
        int locked = 0;
        try {
            for (; locked < STRIPES; locked++) stripes[locked].writeLock().lock();
            return fn.get();
        } finally {
            for (int i = locked - 1; i >= 0; i--) stripes[i].writeLock().unlock();
        }
    }
}
