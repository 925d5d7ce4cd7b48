package dev.kvs.server.internal.failover;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.Handback;
import dev.kvs.replication.HandbackReport;
import dev.kvs.replication.ReplicationEnds;
import dev.kvs.replication.Role;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.role.LostKeys;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.role.RoleChangeException;
import dev.kvs.server.internal.role.RoleEvents;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.role.Successor;
import dev.kvs.server.internal.write.LastWrite;
import dev.kvs.server.internal.write.Writes;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failover policy over the {@link RoleMachine}: when to promote (by an operator, by a planned
 * switchover, or automatically if configured: {@link AutoPromotion}), declaring the old primary's missing
 * values lost, resolving lost keys, and failback: on the new primary, taking back values of fenced keys
 * from the deposed one ({@link TakeBack}); on the deposed one, handing them back and rolling back its
 * writes the backup never acknowledged before serving as the backup. The machine makes the role changes;
 * this class decides them. Thread-safe.
 */
public final class Failover implements RoleEvents, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Failover.class);

    private final NodeConfig config;
    private final KvStore store;
    private final RoleMachine roles;
    private final ReadGate gate;
    private final Writes writes;
    private final EventLoopGroup group;
    private final ReplicationEnds.Security security;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kvs-failover");
        t.setDaemon(true);
        return t;
    });

    private volatile TxId keysUpTo = TxId.ZERO;
    private volatile HandbackReport handbackReport;
    private volatile String handbackState = "none";
    private volatile boolean closed;
    private final AtomicBoolean switchingOver = new AtomicBoolean();
    private final Handback handback;
    /** How a switchover's promotion goes through the cluster map on a coordinated node; null: epoch + 1. */
    private volatile MapPromoter mapPromotion;
    /** On a coordinated primary, names the backup in the cluster map before it steps down; else null. */
    private volatile Successor mapSuccessor;

    /**
     * @param group the event loops of the handback connection (the node's replication group), or null
     *     for a node without replication
     */
    public Failover(NodeConfig config, KvStore store, RoleMachine roles, Writes writes, EventLoopGroup group) {
        this.config = config;
        this.store = store;
        this.roles = roles;
        this.gate = roles.gate();
        this.writes = writes;
        this.group = group;
        this.security = group == null ? ReplicationEnds.NO_SECURITY : config.linkSecurity();
        this.handback = new TakeBack(this, store, gate, roles, () -> keysUpTo);
        Duration auto = config.failover().autoPromoteAfter();
        if (!auto.isZero()) new AutoPromotion(this, roles, auto).start(timer);
    }

    /**
     * Makes this backup the primary with epoch + 1. Keys whose values have not arrived stay fenced
     * ({@code -UNFINISHED}); with {@code declareLost} they become {@code LOST} at once.
     *
     * @return the new epoch
     * @throws RoleChangeException if the node is the primary
     */
    public synchronized long promote(boolean declareLost) {
        return promoted(roles.promote(), declareLost);
    }

    /**
     * Makes this backup the primary of {@code epoch}, the epoch the cluster map names it primary in; the
     * unfinished keys as {@link #promote(boolean)}. Used by a node coordinated on ZooKeeper, whose epochs
     * come from the map.
     *
     * @return {@code epoch}
     * @throws RoleChangeException if the node is the primary or {@code epoch} is not newer than its own
     */
    public synchronized long promoteAt(long epoch, boolean declareLost) {
        return promoted(roles.promote(epoch), declareLost);
    }

    private long promoted(RoleMachine.Promotion p, boolean declareLost) {
        keysUpTo = p.keysUpTo();
        if (declareLost) {
            declareLost();
        } else if (!config.failover().lostAfter().isZero()) {
            timer.schedule(
                    this::declareLostQuietly, config.failover().lostAfter().toMillis(), TimeUnit.MILLISECONDS);
        }
        return p.epoch();
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
        if (!gate.active()) throw new RoleChangeException("declare-lost needs a promoted node");
        UnfinishedKeys queue = gate.unfinished();
        int n = 0;
        for (UnfinishedKeys.Pending p : queue.snapshot()) {
            UnfinishedKeys.Pending newest = queue.newest(p.key());
            if (newest == null || !newest.txId().equals(p.txId())) continue; // an older entry of the key
            gate.lost()
                    .add(new LostKeys.Entry(
                            p.key(),
                            p.txId(),
                            p.valueLength(),
                            p.checksum(),
                            System.currentTimeMillis(),
                            p.expireAtMillis()));
            n++;
        }
        for (LostKeys.Entry e : gate.lost().snapshot()) queue.resolve(e.key(), e.txId());
        return n;
    }

    /**
     * An operator accepts the loss of {@code key}: it leaves the manifest and behaves as absent (its
     * stale older value, if any, is deleted) and can be written again.
     *
     * @return true if the key was lost or unfinished
     */
    public synchronized boolean resolve(byte[] key) {
        boolean was = gate.lost().remove(key);
        UnfinishedKeys queue = gate.unfinished();
        if (queue != null) {
            UnfinishedKeys.Pending p = queue.newest(key);
            if (p != null) {
                queue.resolve(key, p.txId());
                was = true;
            }
        }
        if (was) {
            // the stale older value, if any, goes: an ordered (replicated) delete
            writes.update(
                            config.mode(),
                            LastWrite.NONE,
                            key,
                            (h, order) -> h == null ? Write.keep() : order.remove(key))
                    .replicated()
                    .whenComplete((v, e) -> {
                        if (e != null)
                            log.warn("resolve: the delete of a resolved key is not replicated yet: {}", e.toString());
                    });
        }
        return was;
    }

    /**
     * On a primary as it starts: puts the keys its store fenced as it opened, because the crash before
     * tore them in the middle of a write ({@link KvStore#fencedAtOpen}), in the loss manifest, so they
     * answer {@code -LOST} until an operator resolves them. Returns how many.
     */
    public int fenceTornAtOpen(Map<ByteKey, RecordHeader> torn) {
        long now = System.currentTimeMillis();
        List<LostKeys.Entry> entries = new ArrayList<>();
        torn.forEach((key, h) -> entries.add(
                new LostKeys.Entry(key.bytes(), h.txId(), h.valueLength(), h.checksum(), now, h.expireAtMillis())));
        gate.fenceLost(entries);
        if (!entries.isEmpty()) {
            log.warn(
                    "{} keys that the crash before this start tore in the middle of a write are fenced as lost:"
                            + " GET /lost lists them, POST /resolve accepts the loss",
                    entries.size());
        }
        return entries.size();
    }

    /** Resolves every lost key; returns how many. */
    public synchronized int resolveAll() {
        List<LostKeys.Entry> all = gate.lost().snapshot();
        for (LostKeys.Entry e : all) resolve(e.key());
        return all.size();
    }

    /** The offer to a deposed primary that dials in to hand back values, or null if not promoted. */
    @Override
    public Handback handback() {
        return roles.current() instanceof NodeRole.Primary p && p.promoted() ? handback : null;
    }

    /**
     * Planned switchover, on the primary (see {@link RoleMachine#handOver}); then this node, deposed,
     * hands back nothing (the backup had everything) and serves as the backup. Blocks until the backup
     * has caught up, or {@code timeout}; one at a time.
     *
     * @throws RoleChangeException if another switchover is under way, this node is not a replicating
     *     primary, or it did not drain in time
     */
    public RoleMachine.Handover switchover(Duration timeout) {
        if (!switchingOver.compareAndSet(false, true)) {
            throw new RoleChangeException("a switchover is already in progress: wait for its answer");
        }
        try {
            return roles.handOver(timeout, mapSuccessor);
        } finally {
            switchingOver.set(false);
        }
    }

    /**
     * An operator tells this primary that a newer primary serves {@code epoch}: it stops taking writes,
     * hands back what its successor fenced and serves as its backup ({@link #demoted}).
     *
     * @return true if this node was the primary until now
     * @throws RoleChangeException if {@code epoch} is not newer than this node's, or no peer is
     *     configured: a lone primary has no successor to hand back to or to serve, so demoting it would
     *     only leave no node taking writes
     */
    public boolean demote(long epoch) {
        long current = roles.current().epoch();
        if (epoch <= current) {
            throw new RoleChangeException("epoch " + epoch + " is not newer than this node's " + current);
        }
        if (config.peer().isEmpty()) {
            throw new RoleChangeException("this node has no peer: demoted, it would have no primary to serve and no"
                    + " node would take writes; a lone primary is not demoted");
        }
        return roles.demote(epoch);
    }

    /**
     * A promotion through the cluster map: names this node its shard's primary at the next epoch
     * (compare-and-set), then promotes it with that epoch.
     */
    @FunctionalInterface
    public interface MapPromoter {
        /**
         * @param force even while the old primary's member znode exists (its lease may hold)
         * @return the epoch this node is now the primary of
         * @throws RoleChangeException if the map refuses it (see the implementation)
         */
        long promote(boolean force);
    }

    /**
     * Makes every promotion of this node by an operator or a switchover go through the cluster map, and
     * every switchover from it name the backup in the map ({@code successor}) before this node steps down:
     * set once by a node coordinated on ZooKeeper, whose lease holds only while the map names it.
     */
    public void promoteThroughMap(MapPromoter promotion, Successor successor) {
        this.mapPromotion = promotion;
        this.mapSuccessor = successor;
    }

    /**
     * An operator's promotion ({@code POST /promote}, {@code KVS.PROMOTE}): on a node coordinated on
     * ZooKeeper through the cluster map ({@link MapPromoter}, refused while the old primary's member znode
     * exists unless {@code force}), otherwise at epoch + 1 as {@link #promote(boolean)}.
     *
     * @param declareLost declare the unfinished keys lost at once
     * @param force on a coordinated node: promote even while the old primary's znode exists
     * @return the new epoch
     * @throws RoleChangeException if the node is the primary, the map refuses, a coordinated node has not
     *     joined its cluster yet, or {@code force} is given to a node without coordination
     */
    public long promoteByOperator(boolean declareLost, boolean force) {
        MapPromoter viaMap = mapPromotion;
        if (viaMap == null) {
            if (config.coordination().isPresent()) {
                throw new RoleChangeException("this node has not joined its cluster on ZooKeeper yet: try again");
            }
            if (force) throw new RoleChangeException("force is for a node coordinated on ZooKeeper");
            return promote(declareLost);
        }
        // not under this lock: the map's promotion takes its own, then this one
        long epoch = viaMap.promote(force);
        if (declareLost) declareLost();
        return epoch;
    }

    /**
     * The primary asked this backup to take over (switchover): promotes it (through the cluster map on a
     * coordinated node: the old primary, drained and fenced, asked for it) and starts replicating to the
     * old primary, which becomes the backup.
     */
    @Override
    public void handoverRequested(long epoch) {
        Thread t = new Thread(
                () -> {
                    try {
                        MapPromoter viaMap = mapPromotion;
                        long now;
                        NodeRole before = roles.current();
                        if (viaMap != null && before instanceof NodeRole.Primary && before.epoch() >= epoch) {
                            now = before.epoch(); // the map's watch promoted it first: the old primary wrote it
                        } else if (viaMap != null) {
                            // not under this lock: the map's promotion takes its own, then this one
                            // (as /promote does), and is refused if this node is no longer a backup;
                            // forced: the old primary, drained and fenced, asked, and its znode may stay.
                            // The old primary named this node in the map already: no second epoch move
                            now = viaMap.promote(true);
                        } else {
                            synchronized (this) {
                                if (roles.current().role() != Role.BACKUP) return;
                                now = promote(false);
                            }
                        }
                        if (now != epoch) log.warn("handover asked for epoch {}; promoted to {}", epoch, now);
                        roles.attachBackup();
                    } catch (RuntimeException e) {
                        log.error(
                                mapPromotion != null
                                        ? "handover not completed here; the cluster map names the primary"
                                        : "handover failed: promote this node or the old primary by hand",
                                e);
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
    @Override
    public void demoted(NodeRole.Deposed now) {
        if (config.peer().isEmpty() || group == null) {
            roles.serveAsBackup();
            return;
        }
        InetSocketAddress address = config.peerAddress().orElseThrow();
        handbackState = "running";
        Thread t = new Thread(() -> handBackUntilDone(address), "kvs-failback");
        t.setDaemon(true);
        t.start();
    }

    private void handBackUntilDone(InetSocketAddress address) {
        long delay = 200;
        while (!closed && roles.current() instanceof NodeRole.Deposed deposed) {
            try {
                HandbackReport report = ReplicationEnds.handBack(
                        store,
                        config.replication(),
                        config.cluster(),
                        config.name(),
                        deposed.epoch(),
                        address,
                        group,
                        Duration.ofSeconds(30),
                        security);
                handbackReport = report;
                handbackState = "done";
                roles.serveAsBackup();
                return;
            } catch (ReplicationEnds.HandbackFailedException e) {
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

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
    }
}
