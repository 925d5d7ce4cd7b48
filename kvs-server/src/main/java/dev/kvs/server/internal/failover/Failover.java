package dev.kvs.server.internal.failover;

import dev.kvs.core.KvsException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import dev.kvs.replication.backup.BackupStatus;
import dev.kvs.replication.backup.Handback;
import dev.kvs.replication.backup.ReplicationServer;
import dev.kvs.replication.backup.UnfinishedKeys;
import dev.kvs.replication.primary.HandbackClient;
import dev.kvs.replication.primary.HandbackReport;
import dev.kvs.replication.primary.Replicator;
import dev.kvs.replication.wire.Frame;
import dev.kvs.server.internal.NodeContext;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Promotion of a backup (by an operator, by a planned switchover, or automatically if configured),
 * declaring the old primary lost, resolving lost keys, and failback: on the new primary, taking back
 * values of fenced keys from the deposed one; on the deposed one, handing them back and rolling back
 * its writes the backup never acknowledged before serving as the backup. Thread-safe.
 */
public final class Failover {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    private final NodeContext node;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kvs-failover");
        t.setDaemon(true);
        return t;
    });

    private volatile TxId keysUpTo = TxId.ZERO;
    private volatile EventLoopGroup group;
    private volatile HandbackReport handbackReport;
    private volatile String handbackState = "none";
    private volatile boolean closed;
    private final Handback handback = new TakeBack();
    private long linkDownSinceNanos = -1; // guarded by this
    private boolean linkEverUp; // guarded by this

    public Failover(NodeContext node) {
        this.node = node;
        Duration auto = node.config().failover().autoPromoteAfter();
        if (!auto.isZero()) {
            long period = Math.max(10, Math.min(1000, auto.toMillis() / 10));
            timer.scheduleAtFixedRate(this::autoPromoteCheck, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** The event loops the handback connection runs on (the node's replication group). */
    public void group(EventLoopGroup group) {
        this.group = group;
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
        keysUpTo = server != null ? server.status().contiguous() : TxId.ZERO;
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

    private synchronized void autoPromoteCheck() {
        try {
            ReplicationServer server = node.backupServer();
            if (node.role() != Role.BACKUP || server == null) {
                linkDownSinceNanos = -1;
                return;
            }
            BackupStatus status = server.status();
            if (status.keyChannelConnected()) {
                linkEverUp = true;
                linkDownSinceNanos = -1;
                return;
            }
            // a key channel that came and went between two checks still counts: it resynced or sent keys
            if (status.resyncs() > 0 || status.keyPackets() > 0) linkEverUp = true;
            if (!linkEverUp) return; // never promote before having had a primary
            long now = System.nanoTime();
            if (linkDownSinceNanos < 0) {
                linkDownSinceNanos = now;
                return;
            }
            Duration after = node.config().failover().autoPromoteAfter();
            if (now - linkDownSinceNanos >= after.toNanos()) {
                log.error(
                        "the primary's key channel has been down for {} ms (failover.autoPromoteAfter): promoting"
                                + " this backup automatically; if the old primary is alive this is split brain until"
                                + " the link heals",
                        after.toMillis());
                promote(false);
                linkDownSinceNanos = -1;
            }
        } catch (RuntimeException e) {
            log.warn("automatic promotion check failed", e);
        }
    }

    /** The offer to a deposed primary that dials in to hand back values, or null if not promoted. */
    public Handback handback() {
        return node.role() == Role.PRIMARY && node.gate().active() ? handback : null;
    }

    /**
     * Planned switchover, on the primary: stops accepting writes ({@code -FENCED}), waits until the
     * backup has acknowledged every key and every value, hands over (the backup becomes the primary in
     * the next epoch with zero unfinished keys), and demotes this node, which then serves as the
     * backup. If the backup does not catch up within {@code timeout}, writes resume and nothing changes.
     *
     * @return the new primary's epoch and the last TxId handed over
     * @throws FailoverException if this node is not a replicating primary, or did not drain in time
     */
    public synchronized Map<String, Object> switchover(Duration timeout) {
        if (node.role() != Role.PRIMARY) throw new FailoverException("switchover needs the primary");
        if (!(node.replication() instanceof Replicator replicator)) {
            throw new FailoverException("this primary has no backup to hand over to (no peer)");
        }
        if (node.writeFence() != null) throw new FailoverException("writes are fenced: " + node.writeFence());
        long epoch = node.epoch();
        node.writeFence("FENCED " + epoch + " switchover in progress: writes resume on the new primary");
        long deadline = System.nanoTime() + timeout.toNanos();
        ReplicatorStatus st;
        try {
            while (true) {
                st = replicator.status();
                if (st.state().equals("streaming")
                        && st.unackedKeys() == 0
                        && st.pendingValues() == 0
                        && st.ackedTxId().equals(st.lastTxId())) break;
                if (System.nanoTime() > deadline) {
                    throw new FailoverException("the backup did not catch up within " + timeout.toMillis() + " ms ("
                            + st.state() + ", " + st.unackedKeys() + " keys and " + st.pendingValues()
                            + " values unacknowledged): writes resume here");
                }
                Thread.sleep(5); // polling a status snapshot, bounded by the deadline
            }
            if (!replicator.handOver(epoch + 1, timeout)) {
                throw new FailoverException(
                        "the key channel to the backup closed before the handover: writes resume here");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            node.writeFence(null);
            throw new FailoverException("interrupted: writes resume here");
        } catch (FailoverException e) {
            node.writeFence(null);
            throw e;
        }
        log.warn(
                "switchover: handed over to the backup at {} in epoch {} after {}",
                st.peer(),
                epoch + 1,
                st.lastTxId());
        // the backup's refusal of a redial may have demoted this node already (and started the failback)
        if (node.demote(epoch + 1)) afterDemotion();
        return Map.of("epoch", epoch + 1, "handedOverUpTo", st.lastTxId().toString(), "role", "backup");
    }

    /**
     * The primary asked this backup to take over (switchover): promotes it and starts replicating to
     * the old primary, which becomes the backup.
     */
    public void handover(long epoch) {
        Thread t = new Thread(
                () -> {
                    try {
                        synchronized (this) {
                            if (node.role() != Role.BACKUP) return;
                            long now = promote(false);
                            if (now != epoch) log.warn("handover asked for epoch {}; promoted to {}", epoch, now);
                        }
                        node.replicateToPeer();
                    } catch (RuntimeException e) {
                        log.error("handover failed: promote this node or the old primary by hand", e);
                    }
                },
                "kvs-handover");
        t.setDaemon(true);
        t.start();
    }

    /**
     * This node was the primary and learned of a newer one: hands back values of keys the new primary
     * fenced, rolls back writes it never received, and serves as its backup. Retries until done or the
     * node closes. Runs on its own thread.
     */
    public void afterDemotion() {
        if (node.config().peer().isEmpty() || group == null) {
            node.serveAsBackup();
            return;
        }
        InetSocketAddress address = node.config().peerAddress().orElseThrow();
        handbackState = "running";
        Thread t = new Thread(() -> handBackUntilDone(address), "kvs-failback");
        t.setDaemon(true);
        t.start();
    }

    private void handBackUntilDone(InetSocketAddress address) {
        long delay = 200;
        while (!closed && node.role() == Role.BACKUP) {
            try {
                HandbackReport report = HandbackClient.handBack(
                        node.store(),
                        node.config().replication(),
                        node.config().cluster(),
                        node.config().name(),
                        node.epoch(),
                        address,
                        group,
                        Duration.ofSeconds(30));
                handbackReport = report;
                handbackState = "done";
                node.serveAsBackup();
                return;
            } catch (HandbackClient.HandbackException e) {
                handbackState = "retrying: " + e.getMessage();
                log.warn("failback to {} not done ({}); retrying in {} ms", address, e.getMessage(), delay);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                handbackState = "retrying: " + e;
                log.warn("failback to {} failed; retrying in {} ms", address, delay, e);
            }
            try {
                Thread.sleep(delay); // retry backoff
            } catch (InterruptedException e) {
                return;
            }
            delay = Math.min(5000, delay * 2);
        }
    }

    /** The deposed node's last handback, or null. */
    public HandbackReport handbackReport() {
        return handbackReport;
    }

    /** {@code none}, {@code running}, {@code retrying: why}, or {@code done}. */
    public String handbackState() {
        return handbackState;
    }

    /** The new primary's side of a handback: takes values matching fenced keys exactly. */
    private final class TakeBack implements Handback {
        @Override
        public TxId keysUpTo() {
            return keysUpTo;
        }

        @Override
        public List<Frame.KeyPacket> wanted() {
            List<Frame.KeyPacket> wanted = new ArrayList<>();
            UnfinishedKeys queue = node.gate().unfinished();
            if (queue != null) {
                for (UnfinishedKeys.Pending p : queue.snapshot()) {
                    UnfinishedKeys.Pending newest = queue.newest(p.key());
                    if (newest == null || !newest.txId().equals(p.txId())) continue;
                    wanted.add(new Frame.KeyPacket(p.txId(), Frame.Op.PUT, p.key(), p.valueLength(), p.checksum()));
                }
            }
            for (LostKeys.Entry e : node.gate().lost().snapshot()) {
                wanted.add(new Frame.KeyPacket(e.txId(), Frame.Op.PUT, e.key(), e.valueLength(), e.checksum()));
            }
            return wanted;
        }

        @Override
        public boolean accept(byte[] key, TxId txId, boolean delete, int checksum, byte[] value) {
            synchronized (Failover.this) {
                UnfinishedKeys queue = node.gate().unfinished();
                UnfinishedKeys.Pending p = queue == null ? null : queue.newest(key);
                LostKeys.Entry lost = node.gate().lost().get(key);
                boolean matches = p != null
                        ? p.txId().equals(txId) && p.valueLength() == value.length && p.checksum() == checksum
                        : lost != null
                                && lost.txId().equals(txId)
                                && lost.valueLength() == value.length
                                && lost.checksum() == checksum;
                if (!matches) return false;
                StoredValue record = delete ? StoredValue.tombstone(txId) : StoredValue.complete(txId, value);
                node.store().update(key, h -> h == null || h.txId().isBefore(txId) ? Write.put(record) : Write.keep());
                if (p != null) queue.resolve(key, txId);
                else node.gate().lost().remove(key);
                return true;
            }
        }

        @Override
        public void finished(String from, int offered, int accepted) {
            log.warn(
                    "failback from {}: {} values offered, {} accepted; {} keys still lost, {} unfinished",
                    from,
                    offered,
                    accepted,
                    node.gate().lost().size(),
                    node.gate().unfinished() == null
                            ? 0
                            : node.gate().unfinished().size());
            Thread t = new Thread(node::replicateToPeer, "kvs-attach-backup");
            t.setDaemon(true);
            t.start();
        }
    }

    public void close() {
        closed = true;
        timer.shutdownNow();
    }
}
