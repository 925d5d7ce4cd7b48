package dev.kvs.replication.primary;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import dev.kvs.replication.BackupCannotStoreException;
import dev.kvs.replication.ValueRefusals;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Values the backup's store refused ({@code ValueRefused}: full, too large, failing), and the alarm
 * they raise. Such a value stays in {@link PendingValues}, out of the shipping queue: sending it again
 * at once would be refused again, at the link's speed. Every {@link #RETRY_NANOS} {@link #retry} ships
 * one of them again (the one refused longest ago) as a probe; once one has landed, or a value channel
 * has connected again (a backup restarted, perhaps with a larger store), every one held is shipped
 * again at the next retry. So a backup that stays full costs one value a second, and one that has room
 * again (keys deleted on the primary, a larger store) gets them all within two retries. A value refused
 * as too large is no probe: room does not help it, only a backup restarted with a larger {@code
 * maxValueBytes} (a reconnection), and probing it would resend the whole value every second.
 *
 * <p>The alarm is on while any refused value has not landed since (its key's newest value, or a newer
 * one, acknowledged): the link is {@code degraded}, and id-first and sync writes are answered with a
 * {@link BackupCannotStoreException} ({@code -NOREPLICA}) instead of an acknowledgement whose value
 * cannot land. Thread-safe; the check on the write path is one volatile read.
 */
final class RefusedValues {
    private static final Logger log = LoggerFactory.getLogger(RefusedValues.class);

    /** How often refused values are tried again: a modest pace, not a loop. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final StoreRefusal[] REASONS = StoreRefusal.values();

    private final PendingValues pending;
    /** By key, oldest refusal first (a key refused again moves to the end). */
    private final Map<ByteKey, Refused> refused = new LinkedHashMap<>();

    private final long[] byReason = new long[REASONS.length];
    private StoreRefusal lastReason;
    private String lastDetail = "";
    /**
     * A refused value landed, or a value channel connected, since the last {@link #retry}: the backup
     * may take them all now.
     */
    private boolean releaseAll;
    /** The last refusal's reason while the alarm is on, else null: what writes check. */
    private volatile StoreRefusal alarm;

    private static final class Refused {
        TxId txId;
        StoreRefusal reason;
        /** Not shipped again since it was refused. */
        boolean held;
    }

    RefusedValues(PendingValues pending) {
        this.pending = pending;
    }

    /**
     * The backup's store refused the value with {@code txId} for {@code reason}, saying {@code detail}:
     * its key is held (see {@link PendingValues#refused}), a sync write waiting for it fails now, and the
     * alarm is on.
     */
    void refused(TxId txId, StoreRefusal reason, String detail) {
        ByteKey key = pending.refused(txId, error(txId, reason, detail));
        synchronized (this) {
            byReason[reason.ordinal()]++;
            lastReason = reason;
            lastDetail = detail;
            if (key == null) return; // acknowledged meanwhile by a newer value of its key
            Refused r = refused.remove(key);
            if (r == null) r = new Refused();
            if (r.txId == null || txId.isAfter(r.txId)) r.txId = txId;
            r.reason = reason;
            r.held = true;
            refused.put(key, r);
            if (alarm == null) {
                log.warn(
                        "the backup's store refuses values: {} ({}); replication is degraded: id-first and sync"
                                + " writes answer NOREPLICA, refused values are kept and retried every {} ms",
                        reason.label(),
                        detail,
                        TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS));
            }
            alarm = reason;
        }
    }

    /** The backup acknowledged {@code key}'s value with {@code txId}: if it was refused before, it landed. */
    void landed(ByteKey key, TxId txId) {
        if (alarm == null) return; // nothing refused: the common case costs one volatile read
        synchronized (this) {
            Refused r = refused.get(key);
            if (r == null || r.txId.isAfter(txId)) return;
            refused.remove(key);
            releaseAll = true;
            if (refused.isEmpty()) cleared();
        }
    }

    private void cleared() {
        alarm = null;
        log.info(
                "the backup's store takes values again: every refused value landed; replication is no longer degraded");
    }

    /** A value channel connected (again): every refused value is shipped at the next {@link #retry}. */
    synchronized void reconnected() {
        if (!refused.isEmpty()) releaseAll = true;
    }

    /**
     * Ships refused values again: all of them if one landed or a value channel connected since the last
     * call, else the one refused longest ago (not for being too large). Call it every {@link
     * #RETRY_NANOS}.
     */
    void retry() {
        List<ByteKey> release = new ArrayList<>();
        synchronized (this) {
            if (refused.isEmpty()) return;
            boolean all = releaseAll;
            releaseAll = false;
            for (Map.Entry<ByteKey, Refused> e : refused.entrySet()) {
                Refused r = e.getValue();
                if (!r.held || (!all && r.reason == StoreRefusal.VALUE_TOO_LARGE)) continue;
                r.held = false;
                release.add(e.getKey());
                if (!all) break;
            }
        }
        for (ByteKey k : release) {
            if (pending.newest(k.bytes()) == null) {
                forget(k); // no longer pending: acknowledged on a path that did not tell us
            } else {
                pending.requeue(k.bytes());
            }
        }
    }

    private synchronized void forget(ByteKey key) {
        if (refused.remove(key) != null && refused.isEmpty()) cleared();
    }

    /**
     * The error for a write with {@code txId} while the alarm is on, or null if it is off: the write is
     * on the primary and ordered, and replicates once the backup takes values again.
     */
    BackupCannotStoreException refusal(TxId txId) {
        StoreRefusal reason = alarm;
        if (reason == null) return null;
        String detail;
        synchronized (this) {
            detail = lastDetail;
        }
        return error(txId, reason, detail);
    }

    private static BackupCannotStoreException error(TxId txId, StoreRefusal reason, String detail) {
        return new BackupCannotStoreException(
                txId,
                "backup cannot store values: " + reason.label() + "; write " + txId + " is on the primary only and"
                        + " replicates once the backup's store takes values again (backup: " + detail + ")");
    }

    /** Values refused and not landed since: the link is degraded while this is not 0. */
    synchronized int refusing() {
        return refused.size();
    }

    /** What the backup refused since replication started. */
    synchronized ValueRefusals snapshot() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (StoreRefusal r : REASONS) counts.put(r.label(), byReason[r.ordinal()]);
        return new ValueRefusals(lastReason == null ? "" : lastReason.label(), lastDetail, counts);
    }
}
