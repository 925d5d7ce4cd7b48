package dev.kvs.replication.primary;

import dev.kvs.core.ByteKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the {@link ValueShipper} does when shipping a value fails (a store read that throws, a frame that cannot
 * be built or sent): the value is never dropped. It is put back, and its key queued again after a back-off that
 * doubles at each failure of that key in a row, so that a store failing on every read neither spins the shipper
 * nor holds back the values it can read. Every failure is counted ({@link #count}, shown as {@code
 * shipperFailures}); each kind (where, and which exception) is logged in full once, then at most once a minute
 * with the number of failures since, so that a failure repeated at every attempt does not flood the log.
 * Thread-safe.
 */
final class ShipperFailures {
    private static final Logger log = LoggerFactory.getLogger(ValueShipper.class);
    /** A failed key ships again after this long, then twice as long at each failure in a row, up to the most. */
    static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long RELOG_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Where shipping failed, as the log says it. */
    enum Kind {
        READ("reading a value from the store to ship it"),
        SEND("sending a batch of values"),
        CHUNK("reading or sending a chunk of a large value"),
        STAGED("shipping a value while its client still sends it (it ships after its commit instead)"),
        WRITE("writing a value frame (the stream is reset: what it carried ships again)"),
        ROUND("shipping values");

        final String doing;

        Kind(String doing) {
            this.doing = doing;
        }
    }

    /** A key put back: its failures in a row, and when it ships again (or, once queued again, when it was). */
    private static final class Retry {
        int failures;
        long at;
        boolean waiting;
    }

    /** When a kind of failure was last logged, and how many there were since. */
    private static final class Logged {
        long at;
        long since;
    }

    private final Map<ByteKey, Retry> retries = new HashMap<>();
    private final Map<String, Logged> logged = new HashMap<>();
    /** The earliest {@link Retry#at} of a waiting key: {@link #due} has nothing to do before it. */
    private long earliest = Long.MAX_VALUE;

    private long count;

    /** The back-off after {@code failures} failures in a row: doubling from the first retry's, up to the most. */
    static long backoffNanos(int failures) {
        int doublings = Math.min(Math.max(failures - 1, 0), 20);
        return Math.min(FIRST_RETRY_NANOS << doublings, MAX_RETRY_NANOS);
    }

    /** Counts and logs a failure that left no value behind (or put it back itself). */
    synchronized void failed(Kind kind, Throwable e) {
        count++;
        logOnce(kind, e, "", System.nanoTime());
    }

    /**
     * Counts and logs a failure to ship {@code key}'s value, and puts the key back: {@link #due} hands it back
     * to be queued again after its back-off. The caller has taken the key off the queue and unmarked anything
     * of it as in flight.
     */
    synchronized void retryLater(byte[] key, Kind kind, Throwable e, long now) {
        count++;
        Retry r = retries.computeIfAbsent(new ByteKey(key), k -> new Retry());
        r.failures++;
        r.at = now + backoffNanos(r.failures);
        r.waiting = true;
        earliest = Math.min(earliest, r.at);
        logOnce(kind, e, "; it ships again in " + TimeUnit.NANOSECONDS.toMillis(r.at - now) + " ms", now);
    }

    /**
     * The keys whose back-off is over, to be queued again. A key queued again that has not failed again for the
     * longest back-off is forgotten: its next failure starts again from the first back-off.
     */
    synchronized List<byte[]> due(long now) {
        if (retries.isEmpty() || now - earliest < 0) return List.of();
        List<byte[]> due = new ArrayList<>();
        long next = Long.MAX_VALUE;
        for (Iterator<Map.Entry<ByteKey, Retry>> it = retries.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<ByteKey, Retry> e = it.next();
            Retry r = e.getValue();
            if (r.waiting && now - r.at >= 0) {
                r.waiting = false;
                due.add(e.getKey().bytes());
                next = Math.min(next, r.at + MAX_RETRY_NANOS + 1);
            } else if (r.waiting) {
                next = Math.min(next, r.at);
            } else if (now - r.at > MAX_RETRY_NANOS) {
                it.remove();
            } else {
                next = Math.min(next, r.at + MAX_RETRY_NANOS + 1);
            }
        }
        earliest = next;
        return due;
    }

    /** Failures so far, of every kind. */
    synchronized long count() {
        return count;
    }

    private void logOnce(Kind kind, Throwable e, String then, long now) {
        Logged l = logged.get(kind.name() + e.getClass().getName());
        if (l == null) {
            l = new Logged();
            l.at = now;
            logged.put(kind.name() + e.getClass().getName(), l);
            log.warn(
                    "value shipper: {} failed{}; this failure is logged once, then at most once a minute",
                    kind.doing,
                    then,
                    e);
        } else if (now - l.at >= RELOG_NANOS) {
            log.warn(
                    "value shipper: {} failed {} more times in {} s; the last: {}{}",
                    kind.doing,
                    l.since + 1,
                    TimeUnit.NANOSECONDS.toSeconds(now - l.at),
                    e,
                    then);
            l.at = now;
            l.since = 0;
        } else {
            l.since++;
            log.debug("value shipper: {} failed{}", kind.doing, then, e);
        }
    }
}
