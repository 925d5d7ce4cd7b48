package dev.kvs.server.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreStats;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.FlowControlStatus;
import dev.kvs.replication.ReplicationEnds;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import dev.kvs.replication.ValueRefusals;
import dev.kvs.server.internal.coordination.NodeCoordination;
import dev.kvs.server.internal.role.RoleMachine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The node's Micrometer meters, exported as Prometheus text on the admin port. Thread-safe; the
 * record methods are on the client hot path and must not allocate in the common case.
 *
 * <p>Meters are named {@code kvs.*} (Prometheus: {@code kvs_*}); the JVM binders keep their standard
 * {@code jvm_*} / {@code system_*} names so stock dashboards work. Each node owns its registry, so
 * several nodes can run in one JVM (the in-process two-DC fixture).
 */
public final class NodeMetrics implements AutoCloseable {
    /** Most distinct command (or error kind) tags; more collapse into {@link #OTHER}, bounding memory. */
    static final int MAX_TAGS = 256;

    static final String OTHER = "other";
    private static final long STATS_TTL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final KvStore store;
    private final RoleMachine node;
    private final long startedAtMillis = System.currentTimeMillis();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    private final ConcurrentHashMap<String, FunctionTimer> commandTimers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> errorCounters = new ConcurrentHashMap<>();
    private final AtomicLong connections = new AtomicLong();
    private final Counter connectionsAccepted;
    private volatile CachedStats cachedStats;
    private volatile ClientMemoryFigures clientMemory;
    private volatile PubSubFigures pubSub;

    /** Reads nothing from {@code store} or {@code roles} until scraped. */
    public NodeMetrics(KvStore store, RoleMachine roles) {
        this.store = store;
        this.node = roles;
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);

        Gauge.builder("kvs.connections", connections, AtomicLong::get)
                .description("Client connections open now")
                .register(registry);
        connectionsAccepted = Counter.builder("kvs.connections.accepted")
                .description("Client connections accepted since start")
                .register(registry);
        registerNodeGauges();
        registerStoreGauges();
        registerReplicationGauges();
        registerBackupGauges();
        // Replication meters (key-ack latency, unfinished keys, oldest unfinished age, value lag,
        // conflated values, fenced reads, link state) are registered by the replication code
        // through registry(), under the names kvs.replication.*.
    }

    private void registerNodeGauges() {
        TimeGauge.builder(
                        "kvs.uptime", this, TimeUnit.MILLISECONDS, m -> System.currentTimeMillis() - m.startedAtMillis)
                .description("Time since the node started")
                .register(registry);
        Gauge.builder("kvs.epoch", node, n -> n.current().epoch())
                .description("Current epoch (grows by one at every promotion)")
                .register(registry);
        Gauge.builder("kvs.txid.seq", node, n -> n.current().lastTxId().seq())
                .description("Sequence number of the last write ordered in the current epoch")
                .register(registry);
        Gauge.builder("kvs.role.primary", node, n -> n.current().role() == Role.PRIMARY ? 1 : 0)
                .description("1 if this node is the primary, 0 if it is a backup")
                .register(registry);
        Gauge.builder("kvs.failover.lost.keys", node, n -> n.gate().lost().size())
                .description("Keys declared lost after promotion and not yet resolved or handed back")
                .register(registry);
        Gauge.builder("kvs.failover.blocked.reads", node, n -> n.gate().blockedReads())
                .description("Reads waiting now for the value of an unfinished key (read policy block)")
                .register(registry);
    }

    private void registerReplicationGauges() {
        FunctionCounter.builder("kvs.replication.frames.failed.mac", node, n -> ReplicationEnds.macFailures())
                .description("Replication frames that failed their MAC (altered, injected, replayed, reordered or"
                        + " after a dropped one), each closing its connection unread")
                .register(registry);
        replicationGauge(
                "kvs.replication.shipper.failures",
                null,
                "Failures while shipping values (a store read or a send that threw): each value was put back",
                ReplicatorStatus::shipperFailures);
        replicationGauge(
                "kvs.replication.resync.value.shipped",
                "bytes",
                "Value bytes full resyncs shipped: only what the backup lacked",
                r -> r.resync().valueBytesWanted());
        replicationGauge(
                "kvs.replication.resync.value.saved",
                "bytes",
                "Value bytes full resyncs did not ship because the backup held them",
                r -> r.resync().valueBytesSaved());
        replicationGauge(
                "kvs.replication.link.up",
                null,
                "1 while the key channel streams to the backup",
                r -> r.streaming() ? 1 : 0);
        replicationGauge(
                "kvs.replication.unacked.keys",
                null,
                "Key packets not yet acknowledged by the backup",
                ReplicatorStatus::unackedKeys);
        replicationGauge(
                "kvs.replication.key.ack.latency",
                "seconds",
                "Last key packet round trip (send to ack)",
                r -> r.keyAckLatencyMicros() / 1e6);
        replicationGauge(
                "kvs.replication.value.lag.count",
                null,
                "Values not yet acknowledged by the backup",
                ReplicatorStatus::pendingValues);
        replicationGauge(
                "kvs.replication.value.lag",
                "bytes",
                "Bytes of values not yet acknowledged by the backup",
                ReplicatorStatus::pendingValueBytes);
        replicationGauge(
                "kvs.replication.conflated.values",
                null,
                "Values replaced before they were shipped",
                ReplicatorStatus::conflatedValues);
        replicationGauge(
                "kvs.replication.values.shipped", null, "Values sent to the backup", ReplicatorStatus::valuesShipped);
        replicationGauge(
                "kvs.replication.value.shipped",
                "bytes",
                "Value bytes sent to the backup",
                ReplicatorStatus::valueBytesShipped);
        replicationGauge(
                "kvs.replication.abandoned.values",
                null,
                "Large values whose shipping stopped mid-way because their key was rewritten",
                ReplicatorStatus::abandonedValues);
        replicationGauge(
                "kvs.replication.cut.through.values",
                null,
                "Large values that started for the backup while their client still sent them",
                ReplicatorStatus::cutThroughValues);
        replicationGauge("kvs.replication.resyncs", null, "Full resyncs started", ReplicatorStatus::resyncs);
        replicationGauge(
                "kvs.replication.connections", null, "Key channel connections made", ReplicatorStatus::reconnects);
        replicationGauge(
                "kvs.replication.value.lag.oldest",
                "seconds",
                "Age of the oldest value not yet acknowledged by the backup",
                r -> r.oldestPendingValueMillis() / 1000.0);
        registerRefusalMeters();
        replicationGauge(
                "kvs.replication.value.lag.max",
                "seconds",
                "The bound on the value lag's age (maxValueLagMs; 0: off): past it, or once the values pending"
                        + " would take it to ship, writes wait",
                r -> r.valueLag().maxValueLagMillis() / 1000.0);
        replicationGauge(
                "kvs.replication.value.lag.projected",
                "seconds",
                "How long the values pending take to reach the backup at the measured drain rate (-1: unknown)",
                r -> r.valueLag().projectedLagMillis() < 0 ? -1 : r.valueLag().projectedLagMillis() / 1000.0);
        replicationGauge(
                "kvs.replication.value.drain.rate",
                "bytes.per.second",
                "Rate the backup acknowledges value bytes at, per second of the last 10 s with values in flight"
                        + " (-1: unknown)",
                r -> r.valueLag().drainBytesPerSecond());
        replicationGauge(
                "kvs.replication.value.lag.waits",
                null,
                "Writes held by the bound on the value lag",
                r -> r.valueLag().waits());
        replicationGauge(
                "kvs.replication.value.lag.wait",
                "seconds",
                "Time writes waited at the bound on the value lag, in all",
                r -> r.valueLag().waitMillis() / 1000.0);
        registerFlowControlGauges();
    }

    /**
     * Values a backup's store refused: on a primary the alarm (degraded) and what its backup reported, on
     * a backup what its own store refused. One counter per reason, each there from the start.
     */
    private void registerRefusalMeters() {
        replicationGauge(
                "kvs.replication.degraded",
                null,
                "1 while the backup's store refuses values (full, value too large): id-first and sync writes"
                        + " answer NOREPLICA until every refused value has landed",
                r -> r.degraded() ? 1 : 0);
        replicationGauge(
                "kvs.replication.refusing.values",
                null,
                "Values the backup's store refused that have not landed since (kept on the primary, retried)",
                ReplicatorStatus::refusingValues);
        for (String reason : ValueRefusals.none().byReason().keySet()) {
            String tag = reason.replace(' ', '_');
            FunctionCounter.builder(
                            "kvs.replication.values.refused",
                            node,
                            n -> n.current()
                                    .replicationStatus()
                                    .refusals()
                                    .byReason()
                                    .get(reason))
                    .description("Values the backup's store refused, by reason (primary)")
                    .tag("reason", tag)
                    .register(registry);
            FunctionCounter.builder("kvs.replication.store.refusals", node, n -> {
                        var server = n.current().listener();
                        return server == null
                                ? 0
                                : server.status().refusals().byReason().get(reason);
                    })
                    .description("Values this node's store refused as a backup, by reason (backup)")
                    .tag("reason", tag)
                    .register(registry);
        }
    }

    /** The value traffic's flow control ({@code FlowControlStatus}); all 0 while it is off. */
    private void registerFlowControlGauges() {
        flowGauge(
                "kvs.replication.flow.control.enabled",
                null,
                "1 while the value traffic is flow controlled",
                f -> f.enabled() ? 1 : 0);
        flowGauge(
                "kvs.replication.flow.window",
                "bytes",
                "Value bytes the flow control allows in flight",
                FlowControlStatus::windowBytes);
        flowGauge(
                "kvs.replication.flow.in.flight",
                "bytes",
                "Value bytes sent whose receipt has not come back",
                FlowControlStatus::inFlightBytes);
        flowGauge(
                "kvs.replication.flow.pacing.rate",
                "bytes.per.second",
                "Rate value frames are paced at",
                FlowControlStatus::pacingRateBytesPerSecond);
        flowGauge(
                "kvs.replication.flow.base.delay",
                "seconds",
                "Base one-way delay of the value traffic (minimum over the history; includes the clock offset)",
                f -> f.baseDelayMicros() / 1e6);
        flowGauge(
                "kvs.replication.flow.queueing.delay",
                "seconds",
                "Queueing delay the value traffic sees at the bottleneck (one-way delay minus the base)",
                f -> f.queueingDelayMicros() / 1e6);
        flowGauge(
                "kvs.replication.flow.external.delay",
                "seconds",
                "Part of the queueing delay that is there without this node's values (lone frames' delay:"
                        + " a backup reading late, another flow's standing queue)",
                f -> f.externalDelayMicros() / 1e6);
        flowGauge(
                "kvs.replication.flow.target",
                "seconds",
                "Queueing delay the flow control aims at",
                f -> f.targetMicros() / 1e6);
        flowGauge(
                "kvs.replication.value.goodput",
                "bytes.per.second",
                "Value bytes the backup received per second, recently",
                FlowControlStatus::goodputBytesPerSecond);
        flowGauge(
                "kvs.replication.flow.min.rate.alarm",
                null,
                "1 while the measured delay holds the value traffic at its minimum rate (a competing flow fills"
                        + " the bottleneck)",
                f -> f.minRateAlarm() ? 1 : 0);
        flowGauge(
                "kvs.replication.flow.slowdowns",
                null,
                "Periodic slowdowns done to re-measure the base delay",
                FlowControlStatus::slowdowns);
    }

    private void flowGauge(String name, String unit, String description, ToDoubleFunction<FlowControlStatus> f) {
        replicationGauge(name, unit, description, r -> f.applyAsDouble(r.flowControl()));
    }

    private void registerBackupGauges() {
        backupGauge(
                "kvs.replication.unfinished.keys",
                null,
                "Keys whose value has not arrived (backup)",
                BackupStatus::unfinishedKeys);
        backupGauge(
                "kvs.replication.unfinished.oldest.age",
                "seconds",
                "Age of the oldest unfinished key: a live estimate of exposure (backup)",
                b -> b.oldestUnfinishedAgeMillis() / 1000.0);
        backupGauge("kvs.replication.values.applied", null, "Values applied (backup)", BackupStatus::valuesApplied);
        backupGauge(
                "kvs.replication.async.values.awaited",
                null,
                "Async writes announced whose value has not landed; not fenced (backup)",
                BackupStatus::asyncValuesAwaited);
        backupGauge(
                "kvs.replication.values.not.awaited",
                null,
                "Values discarded because a newer write or a delete of their key had landed (backup)",
                BackupStatus::valuesNotAwaited);
        backupGauge(
                "kvs.replication.tombstones.collected",
                null,
                "Tombstones removed once no older value of their key could be applied (backup)",
                BackupStatus::tombstonesCollected);
        backupGauge(
                "kvs.replication.tombstone.sweeps",
                null,
                "Sweeps of the whole store for tombstones (backup)",
                BackupStatus::tombstoneSweeps);
        backupGauge(
                "kvs.replication.deletes.held",
                null,
                "Deletes whose values came before their key packets, held until those arrive (backup)",
                BackupStatus::deletesHeld);
        backupGauge(
                "kvs.replication.units.held",
                null,
                "EXECs whose values are held back until the whole EXEC has arrived (backup)",
                BackupStatus::unitsHeld);
        backupGauge(
                "kvs.replication.units.held.bytes",
                null,
                "Bytes of the values held back for EXECs (backup)",
                BackupStatus::unitHeldBytes);
        backupGauge(
                "kvs.replication.units.applied",
                null,
                "EXECs applied together while no reader ran (backup)",
                BackupStatus::unitsApplied);
        backupGauge(
                "kvs.replication.units.broken",
                null,
                "EXECs whose values were applied as they came: past maxHeldUnitBytes (backup)",
                BackupStatus::unitsBroken);
        backupGauge(
                "kvs.replication.tombstone.sweep.above",
                null,
                "Tombstones held above which a sweep runs (backup)",
                BackupStatus::tombstoneSweepAbove);
        backupGauge(
                "kvs.replication.refused.connections",
                null,
                "Replication connections refused at their handshake: no or a wrong cluster secret proof, no"
                        + " handshake within the authentication deadline, closed to make room, or rejected (backup)",
                BackupStatus::refusedConnections);
        backupGauge(
                "kvs.replication.dropped.connections",
                null,
                "Replication connections still in their handshake closed to make room for newer ones: their"
                        + " pool or source address was full (backup)",
                BackupStatus::droppedConnections);
        backupGauge(
                "kvs.replication.connections.in.handshake",
                null,
                "Replication connections accepted whose handshake is not done (backup)",
                BackupStatus::connectionsInHandshake);
        backupGauge(
                "kvs.replication.values.superseded",
                null,
                "Values found older than what is held (backup)",
                BackupStatus::valuesSuperseded);
        backupGauge(
                "kvs.replication.values.nacked",
                null,
                "Values re-requested for a bad checksum (backup)",
                BackupStatus::valuesNacked);
        backupGauge(
                "kvs.replication.received",
                "bytes",
                "Replication bytes received (backup)",
                BackupStatus::bytesReceived);
        backupGauge(
                "kvs.replication.backup.link.up",
                null,
                "1 while a primary's key channel is connected (backup)",
                b -> b.keyChannelConnected() ? 1 : 0);
    }

    private void backupGauge(String name, String unit, String description, ToDoubleFunction<BackupStatus> f) {
        Gauge.builder(name, node, n -> {
                    var server = n.current().listener();
                    return server == null ? Double.NaN : f.applyAsDouble(server.status());
                })
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    private void replicationGauge(String name, String unit, String description, ToDoubleFunction<ReplicatorStatus> f) {
        Gauge.builder(name, node, n -> f.applyAsDouble(n.current().replicationStatus()))
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    private void registerStoreGauges() {
        storeGauge("kvs.keyspace.keys", null, "Keys held (tombstones excluded), as DBSIZE", StoreStats::liveEntries);
        storeGauge("kvs.store.entries", null, "Records held, tombstones included", StoreStats::entries);
        storeGauge(
                "kvs.store.tombstones",
                null,
                "Tombstones held: deletes a backup still orders against older writes",
                s -> s.entries() - s.liveEntries());
        storeGauge("kvs.store.max.entries", null, "Configured record capacity", StoreStats::maxEntries);
        storeGauge("kvs.memory.keys", "bytes", "Bytes of keys held", StoreStats::keyBytes);
        storeGauge("kvs.memory.values", "bytes", "Bytes of values held", StoreStats::valueBytes);
        storeGauge("kvs.memory.max", "bytes", "Configured key + value byte capacity", StoreStats::maxBytes);
        storeGauge("kvs.memory.offheap", "bytes", "Off-heap memory reserved by the store", StoreStats::offHeapBytes);
        storeGauge(
                "kvs.store.page.directory.slots",
                null,
                "Slots of the page directories of large hashes and sets (heap, about 28 bytes each)",
                StoreStats::pageDirectorySlots);
        storeGauge(
                "kvs.store.page.directory.max.slots",
                null,
                "Bound on the page directories' slots; past it they are dropped and found again",
                StoreStats::maxPageDirectorySlots);
        storeGauge(
                "kvs.store.undo.slots",
                "bytes",
                "Bytes of the undo slots that keep what a write overwrites in place until it is done (0 in memory)",
                StoreStats::undoSlotBytes);
        storeGauge(
                "kvs.store.unguarded.writes",
                null,
                "Writes in place that found no undo slot free of their size: a kill in one fences its key",
                StoreStats::unguardedWrites);
    }

    private void storeGauge(String name, String unit, String description, ToDoubleFunction<StoreStats> f) {
        Gauge.builder(name, this, m -> {
                    StoreStats s = m.storeStats();
                    return s == null ? Double.NaN : f.applyAsDouble(s);
                })
                .baseUnit(unit)
                .description(description)
                .register(registry);
    }

    /** Store stats shared by the gauges of one scrape; {@code null} if the store cannot answer (closed). */
    private StoreStats storeStats() {
        CachedStats c = cachedStats;
        long now = System.nanoTime();
        if (c != null && now - c.atNanos < STATS_TTL_NANOS) return c.stats;
        StoreStats s;
        try {
            s = store.stats();
        } catch (RuntimeException e) {
            s = null;
        }
        cachedStats = new CachedStats(now, s);
        return s;
    }

    private record CachedStats(long atNanos, StoreStats stats) {}

    /** When the node started (wall clock, ms). */
    public long startedAtMillis() {
        return startedAtMillis;
    }

    /** Whole seconds since the node started. */
    public long uptimeSeconds() {
        return (System.currentTimeMillis() - startedAtMillis) / 1000;
    }

    /** The registry, for meters other parts of the node add (replication: {@code kvs.replication.*}). */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Exposes one command's figures as the timer {@code kvs.commands{command="<lower-case name>"}}: its
     * calls and the nanoseconds they took, read from the caller's counters at scrape time (the command
     * table keeps them for {@code INFO commandstats}), so running a command records nothing here. The
     * first exposure of a name wins; past {@link #MAX_TAGS} names, no more are exposed.
     *
     * @param counters held weakly by the registry: the caller keeps them
     */
    public <T> void exposeCommand(String command, T counters, ToLongFunction<T> calls, ToDoubleFunction<T> nanos) {
        if (commandTimers.containsKey(command)) return;
        synchronized (commandTimers) {
            if (commandTimers.containsKey(command) || commandTimers.size() >= MAX_TAGS) return;
            FunctionTimer t = FunctionTimer.builder("kvs.commands", counters, calls, nanos, TimeUnit.NANOSECONDS)
                    .description("Commands executed and their service time, by command")
                    .tag("command", command.toLowerCase(Locale.ROOT))
                    .register(registry);
            commandTimers.put(command, t);
        }
    }

    /** One error reply sent, by its first word (e.g. {@code ERR}, {@code WRONGTYPE}, {@code NOAUTH}). */
    public void recordError(String kind) {
        Counter c = errorCounters.get(kind);
        if (c == null) c = errorCounter(kind);
        c.increment();
    }

    private Counter errorCounter(String kind) {
        String tag = errorCounters.size() < MAX_TAGS ? kind : OTHER;
        Counter c = Counter.builder("kvs.errors")
                .description("Error replies sent, by first word")
                .tag("kind", tag)
                .register(registry);
        Counter prior = errorCounters.putIfAbsent(kind, c);
        return prior != null ? prior : c;
    }

    /**
     * Error replies sent since start, by kind (first word), sorted; kinds past the tag limit are
     * counted together under {@code other}. For {@code INFO errorstats}.
     */
    public SortedMap<String, Long> errorCounts() {
        SortedMap<String, Long> out = new TreeMap<>();
        Set<Counter> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Counter c : errorCounters.values()) {
            if (seen.add(c)) out.merge(c.getId().getTag("kind"), (long) c.count(), Long::sum);
        }
        return out;
    }

    /** Gauges of the client connections each of {@code loops} serves, tagged by the loop's index. */
    public void clientLoops(PackedEventLoops loops) {
        int n = loops.served().length;
        for (int i = 0; i < n; i++) {
            int loop = i;
            Gauge.builder("kvs.io.thread.connections", loops, l -> l.served()[loop])
                    .description("Client connections an event loop serves now (ioPackConnections places them)")
                    .tag("thread", Integer.toString(i))
                    .register(registry);
        }
    }

    /** Meters of the admin port's guards: open connections, refused requests, closed connections. */
    /** The lease of a node coordinated on ZooKeeper: whether it holds, its revocations, the alarm. */
    public void coordination(NodeCoordination c) {
        Gauge.builder("kvs.coordination.lease.held", c, n -> n.held() ? 1 : 0)
                .description("1 while this node's lease on its ZooKeeper session holds (a primary serves only then)")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.coordination.lease.revocations",
                        c,
                        n -> n.status().lease().revocations())
                .description("Times the lease was revoked at once: connection suspended or lost, member znode gone")
                .register(registry);
        Gauge.builder("kvs.coordination.lease.alarm", c, n -> n.status().alarm() ? 1 : 0)
                .description("1 while this node is the primary and its lease does not hold: it refuses writes"
                        + " and reads with -CLUSTERDOWN")
                .register(registry);
        Gauge.builder("kvs.cluster.map.version", c, n -> n.status().map().mapVersion())
                .description("Version of the cluster map znode this node follows (-1: no map yet)")
                .register(registry);
        Gauge.builder("kvs.cluster.view", c, n -> n.status().map().viewed() ? 1 : 0)
                .description("1 once the client port answers CLUSTER and -MOVED by a layout of the map")
                .register(registry);
        Gauge.builder(
                        "kvs.cluster.view.problem",
                        c,
                        n -> n.status().map().problem().isEmpty() ? 0 : 1)
                .description("1 while the view is not the latest map's, or the map's naming was not followed"
                        + " (/status coordination.map.problem says why)")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.cluster.promotions.by.map",
                        c,
                        n -> n.status().map().promotions())
                .description("Times this node promoted itself because the cluster map named it primary")
                .register(registry);
        Gauge.builder("kvs.coordinator.leader", c, n -> n.status().coordinator().leader() ? 1 : 0)
                .description("1 while the coordinator in this node leads (writes the map)")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.coordinator.rounds",
                        c,
                        n -> n.status().coordinator().rounds())
                .description("Rounds the coordinator in this node ran while leading")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.coordinator.promotions",
                        c,
                        n -> n.status().coordinator().promotions())
                .description("Promotions the coordinator in this node wrote to the map")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.coordinator.conflicts",
                        c,
                        n -> n.status().coordinator().conflicts())
                .description("Map writes of the coordinator refused because the map had changed under a round")
                .register(registry);
    }

    public void adminPort(AdminPortStats stats) {
        Gauge.builder("kvs.admin.connections", stats, s -> s.open().get())
                .description("Admin HTTP connections open now (admin.maxConnections caps them)")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.admin.refused.requests", stats, s -> s.snapshot().refusedRequests())
                .description("Admin requests refused before their body was read: credential, loopback rule,"
                        + " Origin, Host, no X-Kvs-Admin, or a body over the limit")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.admin.timed.out.connections",
                        stats,
                        s -> s.snapshot().timedOutConnections())
                .description("Admin connections closed for a request head, body or next request not sent in time")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.admin.cap.dropped.connections",
                        stats,
                        s -> s.snapshot().droppedAtCap())
                .description("Admin connections waiting for a request closed at the cap to let a new one in")
                .register(registry);
        FunctionCounter.builder(
                        "kvs.admin.cap.refused.connections",
                        stats,
                        s -> s.snapshot().refusedAtCap())
                .description("New admin connections closed at once at the cap, every open one busy")
                .register(registry);
    }

    /**
     * Meters of the node-wide bound on client memory ({@code maxClientMemory}), read from the client
     * port's figures; the first port registered is the one shown (a node has one).
     */
    public void clientMemory(
            LongSupplier used, LongSupplier closing, LongSupplier bound, LongSupplier evicted, LongSupplier overBound) {
        if (clientMemory != null) return;
        // held here: the meters keep only weak references to what they read
        clientMemory = new ClientMemoryFigures(used, closing, bound, evicted, overBound);
        Gauge.builder("kvs.clients.memory", used, LongSupplier::getAsLong)
                .description("Bytes client connections hold: requests still arriving plus replies not yet sent")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("kvs.clients.memory.closing", closing, LongSupplier::getAsLong)
                .description("Of kvs_clients_memory_bytes: connections chosen to be closed for memory, not closed yet")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("kvs.clients.memory.max", bound, LongSupplier::getAsLong)
                .description("maxClientMemory: past it the biggest unauthenticated, then idle, connections are closed"
                        + " (0: no bound)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("kvs.clients.memory.over.bound", overBound, LongSupplier::getAsLong)
                .description("1 while client connections hold more than maxClientMemory")
                .register(registry);
        FunctionCounter.builder("kvs.clients.evicted.for.memory", evicted, LongSupplier::getAsLong)
                .description("Client connections closed because client connections held more than maxClientMemory")
                .register(registry);
    }

    /**
     * Meters of the node's pub/sub, read from the client port's registry; the first port registered is
     * the one shown (a node has one).
     */
    public void pubSub(LongSupplier channels, LongSupplier patterns, LongSupplier limitDisconnections) {
        if (pubSub != null) return;
        pubSub = new PubSubFigures(channels, patterns, limitDisconnections); // held: meters keep weak references
        Gauge.builder("kvs.pubsub.channels", channels, LongSupplier::getAsLong)
                .description("Pub/sub channels with at least one subscriber on this node")
                .register(registry);
        Gauge.builder("kvs.pubsub.patterns", patterns, LongSupplier::getAsLong)
                .description("Pub/sub patterns with at least one subscriber on this node")
                .register(registry);
        FunctionCounter.builder("kvs.pubsub.limit.disconnections", limitDisconnections, LongSupplier::getAsLong)
                .description("Subscribers disconnected for more messages queued than client-output-buffer-limit pubsub")
                .register(registry);
    }

    /** The figures of {@link #pubSub}, for {@code /status}; zeros before a port. */
    public NodeStatus.PubSub pubSubStatus() {
        PubSubFigures f = pubSub;
        return f == null
                ? new NodeStatus.PubSub(0, 0, 0)
                : new NodeStatus.PubSub(
                        f.channels.getAsLong(), f.patterns.getAsLong(), f.limitDisconnections.getAsLong());
    }

    private record PubSubFigures(LongSupplier channels, LongSupplier patterns, LongSupplier limitDisconnections) {}

    /** The figures of {@link #clientMemory}, for {@code /status}: used, bound, evicted; zeros before a port. */
    public NodeStatus.ClientMemory clientMemoryStatus() {
        ClientMemoryFigures f = clientMemory;
        return f == null
                ? NodeStatus.ClientMemory.of(0, 0, 0, 0)
                : NodeStatus.ClientMemory.of(
                        f.used.getAsLong(), f.closing.getAsLong(), f.bound.getAsLong(), f.evicted.getAsLong());
    }

    private record ClientMemoryFigures(
            LongSupplier used,
            LongSupplier closing,
            LongSupplier bound,
            LongSupplier evicted,
            LongSupplier overBound) {}

    /** A client connection was accepted. */
    public void connectionOpened() {
        connections.incrementAndGet();
        connectionsAccepted.increment();
    }

    /** A client connection closed; call once per {@link #connectionOpened()}. */
    public void connectionClosed() {
        connections.decrementAndGet();
    }

    /** Client connections open now. */
    public long connections() {
        return connections.get();
    }

    /** The Prometheus text exposition (format 0.0.4) of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    /** Unhooks the GC listeners and closes the registry; idempotent. */
    @Override
    public void close() {
        gcMetrics.close();
        registry.close();
    }
}
