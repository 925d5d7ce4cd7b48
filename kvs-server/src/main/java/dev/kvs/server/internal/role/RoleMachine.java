package dev.kvs.server.internal.role;

import dev.kvs.core.TxId;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.Role;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.role.NodeRole.Backup;
import dev.kvs.server.internal.role.NodeRole.Deposed;
import dev.kvs.server.internal.role.NodeRole.Primary;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of a node's role and epoch. Its transitions are the only code that builds or closes
 * the replication to a backup or the replication listener, and that writes the epoch file:
 *
 * <pre>
 *            start ──► Primary ◄── promote ── Backup ◄── start
 *                        │  ▲                   ▲
 *   demote / handOver    │  └ attachBackup      │ serveAsBackup (after failback)
 *                        ▼                      │
 *                      Deposed ─────────────────┘
 * </pre>
 *
 * Readers take {@link #current()} (one volatile read) and see one consistent {@link NodeRole};
 * transitions are serialised. A switchover's steps between its transitions (waiting for the backup,
 * recording the successor, telling the backup) are {@code Switchover}'s; the node as its replication
 * listener sees it is {@code AsBackup}. Policy (when to promote, failback, the loss manifest) lives in the
 * failover package and hears of transitions through {@link RoleEvents}. Thread-safe.
 */
public final class RoleMachine implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RoleMachine.class);

    /** Longest a switchover may wait for the backup to catch up. */
    public static final Duration MAX_HANDOVER_TIMEOUT = Duration.ofMinutes(10);

    private final NodeConfig config;
    private final EpochFile epochFile;
    private final Links links;
    private final ReadGate gate;
    /** The gate of READONLY reads on the current backup's queue; see {@link #backupGate}. */
    private volatile ReadGate backupGate;

    private final BackupNode asBackup;
    private volatile NodeRole current;
    private volatile RoleEvents events;
    /** The fence of a restarted primary, lifted when its backup confirms it (guarded by this). */
    private String restartFence;

    private boolean closed; // guarded by this

    /** What a primary serves under: {@link ServingLease#ALWAYS} unless the node is coordinated. */
    private volatile ServingLease lease = ServingLease.ALWAYS;

    private volatile ReadersOut readersOut = ReadersOut.NONE;

    /**
     * @param epochFile where the epoch is kept, or null for a memory-only node
     */
    public RoleMachine(NodeConfig config, EpochFile epochFile, Links links) {
        this.config = config;
        this.epochFile = epochFile;
        this.links = links;
        this.gate = new ReadGate(config.failover());
        this.asBackup = new AsBackup(this, config);
    }

    /**
     * Makes a primary serve only while {@code lease} holds: set once, before {@link #start}, by a node
     * that joins its cluster on ZooKeeper.
     */
    public void serveUnder(ServingLease lease) {
        this.lease = lease;
    }

    /**
     * What keeps the client commands out while the backup applies an {@code EXEC}'s writes together: set
     * once, before {@link #start}, by the node, from its client port. Default {@link ReadersOut#NONE}.
     */
    public void readersOut(ReadersOut readersOut) {
        this.readersOut = readersOut;
    }

    /** See {@link #readersOut(ReadersOut)}. */
    ReadersOut readersOut() {
        return readersOut;
    }

    /** What a primary serves under ({@link ServingLease#ALWAYS} without coordination). */
    public ServingLease lease() {
        return lease;
    }

    /**
     * Why this node, the primary, may not acknowledge a write or serve a read now although it is the
     * primary: its lease does not hold ({@link ServingLease#REFUSAL}); null if it may. One volatile read
     * and a clock read.
     */
    public String leaseRefusal() {
        return lease.held() ? null : ServingLease.REFUSAL;
    }

    /** The failover policy, once {@link #start}ed. */
    RoleEvents events() {
        return events;
    }

    /** What this node is now. */
    public NodeRole current() {
        return current;
    }

    /** Fences unfinished and lost keys once this node has been promoted. */
    public ReadGate gate() {
        return gate;
    }

    /**
     * The gate of {@code READONLY} reads on the backup {@code b}: its unfinished keys are fenced as
     * after a promotion (the failover read policy applies), nothing is lost.
     */
    public ReadGate backupGate(Backup b) {
        UnfinishedKeys queue = b.server().unfinishedKeys();
        ReadGate g = backupGate;
        if (g == null || g.unfinished() != queue) {
            g = new ReadGate(config.failover());
            g.activate(queue);
            backupGate = g;
        }
        return g;
    }

    /**
     * The primary's client address ({@code host:port}) as the last primary that replicated to this
     * node advertised it in its handshake (kept after its link drops), or {@code -} if unknown. Meant
     * for a node that is not the primary, to name the one that is in {@code -NOTPRIMARY}.
     */
    public String primaryClientAddress() {
        return primaryClientAddress(current);
    }

    /** {@link #primaryClientAddress()} as {@code role} knows it. */
    public static String primaryClientAddress(NodeRole role) {
        ReplicationServer l = role == null ? null : role.listener();
        String a = l == null ? "" : l.primaryClientAddress();
        return a.isEmpty() ? "-" : a;
    }

    /** The peer as configured ({@code host:port}), or {@code -}. */
    public String peer() {
        return config.peer().orElse("-");
    }

    /**
     * Starts in the configured role: a primary (replicating to its peer, if any) or a backup
     * (listening). A primary that restarted with state refuses writes until its backup confirms that it
     * is still the primary.
     *
     * @param lastSeq the last seq of {@code epoch} already used
     * @param restarted true if the node had state from an earlier run
     * @param events the failover policy
     */
    public synchronized void start(long epoch, long lastSeq, boolean restarted, RoleEvents events) {
        if (current != null) throw new IllegalStateException("already started");
        this.events = events;
        writeEpoch(epoch);
        if (config.role() == Role.BACKUP) {
            current = new Deposed(epoch, null); // what the listener sees until it is up
            current = new Backup(epoch, links.listen(asBackup));
            return;
        }
        LocalReplication local = new LocalReplication(epoch, lastSeq);
        ReplicationLink link = null;
        String fence = null;
        if (links.hasPeer()) {
            link = local.handOff(last -> newLink(epoch, last));
            if (restarted) {
                // it may have been replaced while it was down: the backup tells it so, or confirms it
                fence = restartFence = "FENCED " + epoch + " restarted primary waiting for its backup at "
                        + config.peer().get() + " to confirm it is still the primary";
            }
        }
        current = new Primary(epoch, local, link, null, fence, false);
    }

    /**
     * Makes this backup the primary of the next epoch. Keys whose values have not arrived stay in the
     * read gate; the listener stays open (a deposed primary dials it to hand values back) and the old
     * primary is cut off.
     *
     * @throws RoleChangeException if this node is the primary
     */
    public synchronized Promotion promote() {
        if (current instanceof Primary) throw new RoleChangeException("this node is already the primary");
        if (current.epoch() == Long.MAX_VALUE)
            throw new RoleChangeException("epoch " + current.epoch() + " is the last");
        return promote(current.epoch() + 1);
    }

    /**
     * Makes this backup the primary of {@code epoch}, the epoch the cluster map names it primary in (a
     * coordinated node takes its epoch from the map, which moved it by one); otherwise as {@link
     * #promote()}.
     *
     * @throws RoleChangeException if this node is the primary, or {@code epoch} is not newer than its own
     */
    public synchronized Promotion promote(long epoch) {
        if (current instanceof Primary) throw new RoleChangeException("this node is already the primary");
        if (epoch <= current.epoch()) {
            throw new RoleChangeException("epoch " + epoch + " is not newer than this node's " + current.epoch());
        }
        writeEpoch(epoch); // durable before any write uses it
        ReplicationServer server = current.listener();
        UnfinishedKeys queue = server != null ? server.unfinishedKeys() : new UnfinishedKeys();
        TxId keysUpTo = server != null ? server.status().contiguous() : TxId.ZERO;
        gate.activate(queue);
        current = new Primary(epoch, new LocalReplication(epoch, 0), null, server, null, true);
        if (server != null) server.fence(epoch); // when the old primary dials again it is told it is stale
        log.warn("promoted to primary in epoch {}; {} keys unfinished", epoch, queue.size());
        return new Promotion(epoch, keysUpTo);
    }

    /**
     * The outcome of a promotion.
     *
     * @param epoch the new epoch
     * @param keysUpTo the TxId up to which every key packet of the old primary was received
     */
    public record Promotion(long epoch, TxId keysUpTo) {}

    /**
     * Another node holds a newer epoch, or is the primary: stops taking writes at once, closes the
     * replication to the backup and remembers the newer epoch, so that a restart does not come back in
     * an old one. Then tells the policy ({@link RoleEvents#demoted}).
     *
     * @return true if this node was the primary until now
     */
    public boolean demote(long newerEpoch) {
        Deposed now;
        synchronized (this) {
            if (!(current instanceof Primary p)) return false;
            long epoch = Math.max(newerEpoch, p.epoch());
            writeEpoch(epoch);
            current = now = new Deposed(epoch, p.listener());
            p.writes().close();
        }
        events.demoted(now);
        return true;
    }

    /** A deposed node has handed back what it could (failback): it serves as the backup. */
    public synchronized void serveAsBackup() {
        if (closed || !(current instanceof Deposed d)) return;
        ReplicationServer server = d.listener() != null ? d.listener() : links.listen(asBackup);
        current = new Backup(d.epoch(), server);
    }

    /**
     * A primary without a backup (after promotion or switchover) starts replicating to its peer, which
     * is to serve as the backup. Does nothing without a peer, if already replicating, or if not primary.
     */
    public synchronized void attachBackup() {
        if (closed || !links.hasPeer() || !(current instanceof Primary p) || p.link() != null) return;
        ReplicationLink link = p.local().handOff(last -> newLink(p.epoch(), last));
        current = p.withLink(link);
        log.info(
                "replicating to the new backup at {} after {}",
                config.peer().get(),
                p.local().lastTxId());
    }

    /**
     * Planned switchover, on the primary: stops taking writes ({@code -FENCED}), waits until the backup
     * has acknowledged every key and every value, tells it to take over in the next epoch, and demotes
     * this node once it has. If the backup does not catch up within {@code timeout}, writes resume and
     * nothing changes.
     *
     * @param timeout at most {@link #MAX_HANDOVER_TIMEOUT}
     * @throws RoleChangeException if this node is not a replicating primary, or the backup did not catch
     *     up in time
     * @throws IllegalArgumentException if {@code timeout} is not positive or above the maximum
     */
    public Handover handOver(Duration timeout) {
        return handOver(timeout, null);
    }

    /**
     * {@link #handOver(Duration)} where the primary is recorded elsewhere (the cluster map): once the
     * backup has caught up, {@code successor} names it primary of the next epoch before this node steps
     * down. If that fails, writes resume here at this node's epoch and nothing changes; once it succeeded,
     * this node steps down whether or not the backup hears the handover (the record names the backup, which
     * then takes over by it).
     *
     * @param successor records the backup as the next primary; null: nothing to record
     */
    public Handover handOver(Duration timeout, Successor successor) {
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_HANDOVER_TIMEOUT) > 0) {
            throw new IllegalArgumentException(
                    "switchover timeout is not in 1 ms.." + MAX_HANDOVER_TIMEOUT.toMinutes() + " min: " + timeout);
        }
        Primary p;
        synchronized (this) {
            if (!(current instanceof Primary q)) throw new RoleChangeException("switchover needs the primary");
            if (q.link() == null) {
                throw new RoleChangeException("this primary has no backup to hand over to (no peer)");
            }
            if (q.writeFence() != null) throw new RoleChangeException("writes are fenced: " + q.writeFence());
            p = q.withFence("FENCED " + q.epoch() + " switchover in progress: writes resume on the new primary");
            current = p;
        }
        return Switchover.run(this, p, timeout, successor);
    }

    /**
     * The outcome of a switchover.
     *
     * @param epoch the new primary's epoch
     * @param upTo the last TxId handed over
     */
    public record Handover(long epoch, TxId upTo) {}

    /** Lifts the fence of {@code fenced} if it is still the current role. */
    synchronized void lift(Primary fenced) {
        if (current == fenced) current = fenced.withFence(null);
    }

    /** A backup sees a primary of a newer epoch: adopts it (durably first). */
    synchronized void adoptEpoch(long epoch) {
        NodeRole r = current;
        if (epoch <= r.epoch()) return;
        if (r instanceof Backup b) {
            writeEpoch(epoch);
            current = new Backup(epoch, b.server());
        } else if (r instanceof Deposed d) {
            writeEpoch(epoch);
            current = new Deposed(epoch, d.listener());
        }
    }

    private ReplicationLink newLink(long epoch, long lastSeq) {
        return links.replicate(epoch, lastSeq, newer -> stale(newer, epoch), this::confirmed);
    }

    /** The backup refuses this primary: demote, off the I/O thread (demotion closes the caller). */
    private void stale(long newer, long epoch) {
        log.error(
                "the peer refuses this primary (its epoch {}, ours {}): demoting to backup;"
                        + " writes now answer -NOTPRIMARY",
                newer,
                epoch);
        Thread t = new Thread(() -> demote(newer), "kvs-demote");
        t.setDaemon(true);
        t.start();
    }

    /** The backup accepted this node as its primary: a restarted primary takes writes again. */
    private synchronized void confirmed() {
        if (current instanceof Primary p && p.writeFence() != null && p.writeFence() == restartFence) {
            log.info("the backup confirmed this node is the primary; accepting writes");
            current = p.withFence(null);
            restartFence = null;
        }
    }

    private void writeEpoch(long epoch) {
        if (epochFile != null) epochFile.write(epoch);
    }

    /** Closes the replication to the backup and the listener; idempotent. */
    @Override
    public void close() {
        NodeRole r;
        synchronized (this) {
            if (closed) return;
            closed = true;
            r = current;
        }
        if (r == null) return;
        RuntimeException failure = null;
        if (r instanceof Primary p) {
            try {
                p.writes().close();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (r.listener() != null) r.listener().close();
        if (failure != null) throw failure;
    }
}
