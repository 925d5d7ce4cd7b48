package dev.kvs.server.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.TxId;
import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.Replication;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.replication.backup.ReplicationServer;
import dev.kvs.server.NodeConfig;
import dev.kvs.server.internal.failover.Failover;
import dev.kvs.server.internal.failover.ReadGate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The state one node's servers share: configuration, store, role, epoch, the TxId sequence and
 * metrics. Thread-safe.
 */
public final class NodeContext {
    private final NodeConfig config;
    private final KvStore store;
    private final long startedAtMillis = System.currentTimeMillis();
    private final AtomicReference<Role> role;
    private volatile Replication replication;
    private final AtomicLong clientIds = new AtomicLong();
    private volatile ReplicationMode mode;
    private final NodeMetrics metrics;

    public NodeContext(NodeConfig config, KvStore store, long epoch, long lastSeq) {
        this.config = config;
        this.store = store;
        this.role = new AtomicReference<>(config.role());
        this.mode = config.mode();
        this.replication = new LocalReplication(epoch, lastSeq);
        this.metrics = new NodeMetrics(this);
        this.gate = new ReadGate(config.failover());
        this.failover = new Failover(this);
    }

    public NodeConfig config() {
        return config;
    }

    public KvStore store() {
        return store;
    }

    public NodeMetrics metrics() {
        return metrics;
    }

    public Role role() {
        return role.get();
    }

    public void role(Role r) {
        role.set(r);
    }

    public long epoch() {
        return replication.epoch();
    }

    public ReplicationMode mode() {
        return mode;
    }

    public void mode(ReplicationMode m) {
        mode = m;
    }

    /** How this node orders (and, on a primary with a peer, replicates) its writes. */
    public Replication replication() {
        return replication;
    }

    public void replication(Replication r) {
        replication = r;
    }

    private volatile ReplicationServer backupServer;
    private volatile EpochFile epochFile;
    private final ReadGate gate;
    private final Failover failover;

    private volatile String writeFence;

    /**
     * Why this node refuses writes although it is the primary (a restarted primary that has not yet
     * confirmed with its backup that it is still the primary), or null.
     */
    public String writeFence() {
        return writeFence;
    }

    public void writeFence(String reason) {
        writeFence = reason;
    }

    /**
     * Another node holds a newer epoch, or is the primary: stop accepting writes at once and become a
     * backup, remembering the newer epoch so that a restart does not come back in an old one.
     *
     * @return true if this node was the primary until now
     */
    public synchronized boolean demote(long newerEpoch) {
        if (role() == Role.BACKUP) return false;
        role(Role.BACKUP);
        long epoch = Math.max(newerEpoch, epoch());
        if (epochFile != null) epochFile.write(epoch);
        Replication old = replication;
        replication = new LocalReplication(epoch, 0);
        writeFence = null;
        old.close();
        return true;
    }

    private volatile Runnable replicateToPeer = () -> {};
    private volatile Runnable serveAsBackup = () -> {};

    /** What {@link #replicateToPeer()} and {@link #serveAsBackup()} do; set by the node at start. */
    public void wiring(Runnable replicateToPeer, Runnable serveAsBackup) {
        this.replicateToPeer = replicateToPeer;
        this.serveAsBackup = serveAsBackup;
    }

    /**
     * On a primary ordering writes locally (after promotion), starts replicating them to the
     * configured peer, which is to serve as the backup; does nothing without a peer or if already
     * replicating.
     */
    public void replicateToPeer() {
        replicateToPeer.run();
    }

    /** On a demoted node, starts the replication listener so the new primary can replicate to it. */
    public void serveAsBackup() {
        serveAsBackup.run();
    }

    /** Fences unfinished and lost keys after promotion. */
    public ReadGate gate() {
        return gate;
    }

    /** Promotion, declaring loss, resolving keys. */
    public Failover failover() {
        return failover;
    }

    /** Where the epoch is kept, or null for a memory-only node. */
    public EpochFile epochFile() {
        return epochFile;
    }

    public void epochFile(EpochFile f) {
        epochFile = f;
    }

    /** The replication listener while this node is a backup, else null. */
    public ReplicationServer backupServer() {
        return backupServer;
    }

    public void backupServer(ReplicationServer s) {
        backupServer = s;
    }

    /** The TxId of the last write ordered by this node; on a backup, the last one received in order. */
    public TxId lastTxId() {
        ReplicationServer s = backupServer;
        return s != null && role() == Role.BACKUP ? s.status().contiguous() : replication.lastTxId();
    }

    /** Next client id, for {@code CLIENT ID}. */
    public long nextClientId() {
        return clientIds.incrementAndGet();
    }

    public long startedAtMillis() {
        return startedAtMillis;
    }

    public long uptimeSeconds() {
        return (System.currentTimeMillis() - startedAtMillis) / 1000;
    }
}
