package dev.kvs.replication.backup;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvsException;
import dev.kvs.core.StoreFullException;
import dev.kvs.replication.ValueRefusals;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values this backup's store refused: how many, by reason, and the last reason and message, for
 * the backup's own status. A full store refuses every value that needs room, so a line per value would
 * flood the log at the write rate: one WARN says when the reason changes, then one line per {@link
 * #LOG_PERIOD_NANOS} counts the refusals since (written at the first refusal after the period).
 *
 * <p>Thread-safe: the value channels of every event loop record here.
 */
final class BackupRefusals {
    private static final Logger log = LoggerFactory.getLogger(BackupRefusals.class);

    /** How often, at most, the count of refusals with an unchanged reason is logged. */
    static final long LOG_PERIOD_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final StoreRefusal[] REASONS = StoreRefusal.values();

    private final LongAdder[] byReason = new LongAdder[REASONS.length];
    private final LongSupplier clock;
    /** The last refusal; under this monitor, as is everything below. */
    private StoreRefusal lastReason;

    private String lastDetail = "";
    /** The reason the last log line named. */
    private StoreRefusal loggedReason;

    private long loggedAtNanos;
    private long sinceLogged;

    BackupRefusals() {
        this(System::nanoTime);
    }

    /** With {@code clock} (nanoseconds) as the time the log's period is measured with: tests. */
    BackupRefusals(LongSupplier clock) {
        this.clock = clock;
        for (int i = 0; i < byReason.length; i++) byReason[i] = new LongAdder();
    }

    /** Why a store that threw {@code e} refused a value. */
    static StoreRefusal reasonOf(KvsException e) {
        if (e instanceof StoreFullException) return StoreRefusal.STORE_FULL;
        if (e instanceof EntryTooLargeException) return StoreRefusal.VALUE_TOO_LARGE;
        return StoreRefusal.STORE_ERROR;
    }

    /**
     * The store refused a value from {@code primary} for {@code reason}, saying {@code detail}.
     *
     * @return whether a line was logged for it
     */
    boolean refused(StoreRefusal reason, String detail, Object primary) {
        byReason[reason.ordinal()].increment();
        long now = clock.getAsLong();
        synchronized (this) {
            lastReason = reason;
            lastDetail = detail;
            if (reason != loggedReason) {
                log.warn(
                        "the store refuses values from {}: {} ({}); the primary keeps them and retries; refusals are"
                                + " counted (INFO replication, /status) and logged once a minute from now on",
                        primary,
                        reason.label(),
                        detail);
                loggedReason = reason;
                loggedAtNanos = now;
                sinceLogged = 0;
                return true;
            }
            sinceLogged++;
            if (now - loggedAtNanos >= LOG_PERIOD_NANOS) {
                log.warn(
                        "the store refused {} more values in the last {} s: {} ({})",
                        sinceLogged,
                        TimeUnit.NANOSECONDS.toSeconds(now - loggedAtNanos),
                        reason.label(),
                        detail);
                loggedAtNanos = now;
                sinceLogged = 0;
                return true;
            }
            return false;
        }
    }

    /** What was refused since the backup started. */
    ValueRefusals snapshot() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (StoreRefusal r : REASONS) counts.put(r.label(), byReason[r.ordinal()].sum());
        synchronized (this) {
            return new ValueRefusals(lastReason == null ? "" : lastReason.label(), lastDetail, counts);
        }
    }
}
