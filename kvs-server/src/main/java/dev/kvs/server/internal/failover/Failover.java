package dev.kvs.server.internal.failover;

import dev.kvs.core.KvsException;
import dev.kvs.core.Write;
import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.Role;
import dev.kvs.replication.backup.ReplicationServer;
import dev.kvs.replication.backup.UnfinishedKeys;
import dev.kvs.server.internal.NodeContext;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Promotion of a backup, declaring the old primary lost, and resolving lost keys. Thread-safe. */
public final class Failover {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    private final NodeContext node;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kvs-failover");
        t.setDaemon(true);
        return t;
    });

    public Failover(NodeContext node) {
        this.node = node;
    }

    /** A failover action that cannot be done in the node's state. */
    public static final class FailoverException extends KvsException {
        public FailoverException(String message) {
            super(message);
        }
    }

    /**
     * Makes this backup the primary with epoch + 1. Keys whose values have not arrived stay fenced
     * ({@code -UNFINISHED}); with {@code declareLost} they become {@code LOST} at once.
     *
     * @return the new epoch
     * @throws FailoverException if the node is not a backup
     */
    public synchronized long promote(boolean declareLost) {
        if (node.role() != Role.BACKUP) throw new FailoverException("this node is already the primary");
        ReplicationServer server = node.backupServer();
        long epoch = node.epoch() + 1;
        if (node.epochFile() != null) node.epochFile().write(epoch); // durable before any write uses it
        UnfinishedKeys queue = server != null ? server.unfinishedKeys() : new UnfinishedKeys();
        node.gate().activate(queue);
        node.replication(new LocalReplication(epoch, 0));
        node.role(Role.PRIMARY);
        // cut the old primary off; when it dials again it is told it is stale
        if (server != null) server.fence(epoch);
        log.warn("promoted to primary in epoch {}; {} keys unfinished", epoch, queue.size());
        if (declareLost) {
            declareLost();
        } else if (!node.config().failover().lostAfter().isZero()) {
            timer.schedule(
                    this::declareLostQuietly,
                    node.config().failover().lostAfter().toMillis(),
                    TimeUnit.MILLISECONDS);
        }
        return epoch;
    }

    private void declareLostQuietly() {
        try {
            int n = declareLost();
            log.warn("lostAfter elapsed: {} unfinished keys declared lost", n);
        } catch (RuntimeException e) {
            log.warn("could not declare unfinished keys lost", e);
        }
    }

    /**
     * The old primary will not come back with the missing values: every unfinished key becomes LOST.
     *
     * @return how many keys became lost
     */
    public synchronized int declareLost() {
        if (!node.gate().active()) throw new FailoverException("declare-lost needs a promoted node");
        UnfinishedKeys queue = node.gate().unfinished();
        int n = 0;
        for (UnfinishedKeys.Pending p : queue.snapshot()) {
            UnfinishedKeys.Pending newest = queue.newest(p.key());
            if (newest == null || !newest.txId().equals(p.txId())) continue; // an older entry of the key
            node.gate()
                    .lost()
                    .add(new LostKeys.Entry(
                            p.key(), p.txId(), p.valueLength(), p.checksum(), System.currentTimeMillis()));
            n++;
        }
        for (LostKeys.Entry e : node.gate().lost().snapshot()) queue.resolve(e.key(), e.txId());
        return n;
    }

    /**
     * An operator accepts the loss of {@code key}: it leaves the manifest and behaves as absent (its
     * stale older value, if any, is deleted) and can be written again.
     *
     * @return true if the key was lost or unfinished
     */
    public synchronized boolean resolve(byte[] key) {
        boolean was = node.gate().lost().remove(key);
        UnfinishedKeys queue = node.gate().unfinished();
        if (queue != null) {
            UnfinishedKeys.Pending p = queue.newest(key);
            if (p != null) {
                queue.resolve(key, p.txId());
                was = true;
            }
        }
        if (was) {
            var order = node.replication().begin(node.mode());
            try {
                node.store().update(key, h -> {
                    if (h == null) return Write.keep();
                    order.order(dev.kvs.replication.wire.Frame.Op.DELETE, key, null);
                    return Write.remove();
                });
            } catch (RuntimeException e) {
                order.abort();
                throw e;
            }
            order.commit();
        }
        return was;
    }

    /** Resolves every lost key; returns how many. */
    public synchronized int resolveAll() {
        List<LostKeys.Entry> all = node.gate().lost().snapshot();
        for (LostKeys.Entry e : all) resolve(e.key());
        return all.size();
    }

    public void close() {
        timer.shutdownNow();
    }
}
