package dev.kvs.server.internal.expiry;

import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.Write;
import dev.kvs.server.ExpiryConfig;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.role.NodeRole;
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
 *   <li>On a backup, an expired key is replaced locally by a tombstone of the same TxId (which keeps a
 *       late, older value from bringing it back); the primary's delete, when it arrives, replaces the
 *       tombstone and changes nothing visible. Reads never needed it: they treat the key as absent.
 *   <li>A deposed primary does nothing (failback decides what it keeps). After a promotion the new
 *       primary's next round removes expired keys as replicated writes.
 * </ul>
 */
public final class ActiveExpiry implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ActiveExpiry.class);

    private final NodeContext node;
    private final ExpiryConfig config;
    private final ScheduledExecutorService executor;
    private final AtomicLong expired;

    public ActiveExpiry(NodeContext node, ExpiryConfig config) {
        this.node = node;
        this.config = config;
        this.expired = node.expiredKeys();
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

    private void safeRound() {
        try {
            round();
        } catch (RuntimeException e) {
            log.warn(
                    "active expiry round failed; next round in {} ms",
                    config.interval().toMillis(),
                    e);
        }
    }

    /**
     * One bounded round: removes up to {@code maxKeysPerCycle} expired keys.
     *
     * @return the keys removed
     */
    public int round() {
        long now = node.clock().millis();
        KvStore store = node.store();
        List<byte[]> due = store.expiredKeys(now, config.maxKeysPerCycle());
        if (due.isEmpty()) return 0;
        NodeRole role = node.roles().current();
        int removed = 0;
        for (byte[] key : due) {
            if (role instanceof NodeRole.Primary p) {
                if (p.writeFence() != null) break;
                if (node.gate().refusal(key, true) != null) continue; // fenced: its value decides
                try {
                    if (node.writes().expire(node.mode(), key, now).result()) removed++;
                } catch (KvsException e) {
                    break; // e.g. BUSY: replication is at its bounds; the next round tries again
                }
            } else if (role instanceof NodeRole.Backup) {
                Write w = store.update(
                        key,
                        h -> h != null && h.state() != RecordState.TOMBSTONE && h.expiredAt(now)
                                ? Write.put(StoredValue.tombstone(h.txId()))
                                : Write.keep());
                if (w instanceof Write.Put) removed++;
            } else {
                break;
            }
        }
        expired.addAndGet(removed);
        return removed;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
