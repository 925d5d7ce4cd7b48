package dev.kvs.core.internal;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped locks serialising the writers of each key. Several stripes are always taken in ascending
 * order, so batches and single-key writers never deadlock.
 *
 * <p>A stripe is held for about a microsecond (one record written), so a writer that finds it taken
 * spins before it parks (256 pauses: about 10 us on the 2-core AMD EPYC measured; a spinner usually
 * gets the stripe in a few): when two event loops write one hot key, parking each time cost a futex
 * wake and two context switches per write, more than the wait itself (issue 36).
 */
final class KeyStripes {
    static final int STRIPES = 1024;

    private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

    KeyStripes() {
        for (int i = 0; i < STRIPES; i++) locks[i] = new ReentrantLock();
    }

    static int stripe(byte[] key) {
        int h = Arrays.hashCode(key);
        return (h ^ (h >>> 16)) & (STRIPES - 1);
    }

    /** Locks {@code key}'s stripe and returns the lock to unlock. */
    ReentrantLock lock(byte[] key) {
        ReentrantLock lock = locks[stripe(key)];
        acquire(lock);
        return lock;
    }

    /** Spins after a stripe taken by another thread is released, before parking. */
    static final int SPINS = 256;

    /** Takes {@code lock}: at once if free, else spinning up to {@link #SPINS} times, else parked. */
    static void acquire(ReentrantLock lock) {
        if (lock.tryLock()) return;
        for (int i = 0; i < SPINS; i++) {
            Thread.onSpinWait();
            // read before the compare-and-set: spinners do not pull the lock's line from its holder
            if (!lock.isLocked() && lock.tryLock()) return;
        }
        lock.lock();
    }

    /** Locks the stripes of all {@code keys} in ascending order; returns them for {@link #unlock}. */
    int[] lock(List<byte[]> keys) {
        int[] stripes = new int[keys.size()];
        for (int i = 0; i < stripes.length; i++) stripes[i] = stripe(keys.get(i));
        Arrays.sort(stripes);
        int distinct = 0;
        for (int i = 0; i < stripes.length; i++) {
            if (distinct == 0 || stripes[i] != stripes[distinct - 1]) stripes[distinct++] = stripes[i];
        }
        int[] taken = Arrays.copyOf(stripes, distinct);
        lockInOrder(taken);
        return taken;
    }

    /** Locks every stripe, for whole-store operations. */
    int[] lockAll() {
        int[] all = new int[STRIPES];
        for (int i = 0; i < STRIPES; i++) all[i] = i;
        lockInOrder(all);
        return all;
    }

    void unlock(int[] stripes) {
        for (int i = stripes.length - 1; i >= 0; i--) locks[stripes[i]].unlock();
    }

    private void lockInOrder(int[] stripes) {
        int locked = 0;
        try {
            for (int s : stripes) {
                acquire(locks[s]);
                locked++;
            }
        } catch (Error | RuntimeException e) {
            unlock(Arrays.copyOf(stripes, locked));
            throw e;
        }
    }
}
