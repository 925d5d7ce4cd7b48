package dev.kvs.replication.primary;

import dev.kvs.core.TxId;
import dev.kvs.replication.ValueLagStatus;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The exposure of a primary in time ({@code maxValueLag}): how long the writes whose values the backup
 * has not acknowledged have waited, how fast the backup acknowledges value bytes, and whether a new
 * write may add a value now. With nothing pending a write always has room; else while both hold:
 *
 * <ul>
 *   <li><b>the lag</b>, the age of the oldest write whose value the backup has not acknowledged, is
 *       below the bound: it rises while the link is down or slower than the writers;
 *   <li><b>the projection</b>: the values ahead of the write's and its own would drain within {@link
 *       #PROJECTION_SHARE} of the bound at the measured rate. The lag alone lags: the oldest value is
 *       younger than the bound for as long as it takes the link to ship it, and writers faster than the
 *       link would queue minutes of values meanwhile; the projection holds them as soon as the values
 *       queued already take the bound to drain. Aiming below the bound leaves room for the rate's
 *       estimate to be off, so that the lag seldom has to hold every writer. A small value (at most {@code
 *       smallValueBytes}, the chunk size) ships between the chunks of larger ones, so only the small values
 *       pending are ahead of it; a larger one has every pending value ahead: small writes keep their
 *       latency under a load of large ones. While the rate is not known (nothing in flight lately) the
 *       projection holds a write once {@link #INITIAL_BYTES} would be ahead (a slow start: values written
 *       faster than an unknown link would otherwise queue unbounded until the first acknowledgement).
 * </ul>
 *
 * <p>A value that alone takes longer than the bound to ship is written when nothing else is pending,
 * and holds every write once it is that old: the bound should exceed the transfer time of the largest
 * values written.
 *
 * <p>The drain rate is {@link DrainRate}'s: value bytes acknowledged per second while at least a small
 * value's worth is in flight, over the last {@link DrainRate#WINDOW_NANOS}.
 *
 * <p>A key rewritten faster than its values ship (a hot key) never leaves the pending values, but its
 * age is that of its oldest write not covered by an acknowledgement: the shipper reads a key's newest value
 * when it takes the key, so the first write after that opens a new <em>round</em>; an acknowledgement
 * covering a round's last write drops it, and the key's age becomes the next round's.
 *
 * <p>While values listed by a full resync are pending ({@link #listed}), the bound holds no writer: a
 * resync ships the whole store, and holding writes for its length would stop them for minutes while
 * the backup is not whole anyway; the lag goes on being measured and shown.
 *
 * <p>Not thread-safe: {@link PendingValues} calls it under its monitor, but for {@link #room}, {@link
 * #held} and the counts of held writes, which any thread may call.
 */
final class ValueLag {
    /** The budget of pending bytes while the drain rate is not known. */
    static final long INITIAL_BYTES = 2L << 20;
    /**
     * The share of the bound the projection aims at: the drain rate is an estimate, and the lag itself, which
     * holds every writer when it reaches the bound, should seldom have to.
     */
    static final double PROJECTION_SHARE = 2.0 / 3;

    /** How long before a write's wait began the check that made it wait may have run. */
    private static final long HOLD_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final long NONE = Long.MIN_VALUE;
    /** {@link #roomUntil}: the bound holds no write. */
    private static final long ALWAYS = Long.MAX_VALUE;

    /**
     * The age of one key's pending writes; {@link PendingValues}'s per-key state extends it (one object
     * per pending key).
     */
    static class Ages {
        /** When the oldest write of the key not covered by an acknowledgement arrived; NONE: not yet. */
        private long since = NONE;
        /** The last write of the oldest round once a later round began, else null (it is the open round). */
        private TxId headEnd;
        /** The rounds after the oldest, the last open; null until a second round begins. */
        private ArrayDeque<Round> later;
        /** Listed by a full resync, not written since. */
        private boolean listed;
        /** The shipper took the key since its last write: the next write opens a round. */
        private boolean taken;
        /** No longer pending. */
        private boolean gone;
    }

    private static final class Round {
        final long at;
        TxId end;

        Round(long at) {
            this.at = at;
        }
    }

    /** A round's first write: when it arrived, for which key. */
    private record Arrival(Ages key, long at) {
        boolean live() {
            return !key.gone && at >= key.since;
        }
    }

    private final long boundNanos;
    private final int smallValueBytes;
    private final LongSupplier clock;
    /** Every round's arrival, in order of time; a round acknowledged or gone stays until it reaches the head. */
    private final ArrayDeque<Arrival> arrivals = new ArrayDeque<>();

    private long liveRounds;
    private long listedKeys;
    private final DrainRate drain;

    private long pendingBytes;
    /** The clock's reading from which no write has room (the lag reaches the bound), or ALWAYS. */
    private volatile long roomUntil = ALWAYS;
    /** The bytes that drain within the bound at the measured rate; {@link #INITIAL_BYTES} while it is not known. */
    private volatile long budgetBytes = Long.MAX_VALUE;
    /** When {@link #room} last refused a write; NONE if never. */
    private volatile long refusedAt = NONE;

    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong waitNanos = new AtomicLong();

    /**
     * With {@code boundNanos} the bound (0: off: no write is held, the lag is still measured), values of at
     * most {@code smallValueBytes} shipped between the chunks of larger ones, and the time read from {@code
     * clock}.
     */
    ValueLag(long boundNanos, int smallValueBytes, LongSupplier clock) {
        if (boundNanos < 0) throw new IllegalArgumentException("boundNanos < 0: " + boundNanos);
        if (smallValueBytes < 0) throw new IllegalArgumentException("smallValueBytes < 0: " + smallValueBytes);
        this.boundNanos = boundNanos;
        this.smallValueBytes = smallValueBytes;
        this.clock = clock;
        this.drain = new DrainRate(smallValueBytes, clock);
    }

    /** Whether a value of {@code length} bytes ships between the chunks of larger ones. */
    boolean small(long length) {
        return length <= smallValueBytes;
    }

    /**
     * A write of {@code key} arrived, {@code previous} the newest TxId it had (null if it is new). It opens a
     * round if the key is new or was taken to ship since {@code previous}; else it joins the open round.
     */
    void arrived(Ages key, TxId previous) {
        if (key.listed) {
            key.listed = false;
            listedKeys--;
        }
        if (key.since == NONE) {
            key.since = clock.getAsLong();
            add(key, key.since);
            return;
        }
        if (!key.taken) return;
        key.taken = false;
        if (key.later == null || key.later.isEmpty()) {
            key.headEnd = previous;
        } else {
            key.later.peekLast().end = previous;
        }
        if (key.later == null) key.later = new ArrayDeque<>(2);
        Round r = new Round(clock.getAsLong());
        key.later.add(r);
        add(key, r.at);
    }

    private void add(Ages key, long at) {
        arrivals.add(new Arrival(key, at));
        liveRounds++;
        // rounds acknowledged behind a live head stay in the deque: sweep them once they outnumber the rest
        if (arrivals.size() > 2 * liveRounds + 64) arrivals.removeIf(a -> !a.live());
    }

    /** The shipper took {@code key} to ship its newest value (it reads it after this). */
    static void taken(Ages key) {
        key.taken = true;
    }

    /** {@code key} was listed by a full resync, as a new pending key. */
    void listed(Ages key) {
        arrived(key, null);
        key.listed = true;
        listedKeys++;
    }

    /** The backup has {@code key}'s value at {@code acked} or newer, and a newer write of it is pending. */
    void covered(Ages key, TxId acked) {
        while (key.headEnd != null && !key.headEnd.isAfter(acked)) {
            Round next = key.later.poll();
            key.since = next.at;
            key.headEnd = next.end;
            liveRounds--;
        }
    }

    /** {@code key} is no longer pending. */
    void gone(Ages key) {
        key.gone = true;
        liveRounds -= 1 + (key.later == null ? 0 : key.later.size());
        if (key.listed) listedKeys--;
    }

    /** The drain rate: the values shipped and acknowledged. */
    DrainRate drain() {
        return drain;
    }

    /** The pending values changed: {@code count} values of {@code bytes} in all are pending now. */
    void refresh(long count, long bytes) {
        pendingBytes = bytes;
        long oldest = oldest();
        if (boundNanos == 0 || listedKeys > 0 || count == 0 || oldest == NONE) {
            roomUntil = ALWAYS;
            return;
        }
        double rate = drain.bytesPerNano();
        budgetBytes =
                rate < 0 ? INITIAL_BYTES : (long) Math.min(Long.MAX_VALUE / 4, rate * boundNanos * PROJECTION_SHARE);
        roomUntil = oldest + boundNanos;
    }

    /** The arrival of the oldest write whose value is pending, or NONE. */
    private long oldest() {
        while (!arrivals.isEmpty() && !arrivals.peekFirst().live()) arrivals.pollFirst();
        return arrivals.isEmpty() ? NONE : arrivals.peekFirst().at;
    }

    /**
     * True if the bound lets a write of about {@code valueBytes} add its value now, {@code pendingBytes} being
     * pending, {@code smallBytes} of them in small values; lock-free.
     */
    boolean room(long pendingBytes, long smallBytes, long valueBytes) {
        long until = roomUntil;
        if (until == ALWAYS) return true;
        long now = clock.getAsLong();
        long ahead = small(valueBytes) ? smallBytes : pendingBytes;
        if (now - until < 0 && ahead + valueBytes < budgetBytes) return true;
        refusedAt = now;
        return false;
    }

    /**
     * A write that found no room waited {@code nanos}, then ran or was refused: counted in the status if this
     * bound refused room while it waited (or in the check, just before, that made it wait).
     */
    void held(long nanos) {
        long at = refusedAt;
        if (at == NONE || at - (clock.getAsLong() - nanos - HOLD_CHECK_NANOS) < 0) return;
        waits.incrementAndGet();
        waitNanos.addAndGet(nanos);
    }

    /** The age of the oldest write whose value the backup has not acknowledged, 0 if none. */
    long lagNanos() {
        long oldest = oldest();
        return oldest == NONE ? 0 : Math.max(0, clock.getAsLong() - oldest);
    }

    /** The bound, the projected lag, the drain rate and the writes held. */
    ValueLagStatus status() {
        double rate = drain.bytesPerNano();
        long projected = pendingBytes == 0 ? 0 : rate <= 0 ? -1 : (long) (pendingBytes / rate);
        return new ValueLagStatus(
                TimeUnit.NANOSECONDS.toMillis(boundNanos),
                projected < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(projected),
                rate < 0 ? -1 : Math.round(rate * 1e9),
                waits.get(),
                TimeUnit.NANOSECONDS.toMillis(waitNanos.get()));
    }
}
