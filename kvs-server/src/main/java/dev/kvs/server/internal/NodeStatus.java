package dev.kvs.server.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreStats;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.ReplicationEnds;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.coordination.CoordinationStatus;
import dev.kvs.server.internal.coordination.NodeCoordination;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.role.RoleMachine;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A snapshot of one node's state: what {@code GET /status} returns as JSON and what the RESP
 * {@code INFO} command formats. Immutable.
 *
 * @param name the node's name
 * @param cluster the cluster name
 * @param role {@code primary} or {@code backup}
 * @param epoch current epoch
 * @param mode default replication mode label, e.g. {@code id-first}
 * @param lastTxId TxId of the last write ordered, {@code epoch:seq}
 * @param keys keys held (tombstones excluded)
 * @param memory store and JVM heap use
 * @param connections client connections open now
 * @param uptimeSeconds seconds since the node started
 * @param version kvs version
 * @param replication replication state (a primary's link to its backup)
 * @param backup what a backup has received (unfinished keys, contiguous TxId...), or null on a primary
 * @param failover fencing after promotion, a refusal of writes, and failback
 * @param linkIntegrity how replication frames are protected on the way, and frames refused
 * @param adminPort what the admin port's guards refused and closed
 * @param clientMemory what client connections hold, against {@code maxClientMemory}
 * @param coordination the node's session, lease and alarm in a cluster coordinated on ZooKeeper; null
 *     without {@code coordination:}
 * @param pubSub the node's pub/sub channels and the subscribers cut off for not reading
 */
public record NodeStatus(
        String name,
        String cluster,
        String role,
        long epoch,
        String mode,
        String lastTxId,
        long keys,
        Memory memory,
        long connections,
        long uptimeSeconds,
        String version,
        ReplicatorStatus replication,
        BackupStatus backup,
        Failover failover,
        LinkIntegrity linkIntegrity,
        AdminPortStats.Snapshot adminPort,
        ClientMemory clientMemory,
        CoordinationStatus coordination,
        PubSub pubSub) {

    /**
     * The node's pub/sub (node-local: a backup's are its own).
     *
     * @param channels channels with at least one subscriber
     * @param patterns patterns with at least one subscriber
     * @param limitDisconnections subscribers disconnected since start for more messages queued than
     *     {@code client-output-buffer-limit pubsub}
     */
    public record PubSub(long channels, long patterns, long limitDisconnections) {}

    /**
     * How replication frames are protected against an on-path attacker.
     *
     * @param frameProtection {@code tls} (mutual TLS protects every byte), {@code mac} (a cluster secret
     *     without TLS: every frame after the secret's handshake carries a MAC and an implicit sequence
     *     number), or {@code none}
     * @param framesFailedMac frames that failed their MAC since the process started (altered, injected,
     *     replayed, reordered or after a dropped one), each closing its connection unread
     */
    public record LinkIntegrity(String frameProtection, long framesFailedMac) {
        /** This node's, as its configuration says. */
        public static LinkIntegrity of(NodeConfig config) {
            String protection =
                    config.tls().isPresent() ? "tls" : config.clusterSecret().isPresent() ? "mac" : "none";
            return new LinkIntegrity(protection, ReplicationEnds.macFailures());
        }
    }

    /**
     * What client connections hold (Redis {@code maxmemory-clients}).
     *
     * @param usedBytes requests still arriving plus replies not yet sent, over every connection
     * @param closingBytes of those, the connections chosen to be closed for memory, not closed yet
     * @param maxBytes {@code maxClientMemory}; 0: no bound
     * @param overBound true while connections hold more than the bound: the alarm
     * @param evictedClients connections closed since start because {@code usedBytes} was past {@code
     *     maxBytes}
     */
    public record ClientMemory(
            long usedBytes, long closingBytes, long maxBytes, boolean overBound, long evictedClients) {
        /** The figures, the alarm computed from them. */
        public static ClientMemory of(long usedBytes, long closingBytes, long maxBytes, long evictedClients) {
            return new ClientMemory(
                    usedBytes, closingBytes, maxBytes, maxBytes > 0 && usedBytes > maxBytes, evictedClients);
        }
    }

    /**
     * Failover state.
     *
     * @param promoted whether this node was promoted and fences unfinished and lost keys
     * @param lostKeys keys declared lost, not yet resolved or handed back
     * @param blockedReads reads waiting now for an unfinished key's value
     * @param writeFence why writes are refused now ({@code FENCED ...}), or null
     * @param failback a deposed primary's failback: {@code none}, {@code running}, {@code retrying:
     *     why}, {@code done} (details at {@code GET /failback})
     */
    public record Failover(boolean promoted, int lostKeys, int blockedReads, String writeFence, String failback) {}

    /**
     * Memory use.
     *
     * @param entries records held, tombstones included
     * @param tombstones tombstones held: deletes a backup still orders against older writes (collected
     *     once none can arrive)
     * @param keyBytes bytes of keys
     * @param valueBytes bytes of values
     * @param offHeapBytes off-heap memory reserved by the store
     * @param maxEntries configured record capacity
     * @param maxBytes configured key + value byte capacity
     * @param persistent whether the store is backed by files
     * @param heapUsedBytes JVM heap in use
     * @param heapMaxBytes JVM heap limit
     * @param heapAfterGcBytes JVM heap in use right after the most recent garbage collection (young or
     *     full), summed over the heap's pools: a steadier figure of what the heap holds than {@code
     *     heapUsedBytes}; -1 before the first collection or where the JVM does not report it
     * @param pageDirectorySlots slots of the large hashes' and sets' page directories, their page
     *     indexes counted in slots (a cache on the heap, dropped whole when full)
     * @param maxPageDirectorySlots the bound on {@code pageDirectorySlots}
     * @param undoSlotBytes bytes of the undo slots that keep what a write overwrites in place until it is
     *     done (0 in memory); bounded by the store's page and key sizes
     * @param unguardedWrites writes since the store opened that found no undo slot free of their size: a
     *     kill in one fences its key ({@code LOST}) instead of putting it back
     */
    public record Memory(
            long entries,
            long tombstones,
            long keyBytes,
            long valueBytes,
            long offHeapBytes,
            long maxEntries,
            long maxBytes,
            boolean persistent,
            long heapUsedBytes,
            long heapMaxBytes,
            long heapAfterGcBytes,
            long pageDirectorySlots,
            long maxPageDirectorySlots,
            long undoSlotBytes,
            long unguardedWrites) {}

    /**
     * Reads the node's current state from its parts. Cheap enough for every {@code INFO}, not for the
     * hot path.
     */
    public static NodeStatus of(
            NodeConfig config,
            KvStore store,
            RoleMachine roles,
            dev.kvs.server.internal.failover.Failover failover,
            NodeMetrics metrics,
            AdminPortStats adminPort) {
        return of(config, store, roles, failover, metrics, adminPort, null);
    }

    /** {@link #of}, with the state of the node's coordination ({@code null}: none). */
    public static NodeStatus of(
            NodeConfig config,
            KvStore store,
            RoleMachine roles,
            dev.kvs.server.internal.failover.Failover failover,
            NodeMetrics metrics,
            AdminPortStats adminPort,
            NodeCoordination coordination) {
        NodeRole role = roles.current();
        ReadGate gate = roles.gate();
        StoreStats s = store.stats();
        Runtime rt = Runtime.getRuntime();
        Memory memory = new Memory(
                s.entries(),
                s.entries() - s.liveEntries(),
                s.keyBytes(),
                s.valueBytes(),
                s.offHeapBytes(),
                s.maxEntries(),
                s.maxBytes(),
                s.persistent(),
                rt.totalMemory() - rt.freeMemory(),
                rt.maxMemory(),
                heapAfterLastGc(),
                s.pageDirectorySlots(),
                s.maxPageDirectorySlots(),
                s.undoSlotBytes(),
                s.unguardedWrites());
        return new NodeStatus(
                config.name(),
                config.cluster(),
                role.role().label(),
                role.epoch(),
                config.mode().label(),
                role.lastTxId().toString(),
                s.liveEntries(),
                memory,
                metrics.connections(),
                metrics.uptimeSeconds(),
                KvsVersion.get(),
                withConfiguredPeer(role.replicationStatus(), config.peer().orElse("")),
                role.listener() == null ? null : role.listener().status(),
                new Failover(
                        gate.active(),
                        gate.lost().size(),
                        gate.blockedReads(),
                        role instanceof NodeRole.Primary p ? p.writeFence() : null,
                        failover.handbackState()),
                LinkIntegrity.of(config),
                adminPort.snapshot(),
                metrics.clientMemoryStatus(),
                coordination == null ? null : coordination.status(),
                metrics.pubSubStatus());
    }

    /**
     * The heap in use right after the most recent collection of any of the JVM's collectors (the one
     * that ended last), summed over the heap pools; -1 if none has run or the JVM does not say.
     */
    static long heapAfterLastGc() {
        com.sun.management.GcInfo last = null;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!(gc instanceof com.sun.management.GarbageCollectorMXBean g)) continue;
            com.sun.management.GcInfo info = g.getLastGcInfo();
            if (info != null && (last == null || info.getEndTime() > last.getEndTime())) last = info;
        }
        if (last == null) return -1;
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) heapPools.add(p.getName());
        }
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : last.getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(e.getKey())) used += e.getValue().getUsed();
        }
        return used;
    }

    /** A node that does not replicate (a backup, or a lone primary) still shows the peer it is set up with. */
    private static ReplicatorStatus withConfiguredPeer(ReplicatorStatus r, String peer) {
        if (!r.peer().isEmpty() || peer.isEmpty()) return r;
        return new ReplicatorStatus(
                r.state(),
                peer,
                r.lastTxId(),
                r.ackedTxId(),
                r.unackedKeys(),
                r.pendingValues(),
                r.pendingValueBytes(),
                r.conflatedValues(),
                r.valuesShipped(),
                r.valueBytesShipped(),
                r.abandonedValues(),
                r.cutThroughValues(),
                r.shipperFailures(),
                r.valueStreamsUp(),
                r.resyncs(),
                r.reconnects(),
                r.keyAckLatencyMicros(),
                r.oldestPendingValueMillis(),
                r.flowControl(),
                r.refusingValues(),
                r.refusals(),
                r.resync(),
                r.valueLag());
    }
}
