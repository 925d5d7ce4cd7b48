package dev.kvs.server.internal.expiry;

import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.RecordState;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.ExpiryConfig;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.write.Writes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active expiry: every {@link ExpiryConfig#interval()} one round removes at most {@link
 * ExpiryConfig#maxKeysPerCycle()} keys whose expiry has passed on the node's clock, found through the
 * store's expiry index ({@link KvStore#expiredKeys}). Runs on its own thread, never on an event loop.
 *
 * <ul>
 *   <li>On a primary, each removal is a replicated write with its own TxId, ordered through {@link
 *       dev.kvs.server.internal.write.Writes#expire} like a {@code DEL}: the backup applies it as a
 *       delete. A key fenced after a promotion is left to its value (or its loss).
 *   <li>On a backup, an expired key is removed locally ({@code ReplicationServer.expire}: outright
 *       once no older value of it can be applied any more, else as a tombstone of the same TxId,
 *       collected later); the primary's delete, when it arrives, changes nothing visible. Reads never
 *       needed it: they treat the key as absent.
 *   <li>A deposed primary does nothing (failback decides what it keeps). After a promotion the new
 *       primary's next round removes expired keys as replicated writes.
 * </ul>
 *
 * <p>The same thread removes the tombstones a primary holds ({@link #sweepTombstones}): a primary
 * orders every write itself and takes no values from a peer, so none of them orders anything there.
 * It holds some only from before: its time as a backup, or a store it was restarted with.
 */
public final class ActiveExpiry implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ActiveExpiry.class);

    private final KvStore store;
    private final RoleMachine roles;
    private final Writes writes;
    private final ReplicationMode mode;
    private final AtomicLong expired;
    private final ExpiryConfig config;
    private final ScheduledExecutorService executor;
    /** A primary's removals are {@code expired} events; a backup's are not (its primary's were). */
    private final KeyEvents events;

    /**
     * Rounds over {@code store} as {@code roles} says the node is now; a primary removes keys through
     * {@code writes} (whose clock says what has expired) in the node's default {@code mode}.
     *
     * @param expired counts the keys removed; shared with what reports {@code expired_keys}
     * @param events where a primary's removals are published as {@code expired}
     */
    public ActiveExpiry(
            KvStore store,
            RoleMachine roles,
            Writes writes,
            ReplicationMode mode,
            AtomicLong expired,
            ExpiryConfig config,
            KeyEvents events) {
        this.store = store;
        this.roles = roles;
        this.writes = writes;
        this.mode = mode;
        this.expired = expired;
        this.config = config;
        this.events = events;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvs-expiry");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the rounds. */
    public void start() {
        long ms = config.interval().toMillis();
        executor.scheduleWithFixedDelay(this::safeRound, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Keys this node has removed by active expiry (Redis's {@code expired_keys}). */
    public long expiredKeys() {
        return expired.get();
    }

    /** The share of each interval rounds may take while they keep finding full batches (Redis: 25%). */
    static final int BUSY_PERCENT = 25;

    /**
     * The share they may take while the store's entries are over three quarters of {@code maxEntries}:
     * a store filling with keys whose time has passed would soon refuse writes for want of room.
     */
    static final int PRESSED_PERCENT = 90;

    private void safeRound() {
        try {
            cycle();
            sweepTombstones();
        } catch (RuntimeException e) {
            log.warn(
                    "active expiry round failed; next round in {} ms",
                    config.interval().toMillis(),
                    e);
        }
    }

    /**
     * Rounds, one after another while each finds a full batch of {@code maxKeysPerCycle} keys due and
     * they have taken less than {@link #BUSY_PERCENT}% of the interval: many keys expiring at once (a
     * burst of short TTLs) go at up to that share of a thread, not at one batch per interval, as
     * Redis's expiry cycle repeats while it keeps finding expired keys; {@link #PRESSED_PERCENT}% while
     * the store is over three quarters full.
     *
     * @return the keys removed
     */
    public int cycle() {
        boolean pressed = store.stats().entries() > store.config().maxEntries() / 4 * 3;
        long budget = config.interval().toNanos() * (pressed ? PRESSED_PERCENT : BUSY_PERCENT) / 100;
        long start = System.nanoTime();
        int removed = 0;
        while (true) {
            int[] due = new int[1];
            int n = round(due);
            removed += n;
            if (n == 0 || due[0] < config.maxKeysPerCycle() || System.nanoTime() - start >= budget) return removed;
        }
    }

    /**
     * One bounded round: removes up to {@code maxKeysPerCycle} expired keys.
     *
     * @return the keys removed
     */
    public int round() {
        return round(new int[1]);
    }

    /** {@link #round()}, telling in {@code due[0]} how many keys it found due. */
    private int round(int[] dueCount) {
        long now = writes.clock().millis();
        List<byte[]> due = store.expiredKeys(now, config.maxKeysPerCycle());
        dueCount[0] = due.size();
        if (due.isEmpty()) return 0;
        NodeRole role = roles.current();
        if (role instanceof NodeRole.Primary p) {
            int removed = p.writeFence() != null ? 0 : expireOnPrimary(due, now);
            expired.addAndGet(removed);
            return removed;
        }
        int removed = 0;
        for (byte[] key : due) {
            if (role instanceof NodeRole.Backup b) {
                if (b.server().expire(key, now)) removed++;
            } else {
                break;
            }
        }
        expired.addAndGet(removed);
        return removed;
    }

    /** Keys a primary deletes in one store step and one replication commit. */
    static final int BATCH = 64;

    /** Deletes the due keys that are not fenced, {@link #BATCH} at a time, as replicated writes. */
    private int expireOnPrimary(List<byte[]> due, long now) {
        int removed = 0;
        List<byte[]> batch = new ArrayList<>(BATCH);
        for (int i = 0; i <= due.size(); i++) {
            if (i < due.size()) {
                byte[] key = due.get(i);
                if (roles.gate().refusal(key, true) != null) continue; // fenced: its value decides
                batch.add(key);
                if (batch.size() < BATCH) continue;
            }
            if (batch.isEmpty()) break;
            try {
                List<byte[]> gone = writes.expireAll(mode, batch, now).result();
                for (byte[] key : gone) events.emit(EventClasses.EXPIRED, "expired", key);
                removed += gone.size();
            } catch (KvsException e) {
                break; // e.g. BUSY: replication is at its bounds; the next interval tries again
            }
            batch = new ArrayList<>(BATCH);
        }
        return removed;
    }

    /** A primary sweeps its store for tombstones at most this often. */
    static final long TOMBSTONE_SWEEP_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private long lastTombstoneSweep = System.nanoTime() - TOMBSTONE_SWEEP_INTERVAL_NANOS;

    /**
     * On a primary holding tombstones, removes them all, at most once per {@link
     * #TOMBSTONE_SWEEP_INTERVAL_NANOS}; a backup's are collected by its replication listener.
     *
     * @return the tombstones removed
     */
    public long sweepTombstones() {
        if (!(roles.current() instanceof NodeRole.Primary)) return 0;
        if (store.tombstones() == 0) return 0;
        long now = System.nanoTime();
        if (now - lastTombstoneSweep < TOMBSTONE_SWEEP_INTERVAL_NANOS) return 0;
        lastTombstoneSweep = now;
        long removed = store.removeIf((key, h) -> h.state() == RecordState.TOMBSTONE);
        log.info("removed {} tombstones this primary held", removed);
        return removed;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
