package dev.kvs.core.internal;

import dev.kvs.core.StorageException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets operations run while a store is open and lets {@link #close} wait until those in flight have
 * left, so the backing maps are never released under a reader. Each thread counts itself in a slot
 * of its own cache line: entering costs two uncontended atomic adds, not a shared lock.
 */
final class OpenGate {
    private static final int SLOTS = 64;
    private static final int PAD = 16; // longs per slot: 128 bytes, no false sharing

    private final AtomicLongArray active = new AtomicLongArray(SLOTS * PAD);
    private volatile boolean closed;

    /**
     * Enters the gate; pass the result to {@link #exit}.
     *
     * @throws StorageException if the store is closed
     */
    int enter() {
        int slot = ((int) Thread.currentThread().getId() & (SLOTS - 1)) * PAD;
        active.getAndIncrement(slot);
        if (closed) {
            active.getAndDecrement(slot);
            throw new StorageException("store is closed");
        }
        return slot;
    }

    void exit(int slot) {
        active.getAndDecrement(slot);
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Shuts the gate and waits for the operations inside to leave.
     *
     * @return false if it was already closed
     */
    boolean close() {
        synchronized (this) {
            if (closed) return false;
            closed = true;
        }
        for (int slot = 0; slot < SLOTS * PAD; slot += PAD) {
            for (int spins = 0; active.get(slot) != 0; spins++) {
                if (spins < 100) Thread.onSpinWait();
                else LockSupport.parkNanos(100_000);
            }
        }
        return true;
    }
}
