package dev.kvs.server;

import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AdminPortStats;
import dev.kvs.server.internal.ClientIds;
import dev.kvs.server.internal.NodeMetrics;
import dev.kvs.server.internal.NodeStatus;
import dev.kvs.server.internal.Transport;
import dev.kvs.server.internal.admin.AdminServer;
import dev.kvs.server.internal.admin.FailoverRoutes;
import dev.kvs.server.internal.admin.StatusRoutes;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.coordination.NodeCoordination;
import dev.kvs.server.internal.expiry.ActiveExpiry;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.failover.Failover;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.resp.CommandContext;
import dev.kvs.server.internal.resp.RespServer;
import dev.kvs.server.internal.role.EpochFile;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReplicationLinks;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.tls.ServerTls;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running kvs node: its store, RESP client port and admin HTTP port.
 *
 * <p>Start one with {@link #start(NodeConfig)}; {@link #close()} stops it cleanly (ports closed, event
 * loops drained, store closed). Thread-safe.
 */
public final class KvsNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KvsNode.class);

    private final NodeConfig config;
    private final KvStore store;
    private final EventLoops loops;
    private final ReplicationLinks links;
    private final RoleMachine roles;
    private final Writes writes;
    private final Failover failover;
    private final NodeMetrics metrics;
    /** The node's membership in a cluster coordinated on ZooKeeper; null without {@code coordination:}. */
    private final NodeCoordination coordination;

    private final AdminPortStats adminStats = new AdminPortStats();
    /** Keys removed by active expiry: counted by it, shown by {@code INFO}. */
    private final AtomicLong expiredKeys = new AtomicLong();
    /** Keyspace notifications, published on the RESP port's pub/sub ({@link #publishEvent}). */
    private final KeyEvents events;

    private final ActiveExpiry expiry;
    private final RespServer resp;
    private final AdminServer admin;
    private final int port;
    private final int adminPort;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);

    /** Assembles the node's parts, each handed the few others it uses, then starts them in order. */
    private KvsNode(NodeConfig config, Clock clock, WriteStages stages) throws InterruptedException {
        this.config = config;
        // read first: a bad certificate must not leave a store open or threads running
        SslContext portTls = config.tlsPorts().any()
                ? ServerTls.context(
                        config.tls().orElseThrow(), config.tlsPorts().clientAuth())
                : null; // one context for both ports
        this.store = KvStore.builder().config(config.store()).open();
        EpochFile epochFile = config.store().dataDir().map(EpochFile::new).orElse(null);
        Transport transport = Transport.best();
        this.loops = new EventLoops(config, transport);
        this.links = new ReplicationLinks(config, store, loops.replication, loops.replicationValues, stages);
        this.roles = new RoleMachine(config, epochFile, links);
        this.coordination = config.coordination().isPresent() ? new NodeCoordination(config, roles) : null;
        StartingPoint from = StartingPoint.of(
                config.role(),
                lastTxId(store),
                epochFile,
                // only a persisted primary moves its epoch on restart: only it needs the map first
                coordination != null && config.role() == Role.PRIMARY && epochFile != null && coordination.replaced());
        if (coordination != null) {
            roles.serveUnder(coordination);
            links.serveUnder(coordination);
        }
        this.writes = new Writes(store, roles, clock);
        this.failover = new Failover(config, store, roles, writes, loops.replication);
        // a backup's torn keys are its primary's to send again
        if (config.role() == Role.PRIMARY) failover.fenceTornAtOpen(store.fencedAtOpen());
        this.metrics = new NodeMetrics(store, roles);
        metrics.adminPort(adminStats);
        if (coordination != null) metrics.coordination(coordination);
        metrics.clientLoops(loops.clients);
        this.events = new KeyEvents(this::publishEvent, EventClasses.parse(config.notifyKeyspaceEvents()));
        this.expiry = new ActiveExpiry(store, roles, writes, config.mode(), expiredKeys, config.expiry(), events);
        this.resp = respServer(config.tlsPorts().clients() ? portTls : null, stages);
        roles.readersOut(resp.readersOut()); // a backup applies an EXEC's writes while no command runs
        this.admin = adminServer(config.tlsPorts().admin() ? portTls : null);
        boolean started = false;
        try {
            startRoles(from); // a backup binds its replication port here
            this.port = listenForClients(transport);
            this.adminPort = listenForAdmin();
            if (coordination != null) joinCluster();
            expiry.start();
            started = true;
        } finally {
            if (!started) shutdown();
        }
    }

    /**
     * A client connection to this node's RESP port on an {@link EmbeddedChannel} instead of a socket: what
     * is written inbound runs on the calling thread, through the handlers a socket's connection has, and
     * the replies come out outbound. For benchmarks of the request path alone ({@code ./kvs bench jmh
     * RequestPathBenchmark}); the caller closes it.
     */
    public EmbeddedChannel embeddedConnection() {
        return resp.embeddedConnection();
    }

    /** The RESP port, whose commands see the node through a {@link CommandContext}. */
    private RespServer respServer(SslContext tls, WriteStages stages) {
        CommandContext commands = new CommandContext(
                config,
                store,
                new LiveReads(store, writes.clock()),
                writes,
                roles,
                failover,
                metrics,
                adminStats,
                expiredKeys,
                new ClientIds()::next,
                this::closeOnItsOwnThread,
                coordination == null ? ClusterView.NONE : coordination.view(),
                events);
        return new RespServer(commands, tls, stages);
    }

    /** {@code SHUTDOWN}: the same stop as SIGTERM, off the event loops that {@link #close()} shuts down. */
    private void closeOnItsOwnThread() {
        Thread t = new Thread(this::close, "kvs-shutdown-command");
        t.setDaemon(false);
        t.start();
    }

    /** The admin port with its routes: the node's state, then failover. */
    private AdminServer adminServer(SslContext tls) {
        AdminServer server = new AdminServer(config, adminStats, loops.admin, tls);
        StatusRoutes.register(
                server,
                () -> NodeStatus.of(config, store, roles, failover, metrics, adminStats, coordination),
                metrics::scrape);
        FailoverRoutes.register(server, roles, failover, coordination != null);
        return server;
    }

    private void startRoles(StartingPoint from) {
        try {
            roles.start(from.epoch(), from.lastSeq(), from.hadState(), failover);
        } catch (RuntimeException e) {
            if (!NodeStartException.isBindFailure(e)) throw e;
            throw NodeStartException.cannotListen(config.replicationBind(), config.replPort(), "replication port", e);
        }
    }

    /** Publishes this node in its cluster on ZooKeeper and starts the lease a primary serves under. */
    private void joinCluster() {
        String client = config.advertisedClientAddress(port);
        String replication = config.replicationBind() + ":" + replPort();
        try {
            coordination.start(client, replication, epoch -> failover.promoteAt(epoch, false));
            failover.promoteThroughMap(force -> coordination.promotion().promote(force), coordination.switchover());
        } catch (Exception e) {
            throw new NodeStartException(
                    "cannot join cluster '" + config.cluster() + "' on ZooKeeper "
                            + config.coordination().orElseThrow().zookeeper() + ": " + e.getMessage(),
                    e);
        }
    }

    private int listenForClients(Transport transport) throws InterruptedException {
        try {
            int bound = resp.start(config.bind(), config.port(), loops.accept, loops.clients, transport);
            links.clientPortBound(bound);
            return bound;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) { // Netty rethrows a BindException undeclared
            throw NodeStartException.cannotListen(config.bind(), config.port(), "client port", e);
        }
    }

    private int listenForAdmin() {
        try {
            return admin.start(config.adminBindAddress(), config.adminPort());
        } catch (RuntimeException e) {
            throw NodeStartException.cannotListen(config.adminBindAddress(), config.adminPort(), "admin port", e);
        }
    }

    /**
     * The epoch and sequence a node starts from, and whether it had state.
     *
     * @param hadState whether the store or the epoch file knew an epoch
     */
    private record StartingPoint(long epoch, long lastSeq, boolean hadState) {
        /**
         * @param replaced the cluster map names another member primary of this node's shard: a restarted
         *     primary keeps its epoch rather than move past the map's, is deposed by the map and hands back
         */
        static StartingPoint of(Role role, TxId last, EpochFile epochFile, boolean replaced) {
            long known = Math.max(last.epoch(), epochFile == null ? 0 : epochFile.read());
            if (role == Role.PRIMARY && known > 0 && epochFile != null && !replaced) {
                // a restarted primary never reuses its epoch: seqs of writes it deleted are not in the store,
                // so it could not tell which it had used; a new epoch makes the backup resynchronise
                return new StartingPoint(known + 1, 0, true);
            }
            // a fresh node starts in epoch 1 so that TxId 0:0 means "before every write"
            long epoch = Math.max(1, known);
            return new StartingPoint(epoch, last.epoch() == epoch ? last.seq() : 0, known > 0);
        }
    }

    /**
     * Opens the store (recovering a persisted one) and starts serving.
     *
     * @throws KvsException if the store cannot be opened
     * @throws NodeStartException if a port cannot be bound, or the admin port would be open to every
     *     local client of a node that has a password ({@link #openAdminPort})
     */
    public static KvsNode start(NodeConfig config) {
        return start(config, Clock.systemUTC());
    }

    /**
     * Like {@link #start(NodeConfig)}, with {@code clock} as the node's wall clock: what relative TTLs
     * are turned into absolute expiry times with, and what expiries are checked against (tests skew
     * two nodes' clocks with it).
     */
    public static KvsNode start(NodeConfig config, Clock clock) {
        return start(config, clock, WriteStages.OFF);
    }

    /**
     * Like {@link #start(NodeConfig)}, marking in {@code stages} when each write passes each stage on this
     * node (its client port, its replication): for a benchmark that gives two nodes of one JVM the same
     * {@link WriteStages#recording recording} ({@code ./kvs bench jmh --stages}).
     */
    public static KvsNode start(NodeConfig config, WriteStages stages) {
        return start(config, Clock.systemUTC(), stages);
    }

    private static KvsNode start(NodeConfig config, Clock clock, WriteStages stages) {
        Optional<String> open = openAdminPort(config);
        if (open.isPresent()) throw new NodeStartException(open.get(), null);
        try {
            KvsNode node = new KvsNode(config, clock, stages);
            log.info(
                    "kvs node '{}' ({}, epoch {}, mode {}) serving RESP{} on {}:{}, admin{} on {}:{}, store {}",
                    config.name(),
                    config.role().label(),
                    node.roles.current().epoch(),
                    config.mode().label(),
                    config.tlsPorts().clients() ? " (TLS)" : "",
                    config.bind(),
                    node.port,
                    config.tlsPorts().admin() ? " (HTTPS)" : "",
                    config.adminBindAddress(),
                    node.adminPort,
                    config.store().dataDir().map(d -> "persisted to " + d).orElse("in memory"));
            openReplication(config, node.replPort()).ifPresent(log::warn);
            return node;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NodeStartException("interrupted while starting", e);
        } catch (Exception e) { // Netty rethrows a BindException undeclared
            if (e instanceof KvsException k) throw k;
            throw new NodeStartException("cannot start node '" + config.name() + "': " + e.getMessage(), e);
        }
    }

    /**
     * What a node that replicates without a cluster secret and without TLS leaves open, if it does. The
     * configuration refuses that only beyond loopback (or with {@code insecureReplication}), so a node
     * that starts this way says so.
     */
    static Optional<String> openReplication(NodeConfig config, int replPort) {
        if (config.clusterSecret().isPresent() || config.tls().isPresent()) return Optional.empty();
        List<String> open = new ArrayList<>();
        if (config.role() == Role.BACKUP) {
            open.add("anyone who reaches its replication port " + config.replicationBind() + ":" + replPort
                    + " can act as its primary");
        }
        config.peer()
                .ifPresent(p -> open.add("it sends its writes to " + p + ", unauthenticated and in clear"
                        + (config.role() == Role.BACKUP ? ", once promoted" : "")));
        if (open.isEmpty()) return Optional.empty();
        return Optional.of("replication is open: no clusterSecret and no tls, so " + String.join("; and ", open)
                + ". Set the same clusterSecret (or clusterSecretFile) on both nodes, or tls");
    }

    /**
     * The keyspace notifications' sink: the RESP port's pub/sub. Events come only from commands and active
     * expiry, which start after the port exists.
     */
    private void publishEvent(byte[] channel, byte[] message) {
        resp.pubSub().publish(channel, message);
    }

    /**
     * Why a node must not start with this admin configuration, if it must not: it has a password
     * ({@code requirepass}, {@code users}) or a cluster secret, so its owner means to keep strangers
     * out, but no {@code admin.token}, so every local user, and any local proxy or browser, could change
     * its role. Redis exempts loopback only while no password is set; so does this node, unless {@code
     * admin.trustLoopback} says the operator accepts the risk.
     */
    static Optional<String> openAdminPort(NodeConfig config) {
        AdminConfig admin = config.admin();
        if (admin.token().isPresent() || admin.trustLoopback()) return Optional.empty();
        List<String> guarded = new ArrayList<>();
        if (config.requirepass().isPresent()) guarded.add("requirepass");
        if (!config.users().isEmpty()) guarded.add("users");
        if (config.clusterSecret().isPresent()) guarded.add("a cluster secret");
        if (guarded.isEmpty()) return Optional.empty();
        return Optional.of("node '" + config.name() + "' not started: it has " + String.join(" and ", guarded)
                + " but no admin.token, so every local user (and any local proxy or browser) could promote,"
                + " demote or switch it over through the admin port on " + config.adminBindAddress() + ":"
                + config.adminPort() + ". Set admin.token (or the environment variable "
                + "KVS_ADMIN_TOKEN; make one with openssl rand -hex 32), or accept that risk with"
                + " admin.trustLoopback: true");
    }

    private static TxId lastTxId(KvStore store) {
        TxId[] max = {TxId.ZERO};
        store.forEach((k, v) -> {
            if (v.txId().isAfter(max[0])) max[0] = v.txId();
        });
        return max[0];
    }

    public NodeConfig config() {
        return config;
    }

    /** The bound RESP port. */
    public int port() {
        return port;
    }

    /** The bound replication port of a backup; the configured one on a primary. */
    public int replPort() {
        NodeRole r = roles.current();
        ReplicationServer s = r == null ? null : r.listener();
        return s != null ? s.port() : config.replPort();
    }

    /**
     * The node's store, for in-process tools that observe it (e.g. a benchmark that waits until a value
     * has reached a backup). Writing to it directly bypasses ordering and replication: don't.
     */
    public KvStore store() {
        return store;
    }

    /**
     * The node's hash and set writes by the write protocol ({@link StructureWrites}), for tests of their
     * replication that run without the RESP commands.
     */
    StructureWrites structureWrites() {
        return new StructureWrites(store, writes);
    }

    /** The bound admin HTTP port. */
    public int adminPort() {
        return adminPort;
    }

    /** Blocks until {@link #close()} has finished. */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /** Stops serving and closes the store; idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            shutdown();
            log.info("kvs node '{}' stopped", config.name());
        }
    }

    /** Stops the parts in the reverse order of their start: what serves first, then threads, then the store. */
    private void shutdown() {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        run(expiry::close, failure);
        run(resp::close, failure);
        run(admin::close, failure);
        if (coordination != null) run(coordination::close, failure);
        run(roles::close, failure);
        loops.shutdown(step -> run(step, failure));
        run(metrics::close, failure);
        run(failover::close, failure);
        run(store::close, failure);
        terminated.countDown();
        if (failure.get() != null) log.warn("error while stopping node '{}'", config.name(), failure.get());
    }

    private static void run(Runnable r, AtomicReference<Throwable> failure) {
        try {
            r.run();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
        }
    }
}
