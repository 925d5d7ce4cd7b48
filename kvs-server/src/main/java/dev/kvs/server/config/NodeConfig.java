package dev.kvs.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kvs.cluster.NodeIds;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationEnds;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.replication.TlsFiles;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Immutable, validated configuration of one node. Built with {@link #builder()} (or read from YAML by
 * the command line); every check quotes the field and the value.
 *
 * @param cluster cluster name, exchanged in the replication handshake
 * @param name this node's name
 * @param role the role the node starts in
 * @param bind address the client, replication and admin ports listen on
 * @param port RESP client port (0: ephemeral)
 * @param replPort replication port (0: ephemeral)
 * @param adminPort admin HTTP port (0: ephemeral)
 * @param peer the other DC's replication address {@code host:port}, if any
 * @param mode default replication mode of writes
 * @param requirepass the {@code default} user's password ({@code AUTH password}), if any; that user
 *     has role admin (see {@link UserConfig})
 * @param maxBulkBytes longest bulk string a client may send
 * @param maxMultibulkLength most elements in one command
 * @param maxClients most client connections at once
 * @param timeoutSeconds close a client connection idle (no command, no reply owed) this long; 0: never
 *     (Redis {@code timeout})
 * @param authTimeoutSeconds with {@code requirepass} or {@code users}, close a connection that has
 *     not authenticated this long after connecting, so that silent sockets cannot hold {@code
 *     maxClients}; 0: never
 * @param clientOutputBufferLimit most bytes of replies queued for one client (computed but not yet
 *     sent, e.g. behind a write waiting for replication, or to a client that does not read); over
 *     it the connection is closed; 0: no limit (Redis {@code client-output-buffer-limit} hard limit)
 * @param clientOutputBufferLimitPubsub Redis's {@code client-output-buffer-limit} for the {@code pubsub}
 *     class, as Redis writes it ({@code "32mb 8mb 60"}: hard limit, soft limit, seconds): a subscriber
 *     with more pub/sub messages queued than the hard limit, or than the soft one for that many seconds,
 *     is disconnected; a 0 turns that part off; {@code CONFIG SET} may change it
 * @param bulkPreallocBytes node-wide budget of bytes the client port's decoders may allocate for bulk
 *     strings ahead of their arrival (a large argument gets its final buffer when its header arrives,
 *     as Redis does, instead of a doubling one); past it, and before authentication, buffers grow as
 *     bytes arrive; 0: never preallocate
 * @param maxClientMemory node-wide bound on the bytes client connections hold: requests being
 *     received (query buffers) plus replies not yet sent; from 15/16 of it the biggest
 *     unauthenticated, then idle, connections are closed (Redis {@code maxmemory-clients}); 0: no bound
 * @param protectedMode with no {@code requirepass}, no {@code users} and a non-loopback {@code bind},
 *     refuse client connections from other hosts with {@code -DENIED} (Redis {@code protected-mode})
 * @param ioThreads Netty event-loop threads for client connections (0: one per core)
 * @param ioPackConnections client connections an event loop takes before a new one goes to the next loop; once
 *     each serves this many, new connections go to the loop serving the fewest (1: spread from the first)
 * @param store the store's limits and data directory
 * @param replication the primary's replication limits (batching, bounds, timeouts)
 * @param replicationListener a backup's replication listener: its handshake slots and authentication
 *     deadline (its {@code maxFrameBytes} is {@code replication}'s)
 * @param failover read policy and timeouts for unfinished keys after promotion
 * @param clusterSecret the secret both nodes prove to each other on every replication connection
 *     (at least 16 bytes), if any
 * @param insecureReplication true to let a node whose replication port binds a non-loopback address,
 *     or whose {@code peer} is not a loopback address, replicate without a cluster secret or TLS
 *     (anyone who reaches its replication port could then act as its peer, and anyone who answers at
 *     the peer's address would receive its writes)
 * @param tls this node's certificate, key and trusted CA: replication connections then use mutual TLS
 * @param admin who may use the admin HTTP port: its bearer token, and whether reads are open
 * @param users users of the client port besides {@code requirepass}'s {@code default} user (see
 *     {@link UserConfig}); names are unique, and a user named {@code default} replaces {@code
 *     requirepass} (set one or the other)
 * @param replBind address the replication port listens on, if not {@code bind}
 * @param adminBind address the admin port listens on, if not {@code bind}
 * @param tlsPorts whether the client and admin ports speak TLS (with {@code tls}'s certificate), and
 *     whether they ask clients for a certificate
 * @param advertise the client (RESP) address, {@code host:port}, a primary tells its backup in the
 *     replication handshake so that the backup names it in {@code -NOTPRIMARY}; if empty, {@code
 *     bind} and the bound port (a wildcard {@code bind} is replaced by the address the replication
 *     connection leaves from)
 * @param expiry how often and how much active expiry removes keys whose TTL has passed
 * @param coordination how the node joins its cluster on ZooKeeper ({@code coordination:}); empty: it
 *     is one node of a pair, with no control plane, as before
 * @param notifyKeyspaceEvents the keyspace notifications published at start, in Redis's letters
 *     ({@code notify-keyspace-events}, e.g. {@code KEA} or {@code Ex}); empty: none (the default).
 *     {@code CONFIG SET notify-keyspace-events} changes them while the node runs
 */
public record NodeConfig(
        String cluster,
        String name,
        Role role,
        String bind,
        int port,
        int replPort,
        int adminPort,
        Optional<String> peer,
        ReplicationMode mode,
        Optional<String> requirepass,
        int maxBulkBytes,
        int maxMultibulkLength,
        int maxClients,
        int timeoutSeconds,
        int authTimeoutSeconds,
        long clientOutputBufferLimit,
        String clientOutputBufferLimitPubsub,
        long bulkPreallocBytes,
        long maxClientMemory,
        boolean protectedMode,
        int ioThreads,
        int ioPackConnections,
        StoreConfig store,
        ReplicatorConfig replication,
        BackupConfig replicationListener,
        FailoverConfig failover,
        Optional<String> clusterSecret,
        boolean insecureReplication,
        Optional<TlsFiles> tls,
        AdminConfig admin,
        List<UserConfig> users,
        TlsPortsConfig tlsPorts,
        Optional<String> replBind,
        Optional<String> adminBind,
        Optional<String> advertise,
        ExpiryConfig expiry,
        Optional<CoordinationConfig> coordination,
        String notifyKeyspaceEvents) {

    public static final int DEFAULT_PORT = 6380;
    public static final int DEFAULT_REPL_PORT = 7380;
    public static final int DEFAULT_ADMIN_PORT = 8380;
    public static final int DEFAULT_MAX_BULK_BYTES = 64 * 1024 * 1024;
    public static final int DEFAULT_AUTH_TIMEOUT_SECONDS = 10;
    public static final long DEFAULT_CLIENT_OUTPUT_BUFFER_LIMIT = 256L * 1024 * 1024;
    /** Smallest non-zero {@link #clientOutputBufferLimit}: below it ordinary replies would close clients. */
    public static final long MIN_CLIENT_OUTPUT_BUFFER_LIMIT = 1024 * 1024;

    /** Redis's default {@link #clientOutputBufferLimitPubsub}. */
    public static final String DEFAULT_CLIENT_OUTPUT_BUFFER_LIMIT_PUBSUB = "32mb 8mb 60";

    public static final long DEFAULT_BULK_PREALLOC_BYTES = 64L * 1024 * 1024;
    /**
     * Default {@link #maxClientMemory}, in percent of the JVM's maximum heap: 9,800 unauthenticated
     * connections at Redis's pre-auth caps held 1.66 GB of a 2 GB heap before the bound existed.
     */
    public static final int DEFAULT_MAX_CLIENT_MEMORY_PERCENT = 25;
    /** Connections an event loop takes before the next one is used: see {@link #ioPackConnections}. */
    public static final int DEFAULT_IO_PACK_CONNECTIONS = 4;

    public NodeConfig {
        requireText("cluster", cluster);
        if (coordination == null) throw new IllegalArgumentException("coordination == null (use Optional.empty())");
        if (coordination.isPresent() && !cluster.matches("[A-Za-z0-9_.-]{1,64}")) {
            // it names the cluster's znode, /kvs/<cluster>
            throw new IllegalArgumentException(
                    "cluster must be 1-64 of [A-Za-z0-9_.-] with coordination (it names /kvs/<cluster>): " + cluster);
        }
        requireText("name", name);
        if (role == null) throw new IllegalArgumentException("role is missing");
        requireText("bind", bind);
        checkPort("port", port);
        checkPort("replPort", replPort);
        checkPort("adminPort", adminPort);
        if (peer == null) throw new IllegalArgumentException("peer == null (use Optional.empty())");
        peer.ifPresent(NodeConfig::checkHostPort);
        if (mode == null) throw new IllegalArgumentException("mode is missing");
        if (requirepass == null) throw new IllegalArgumentException("requirepass == null (use Optional.empty())");
        requirepass.ifPresent(p -> {
            if (p.isEmpty()) throw new IllegalArgumentException("requirepass is empty: \"\"");
        });
        if (maxBulkBytes <= 0) throw new IllegalArgumentException("maxBulkBytes <= 0: " + maxBulkBytes);
        if (maxMultibulkLength <= 0)
            throw new IllegalArgumentException("maxMultibulkLength <= 0: " + maxMultibulkLength);
        if (maxClients <= 0) throw new IllegalArgumentException("maxClients <= 0: " + maxClients);
        if (timeoutSeconds < 0) throw new IllegalArgumentException("timeoutSeconds < 0: " + timeoutSeconds);
        if (authTimeoutSeconds < 0) throw new IllegalArgumentException("authTimeoutSeconds < 0: " + authTimeoutSeconds);
        if (clientOutputBufferLimit != 0 && clientOutputBufferLimit < MIN_CLIENT_OUTPUT_BUFFER_LIMIT) {
            throw new IllegalArgumentException(
                    "clientOutputBufferLimit is neither 0 (no limit) nor at least 1MiB: " + clientOutputBufferLimit);
        }
        if (clientOutputBufferLimitPubsub == null
                || !clientOutputBufferLimitPubsub
                        .trim()
                        .matches("(?i)\\d{1,15}(b|k|kb|m|mb|g|gb)?\\s+\\d{1,15}(b|k|kb|m|mb|g|gb)?\\s+\\d{1,15}")) {
            throw new IllegalArgumentException(
                    "clientOutputBufferLimitPubsub is not '<hard> <soft> <seconds>' (e.g. '32mb 8mb 60'): "
                            + clientOutputBufferLimitPubsub);
        }
        if (bulkPreallocBytes < 0) throw new IllegalArgumentException("bulkPreallocBytes < 0: " + bulkPreallocBytes);
        if (maxClientMemory < 0) throw new IllegalArgumentException("maxClientMemory < 0: " + maxClientMemory);
        if (ioThreads < 0) throw new IllegalArgumentException("ioThreads < 0: " + ioThreads);
        if (ioPackConnections < 1) throw new IllegalArgumentException("ioPackConnections < 1: " + ioPackConnections);
        if (store == null) throw new IllegalArgumentException("store is missing");
        if (replication == null) throw new IllegalArgumentException("replication is missing");
        if (replicationListener == null) throw new IllegalArgumentException("replicationListener is missing");
        if (failover == null) throw new IllegalArgumentException("failover is missing");
        if (coordination.isPresent() && !failover.autoPromoteAfter().isZero()) {
            // the timer has no witness: a cut link with both sides alive would give two primaries
            throw new IllegalArgumentException("failover.autoPromoteAfter ("
                    + failover.autoPromoteAfter().toMillis() + " ms) and coordination cannot both be set: with"
                    + " coordination a backup is promoted only once ZooKeeper has witnessed its primary's death"
                    + " (the coordinator) or by /promote through the cluster map, while the timer promotes without a"
                    + " witness. Remove failover.autoPromoteAfter (or set it to 0), or remove coordination");
        }
        if (expiry == null) throw new IllegalArgumentException("expiry is missing");
        if (notifyKeyspaceEvents == null || !notifyKeyspaceEvents.matches("[Ag$lshzxeKEtmdn]*")) {
            throw new IllegalArgumentException("notifyKeyspaceEvents has a letter that is not one of"
                    + " Ag$lshzxeKEtmdn: \"" + notifyKeyspaceEvents + "\"");
        }
        if (clusterSecret == null) throw new IllegalArgumentException("clusterSecret == null (use Optional.empty())");
        clusterSecret.ifPresent(secret -> ReplicationEnds.secret(secret, cluster)); // checks its length
        boolean replicates = role == Role.BACKUP || peer.isPresent();
        if (tls == null) throw new IllegalArgumentException("tls == null (use Optional.empty())");
        if (admin == null) throw new IllegalArgumentException("admin is missing");
        users = checkUsers(users, requirepass.isPresent());
        if (tlsPorts == null) throw new IllegalArgumentException("tlsPorts is missing");
        if (replBind == null || adminBind == null) {
            throw new IllegalArgumentException("replBind/adminBind == null (use Optional.empty())");
        }
        if (advertise == null) throw new IllegalArgumentException("advertise == null (use Optional.empty())");
        advertise.ifPresent(a -> checkHostPort("advertise", a));
        replBind.ifPresent(b -> requireText("replBind", b));
        adminBind.ifPresent(b -> requireText("adminBind", b));
        if (tlsPorts.any() && tls.isEmpty()) {
            throw new IllegalArgumentException("tls." + (tlsPorts.clients() ? "clients" : "admin")
                    + " is true but tls has no certFile, keyFile and caFile");
        }
        if (replicates && clusterSecret.isEmpty() && tls.isEmpty() && !insecureReplication) {
            if (!isLoopback(replBind.orElse(bind))) {
                throw new IllegalArgumentException("the replication port binds " + replBind.orElse(bind)
                        + ", not a loopback address, and replication has no"
                        + " clusterSecret and no tls: anyone who reaches the replication port could act as this"
                        + " node's peer. Set the same clusterSecret (or clusterSecretFile) on both nodes, or tls, or"
                        + " insecureReplication: true to accept that");
            }
            if (peer.isPresent() && !isLoopbackLiteral(peerHost(peer.get()))) {
                throw new IllegalArgumentException("peer " + peer.get() + " is not a loopback address, and"
                        + " replication has no clusterSecret and no tls: this node would send its writes to"
                        + " whoever answers at that address, unauthenticated and in clear. Set the same"
                        + " clusterSecret (or clusterSecretFile) on both nodes, or tls, or insecureReplication:"
                        + " true to accept that");
            }
        }
    }

    /**
     * The replication rule's test of a peer: only {@code localhost} and loopback IP literals count, so
     * that neither a DNS lookup at start nor a name that resolves elsewhere later decides it.
     */
    private static boolean isLoopbackLiteral(String host) {
        if (host.equals("localhost")) return true;
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean ipv4 = literal.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean ipv6 = literal.indexOf(':') >= 0 && literal.matches("[0-9A-Fa-f:.]+");
        return (ipv4 || ipv6) && isLoopback(literal); // a literal is parsed, never looked up
    }

    private static String peerHost(String hostPort) {
        return hostPort.substring(0, hostPort.lastIndexOf(':'));
    }

    /**
     * True if client connections must log in: {@code requirepass} or {@code users} is set. Otherwise
     * every connection is the {@code default} user, with every right (as Redis with no password).
     */
    public boolean clientAuthRequired() {
        return requirepass.isPresent() || !users.isEmpty();
    }

    private static List<UserConfig> checkUsers(List<UserConfig> users, boolean requirepass) {
        if (users == null) throw new IllegalArgumentException("users == null (use List.of())");
        Set<String> names = new HashSet<>();
        for (UserConfig u : users) {
            if (u == null) throw new IllegalArgumentException("users holds null");
            if (!names.add(u.name()))
                throw new IllegalArgumentException("users: user " + u.name() + " is listed twice");
            if (requirepass && u.name().equals(UserConfig.DEFAULT_USER)) {
                throw new IllegalArgumentException("users: a user named default and requirepass are both set;"
                        + " requirepass is the default user's password: set one or the other");
            }
        }
        return List.copyOf(users);
    }

    /** How replication connections are secured, as this configuration says (reads the TLS files). */
    public ReplicationEnds.Security linkSecurity() {
        return ReplicationEnds.security(replicationSecret(), tls);
    }

    /** The address the replication port listens on. */
    public String replicationBind() {
        return replBind.orElse(bind);
    }

    /** The address the admin port listens on. */
    public String adminBindAddress() {
        return adminBind.orElse(bind);
    }

    /** The cluster secret as the replication code takes it, if one is set. */
    public Optional<ReplicationEnds.Secret> replicationSecret() {
        return clusterSecret.map(s -> ReplicationEnds.secret(s, cluster));
    }

    private static boolean isLoopback(String host) {
        if (host.equals("localhost")) return true;
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static void requireText(String field, String value) {
        if (value == null || value.isBlank())
            throw new IllegalArgumentException(field + " is empty: \"" + value + "\"");
    }

    private static void checkPort(String field, int port) {
        if (port < 0 || port > 65535) throw new IllegalArgumentException(field + " is not in 0..65535: " + port);
    }

    /** Checks the {@code peer}'s {@code host:port}, returning it unchanged. */
    public static String checkHostPort(String hostPort) {
        return checkHostPort("peer", hostPort);
    }

    /**
     * The shard this node is a member of ({@code coordination.shard}), empty without coordination: sent
     * and checked in the replication handshake, so that a miswired node cannot attach to another shard.
     */
    public String shard() {
        return coordination.map(CoordinationConfig::shard).orElse("");
    }

    /**
     * This node's id in the cluster map and in {@code CLUSTER} replies: the SHA-1 hex of the cluster and
     * node names ({@link NodeIds#of}, which says why it is derived, not kept).
     */
    public String nodeId() {
        return NodeIds.of(cluster, name);
    }

    /** Checks {@code host:port}, returning it unchanged; errors name {@code field}. */
    public static String checkHostPort(String field, String hostPort) {
        int colon = hostPort == null ? -1 : hostPort.lastIndexOf(':');
        if (colon <= 0) throw new IllegalArgumentException(field + " is not HOST:PORT: " + hostPort);
        int p;
        try {
            p = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " is not HOST:PORT: " + hostPort);
        }
        if (p <= 0 || p > 65535) throw new IllegalArgumentException(field + " port is not in 1..65535: " + hostPort);
        return hostPort;
    }

    /**
     * The client address a primary advertises to its backup: {@link #advertise}, else {@code
     * bind:boundPort} (bracketed if IPv6); null if {@code boundPort} is 0 (not bound yet).
     */
    public String advertisedClientAddress(int boundPort) {
        if (advertise.isPresent()) return advertise.get();
        if (boundPort == 0) return null;
        return (bind.indexOf(':') >= 0 && !bind.startsWith("[") ? "[" + bind + "]" : bind) + ":" + boundPort;
    }

    /** The peer's replication address (unresolved: resolved when dialled), if a peer is set. */
    public Optional<InetSocketAddress> peerAddress() {
        return peer.map(p -> {
            int colon = p.lastIndexOf(':');
            return InetSocketAddress.createUnresolved(p.substring(0, colon), Integer.parseInt(p.substring(colon + 1)));
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().from(this);
    }

    /**
     * {@code percent} of this JVM's maximum heap ({@code -Xmx}), in bytes: how {@code maxClientMemory:
     * 25%} is read.
     *
     * @throws IllegalArgumentException if {@code percent} is not within 0..100
     */
    public static long percentOfHeap(int percent) {
        if (percent < 0 || percent > 100) throw new IllegalArgumentException("percent not within 0..100: " + percent);
        return Runtime.getRuntime().maxMemory() / 100 * percent;
    }

    /**
     * Builds a {@link NodeConfig}; defaults are those of a lone primary on the default ports. The methods
     * marked {@link JsonProperty} set the YAML settings of the same name and type, which {@link
     * NodeConfigLoader} reads straight into a builder (its subclass reads the settings whose YAML form
     * differs, such as byte sizes). Not extended outside this package.
     */
    public static class Builder {
        private String cluster = "kvs";
        private String name = "kvs-1";
        private Role role = Role.PRIMARY;
        private String bind = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private int replPort = DEFAULT_REPL_PORT;
        private int adminPort = DEFAULT_ADMIN_PORT;
        private String peer;
        private ReplicationMode mode = ReplicationMode.ID_FIRST;
        private String requirepass;
        private int maxBulkBytes = DEFAULT_MAX_BULK_BYTES;
        private int maxMultibulkLength = 1024 * 1024;
        private int maxClients = 10_000;
        private int timeoutSeconds = 0;
        private int authTimeoutSeconds = DEFAULT_AUTH_TIMEOUT_SECONDS;
        private long clientOutputBufferLimit = DEFAULT_CLIENT_OUTPUT_BUFFER_LIMIT;
        private String clientOutputBufferLimitPubsub = DEFAULT_CLIENT_OUTPUT_BUFFER_LIMIT_PUBSUB;
        private long bulkPreallocBytes = DEFAULT_BULK_PREALLOC_BYTES;
        private long maxClientMemory = percentOfHeap(DEFAULT_MAX_CLIENT_MEMORY_PERCENT);
        private boolean protectedMode = true;
        private int ioThreads = 0;
        private int ioPackConnections = DEFAULT_IO_PACK_CONNECTIONS;
        private StoreConfig store = StoreConfig.defaults();
        private ReplicatorConfig replication = ReplicatorConfig.defaults();
        private BackupConfig replicationListener = BackupConfig.defaults();
        private FailoverConfig failover = FailoverConfig.defaults();
        private ExpiryConfig expiry = ExpiryConfig.defaults();
        private String clusterSecret;
        private CoordinationConfig coordination;
        private boolean insecureReplication;
        private TlsFiles tls;
        private AdminConfig admin = AdminConfig.defaults();
        private List<UserConfig> users = new ArrayList<>();
        private TlsPortsConfig tlsPorts = TlsPortsConfig.defaults();
        private String replBind;
        private String adminBind;
        private String advertise;
        private String notifyKeyspaceEvents = "";

        Builder() {}

        @JsonProperty
        public Builder cluster(String v) {
            cluster = v;
            return this;
        }

        @JsonProperty
        public Builder name(String v) {
            name = v;
            return this;
        }

        public Builder role(Role v) {
            role = v;
            return this;
        }

        @JsonProperty
        public Builder bind(String v) {
            bind = v;
            return this;
        }

        @JsonProperty
        public Builder port(int v) {
            port = v;
            return this;
        }

        @JsonProperty
        public Builder replPort(int v) {
            replPort = v;
            return this;
        }

        @JsonProperty
        public Builder adminPort(int v) {
            adminPort = v;
            return this;
        }

        /** {@code null} for none. */
        public Builder peer(String v) {
            peer = v;
            return this;
        }

        public Builder mode(ReplicationMode v) {
            mode = v;
            return this;
        }

        /** {@code null} for none. */
        @JsonProperty
        public Builder requirepass(String v) {
            requirepass = v;
            return this;
        }

        public Builder maxBulkBytes(int v) {
            maxBulkBytes = v;
            return this;
        }

        @JsonProperty
        public Builder maxMultibulkLength(int v) {
            maxMultibulkLength = v;
            return this;
        }

        @JsonProperty
        public Builder maxClients(int v) {
            maxClients = v;
            return this;
        }

        /** 0: idle clients are never closed. */
        @JsonProperty
        public Builder timeoutSeconds(int v) {
            timeoutSeconds = v;
            return this;
        }

        /** 0: unauthenticated clients are never closed for it. Only applies with {@code requirepass} or users. */
        @JsonProperty
        public Builder authTimeoutSeconds(int v) {
            authTimeoutSeconds = v;
            return this;
        }

        /** Bytes; 0: no limit. */
        public Builder clientOutputBufferLimit(long v) {
            clientOutputBufferLimit = v;
            return this;
        }

        /** Redis's form, {@code "32mb 8mb 60"}: hard limit, soft limit, seconds above the soft one. */
        public Builder clientOutputBufferLimitPubsub(String v) {
            clientOutputBufferLimitPubsub = v;
            return this;
        }

        /** Bytes; 0: bulk buffers always grow as their bytes arrive. */
        public Builder bulkPreallocBytes(long v) {
            bulkPreallocBytes = v;
            return this;
        }

        /** Bytes; 0: no bound. See {@link #percentOfHeap} for a share of the heap. */
        public Builder maxClientMemory(long v) {
            maxClientMemory = v;
            return this;
        }

        @JsonProperty
        public Builder protectedMode(boolean v) {
            protectedMode = v;
            return this;
        }

        @JsonProperty
        public Builder ioThreads(int v) {
            ioThreads = v;
            return this;
        }

        @JsonProperty
        public Builder ioPackConnections(int v) {
            ioPackConnections = v;
            return this;
        }

        public Builder failover(FailoverConfig v) {
            failover = v;
            return this;
        }

        /** Active expiry's rounds (default {@link ExpiryConfig#defaults()}). */
        public Builder expiry(ExpiryConfig v) {
            expiry = v;
            return this;
        }

        public Builder admin(AdminConfig v) {
            admin = v;
            return this;
        }

        /** Replaces the users of the client port (see {@link UserConfig}). */
        public Builder users(List<UserConfig> v) {
            users = new ArrayList<>(v);
            return this;
        }

        /** Adds a user of the client port. */
        public Builder user(UserConfig v) {
            users.add(v);
            return this;
        }

        public Builder replication(ReplicatorConfig v) {
            replication = v;
            return this;
        }

        public Builder replicationListener(BackupConfig v) {
            replicationListener = v;
            return this;
        }

        public Builder store(StoreConfig v) {
            store = v;
            return this;
        }

        /** Sets the store's data directory, keeping its other limits. {@code null}: memory only. */
        public Builder dataDir(Path dir) {
            store = StoreConfig.builder().from(store).dataDir(dir).build();
            return this;
        }

        /** {@code null} for none: the node is one of a pair, without ZooKeeper. */
        public Builder coordination(CoordinationConfig v) {
            coordination = v;
            return this;
        }

        /** {@code null} for none. At least 16 bytes; both nodes of a cluster must use the same one. */
        public Builder clusterSecret(String v) {
            clusterSecret = v;
            return this;
        }

        /** Replicate without a cluster secret even though the ports bind a non-loopback address. */
        @JsonProperty
        public Builder insecureReplication(boolean v) {
            insecureReplication = v;
            return this;
        }

        /** {@code null} for none: then replication connections are plain TCP. */
        public Builder tls(TlsFiles v) {
            tls = v;
            return this;
        }

        /** TLS on the client and admin ports (default: both plain); needs {@link #tls(TlsFiles)}. */
        /** {@code null}: the replication port listens on {@code bind}. */
        @JsonProperty
        public Builder replBind(String v) {
            replBind = v;
            return this;
        }

        /** {@code null}: the admin port listens on {@code bind}. */
        @JsonProperty
        public Builder adminBind(String v) {
            adminBind = v;
            return this;
        }

        /** {@code null}: advertise {@code bind} and the bound client port. */
        public Builder advertise(String v) {
            advertise = v;
            return this;
        }

        /** Redis's {@code notify-keyspace-events} letters; {@code ""}: no notifications. */
        @JsonProperty
        public Builder notifyKeyspaceEvents(String v) {
            notifyKeyspaceEvents = v;
            return this;
        }

        public Builder tlsPorts(TlsPortsConfig v) {
            tlsPorts = v;
            return this;
        }

        public Builder from(NodeConfig c) {
            cluster = c.cluster;
            name = c.name;
            role = c.role;
            bind = c.bind;
            port = c.port;
            replPort = c.replPort;
            adminPort = c.adminPort;
            peer = c.peer.orElse(null);
            mode = c.mode;
            requirepass = c.requirepass.orElse(null);
            maxBulkBytes = c.maxBulkBytes;
            maxMultibulkLength = c.maxMultibulkLength;
            maxClients = c.maxClients;
            timeoutSeconds = c.timeoutSeconds;
            authTimeoutSeconds = c.authTimeoutSeconds;
            clientOutputBufferLimit = c.clientOutputBufferLimit;
            clientOutputBufferLimitPubsub = c.clientOutputBufferLimitPubsub;
            bulkPreallocBytes = c.bulkPreallocBytes;
            maxClientMemory = c.maxClientMemory;
            protectedMode = c.protectedMode;
            ioThreads = c.ioThreads;
            ioPackConnections = c.ioPackConnections;
            store = c.store;
            replication = c.replication;
            replicationListener = c.replicationListener;
            failover = c.failover;
            expiry = c.expiry;
            clusterSecret = c.clusterSecret.orElse(null);
            insecureReplication = c.insecureReplication;
            tls = c.tls.orElse(null);
            admin = c.admin;
            users = new ArrayList<>(c.users);
            tlsPorts = c.tlsPorts;
            replBind = c.replBind.orElse(null);
            adminBind = c.adminBind.orElse(null);
            advertise = c.advertise.orElse(null);
            coordination = c.coordination.orElse(null);
            notifyKeyspaceEvents = c.notifyKeyspaceEvents;
            return this;
        }

        /** @throws IllegalArgumentException naming the first bad field and its value */
        public NodeConfig build() {
            return new NodeConfig(
                    cluster,
                    name,
                    role,
                    bind,
                    port,
                    replPort,
                    adminPort,
                    Optional.ofNullable(peer),
                    mode,
                    Optional.ofNullable(requirepass),
                    maxBulkBytes,
                    maxMultibulkLength,
                    maxClients,
                    timeoutSeconds,
                    authTimeoutSeconds,
                    clientOutputBufferLimit,
                    clientOutputBufferLimitPubsub,
                    bulkPreallocBytes,
                    maxClientMemory,
                    protectedMode,
                    ioThreads,
                    ioPackConnections,
                    store,
                    replication,
                    replicationListener,
                    failover,
                    Optional.ofNullable(clusterSecret),
                    insecureReplication,
                    Optional.ofNullable(tls),
                    admin,
                    users,
                    tlsPorts,
                    Optional.ofNullable(replBind),
                    Optional.ofNullable(adminBind),
                    Optional.ofNullable(advertise),
                    expiry,
                    Optional.ofNullable(coordination),
                    notifyKeyspaceEvents);
        }
    }
}
