package dev.kvs.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 *
 * <p>Each stripe also counts its holds, as a sequence lock does ({@link #version}): odd while a thread
 * holds it, moved on when it is let go. A reader that finds a stripe's count even and the same before
 * and after reading a key's records saw no writer of that key at work: what it read is one state of the
 * key, without taking the lock ({@link #validate}). Reads of hashes and sets, and structure writes that
 * would change nothing, are answered that way (issue 35): redis-benchmark's HSET and SADD of members
 * already there met at the hot key's stripe, and one event loop spun while the other read.
 */
final class KeyStripes {
    static final int STRIPES = 1024;

    private final Stripe[] locks = new Stripe[STRIPES];

    KeyStripes() {
        for (int i = 0; i < STRIPES; i++) locks[i] = new Stripe();
    }

    /**
     * A stripe's lock and its count of holds: raised to odd when a thread takes it (not again when that
     * thread takes it again) and to even just before that thread lets it go for the last time.
     */
    static final class Stripe extends ReentrantLock {
        private static final VarHandle VERSION;

        static {
            try {
                VERSION = MethodHandles.lookup().findVarHandle(Stripe.class, "version", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // through VERSION
        private long version;

        /** Called by the holder right after it took the lock for the first time. */
        void opened() {
            if (getHoldCount() != 1) return;
            VERSION.setOpaque(this, (long) VERSION.getOpaque(this) + 1);
            VarHandle.releaseFence(); // odd before any write the holder makes
        }

        @Override
        public void unlock() {
            if (getHoldCount() == 1) {
                // even after every write the holder made (release: none is seen after it)
                VERSION.setRelease(this, (long) VERSION.getOpaque(this) + 1);
            }
            super.unlock();
        }

        long version() {
            return (long) VERSION.getAcquire(this);
        }

        boolean validate(long version) {
            VarHandle.acquireFence(); // the reads before this one are done before the count is read again
            return (long) VERSION.getOpaque(this) == version;
        }
    }

    /**
     * The hold count of {@code key}'s stripe, for a read without its lock: even if no thread holds it now
     * (then pass it to {@link #validate}), odd if one does (then the read must take the lock).
     */
    long version(byte[] key) {
        return locks[stripe(key)].version();
    }

    /**
     * True if no thread took {@code key}'s stripe since {@link #version} returned {@code version} (even): the
     * reads in between saw one state of the key.
     */
    boolean validate(byte[] key, long version) {
        return (version & 1) == 0 && locks[stripe(key)].validate(version);
    }

    static int stripe(byte[] key) {
        int h = Arrays.hashCode(key);
        return (h ^ (h >>> 16)) & (STRIPES - 1);
    }

    /** Locks {@code key}'s stripe and returns the lock to unlock. */
    ReentrantLock lock(byte[] key) {
        Stripe lock = locks[stripe(key)];
        acquire(lock);
        return lock;
    }

    /** Spins after a stripe taken by another thread is released, before parking. */
    static final int SPINS = 256;

    /** Takes {@code lock}: at once if free, else spinning up to {@link #SPINS} times, else parked. */
    static void acquire(Stripe lock) {
        take(lock);
        lock.opened();
    }

    private static void take(ReentrantLock lock) {
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
