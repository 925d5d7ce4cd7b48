package dev.kvs.server.cli;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.ByteSize;
import dev.kvs.server.config.ConfigException;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.NodeConfigLoader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code kvs server}: runs one node until it is stopped (Ctrl-C, SIGTERM). Settings come from the
 * defaults, then the {@code --config} YAML file, then the flags, each overriding the one before.
 * Exit code 2 for a bad flag or config, 1 if the node cannot start, 0 after a clean stop.
 */
@Command(
        name = "server",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Run a kvs node: RESP client port, replication port and admin HTTP port.",
        descriptionHeading = "%n",
        description = {
            "Settings come from the built-in defaults, then the --config YAML file, then these flags;"
                    + " each overrides the one before. See config/kvs.example.yaml for every field.",
            "",
            "The admin port serves GET /health, GET /status (JSON) and GET /metrics (Prometheus), and the"
                    + " failover actions (POST /promote, /switchover...). Without admin.token only loopback"
                    + " clients may use the actions, with the header X-Kvs-Admin: 1, and a node with"
                    + " --requirepass, users or a cluster secret does not start (unless admin.trustLoopback:"
                    + " true); with one, every request but GET /health needs Authorization: Bearer <token>."
                    + " The environment variable "
                    + ServerCommand.ADMIN_TOKEN_ENV
                    + ", if set, is the token (over the --config file's).",
            "Stop with Ctrl-C or SIGTERM: the node closes its ports and store cleanly."
        },
        optionListHeading = "%nOptions:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:stopped cleanly",
            "1:the node could not start (port in use, store cannot be opened)",
            "2:bad flag or configuration"
        })
public final class ServerCommand implements Callable<Integer> {
    /** Environment variable that sets {@code admin.token}: unlike a flag, other local users cannot see it. */
    public static final String ADMIN_TOKEN_ENV = "KVS_ADMIN_TOKEN";

    /** A started node, as this command sees it. */
    public interface RunningNode {
        int port();

        int replPort();

        int adminPort();

        /** Blocks until the node has stopped. */
        void awaitTermination() throws InterruptedException;

        /** Stops the node; idempotent. */
        void close();
    }

    /** Starts a node; tests replace the real {@link KvsNode#start}. */
    @FunctionalInterface
    public interface NodeStarter {
        RunningNode start(NodeConfig config);
    }

    private final NodeStarter starter;
    private final Function<String, String> env;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "YAML configuration file; flags override its fields (default: none, built-in defaults)")
    private Path configFile;

    @Option(names = "--name", paramLabel = "NAME", description = "This node's name (default: kvs-1)")
    private String name;

    @Option(
            names = "--cluster",
            paramLabel = "NAME",
            description = "Cluster name; both DCs must use the same one (default: kvs)")
    private String cluster;

    @Option(
            names = "--role",
            paramLabel = "primary|backup",
            converter = RoleConverter.class,
            description = "Role the node starts in (default: primary)")
    private Role role;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            description = "Address the ports listen on (the replication and admin ports unless --repl-bind or"
                    + " --admin-bind); 0.0.0.0 for every interface (default: 127.0.0.1)")
    private String bind;

    @Option(
            names = "--repl-bind",
            paramLabel = "ADDRESS",
            description = "Address of the replication port, if not --bind's (default: --bind)")
    private String replBind;

    @Option(
            names = "--admin-bind",
            paramLabel = "ADDRESS",
            description = "Address of the admin port, if not --bind's, e.g. 127.0.0.1 to keep it local (default:"
                    + " --bind)")
    private String adminBind;

    @Option(
            names = "--advertise",
            paramLabel = "HOST:PORT",
            description = "Client (RESP) address this node tells its backup, which names it in -NOTPRIMARY"
                    + " replies; set it when --bind is 0.0.0.0 or clients reach the node by another name"
                    + " (default: --bind and --port; a 0.0.0.0 --bind is replaced by the address the"
                    + " replication connection leaves from)")
    private String advertise;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            description = "RESP client port; 0 picks a free one (default: " + NodeConfig.DEFAULT_PORT + ")")
    private Integer port;

    @Option(
            names = "--repl-port",
            paramLabel = "PORT",
            description = "Replication port the other DC connects to (default: " + NodeConfig.DEFAULT_REPL_PORT + ")")
    private Integer replPort;

    @Option(
            names = "--admin-port",
            paramLabel = "PORT",
            description =
                    "Admin HTTP port: /health, /status, /metrics (default: " + NodeConfig.DEFAULT_ADMIN_PORT + ")")
    private Integer adminPort;

    @Option(
            names = "--peer",
            paramLabel = "HOST:PORT",
            description = "The other DC's replication address (default: none)")
    private String peer;

    @Option(
            names = "--zookeeper",
            paramLabel = "HOST:PORT,...",
            description = "Join the cluster's control plane on this ZooKeeper ensemble (coordination.zookeeper;"
                    + " needs --shard): a primary then serves only under its lease; credentials from"
                    + " coordination.credentials or " + CoordinationConfig.CREDENTIALS_ENV + " (default: none)")
    private String zookeeper;

    @Option(
            names = "--shard",
            paramLabel = "SHARD",
            description = "The shard of the cluster map this node is a member of (coordination.shard)")
    private String shard;

    @Option(
            names = "--dc",
            paramLabel = "DC",
            description = "The datacenter this node runs in (coordination.dc), published in its member znode and"
                    + " shown in /status (default: none)")
    private String dc;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = ModeConverter.class,
            description = {
                "When a write is acknowledged (default: id-first):",
                "  id-first: when the backup acked its key packet;",
                "  id-first-after-reply: at once while the backup keeps acking key packets (the oldest"
                        + " unacked one is younger than the 1 s heartbeat), the key packet sent right after;"
                        + " otherwise, link down or stalled, when its key packet is acked (-NOREPLICA after"
                        + " writeTimeoutMs). A write answered before its key packet left can be lost"
                        + " silently if the primary dies;",
                "  sync: when key and value are stored on the backup;",
                "  async: at once, key and value shipped later"
            })
    private ReplicationMode mode;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Persist the store to files in DIR (default: none, memory only)")
    private Path dataDir;

    @Option(
            names = "--requirepass",
            paramLabel = "PASSWORD",
            description = "Password clients must AUTH with; other local users can see flags, so prefer"
                    + " requirepass in the --config file (default: none)")
    private String requirepass;

    @Option(
            names = "--cluster-secret-file",
            paramLabel = "FILE",
            description = "File holding the cluster secret (at least 16 bytes) both nodes prove on every"
                    + " replication connection; same as clusterSecretFile in the --config file (default: none)")
    private String clusterSecretFile;

    @Option(
            names = "--insecure-replication",
            description = "Replicate without a cluster secret or TLS although the replication port binds a"
                    + " non-loopback address or --peer is not a loopback address: anyone who reaches the"
                    + " replication port could act as this node's peer, whoever answers at the peer's address"
                    + " gets its writes")
    private boolean insecureReplication;

    @Option(
            names = "--max-bulk-bytes",
            paramLabel = "SIZE",
            converter = ByteSizeConverter.class,
            description = "Longest bulk string a client may send, like 64MiB (default: 64MiB)")
    private ByteSize maxBulkBytes;

    @Option(
            names = "--max-entries",
            paramLabel = "COUNT",
            description = "Most records the store holds (default: " + StoreConfig.DEFAULT_MAX_ENTRIES + ")")
    private Long maxEntries;

    @Option(
            names = "--max-bytes",
            paramLabel = "SIZE",
            converter = ByteSizeConverter.class,
            description = "Most bytes of keys plus values the store holds, like 4GiB (default: 1GiB)")
    private ByteSize maxBytes;

    @Option(
            names = "--flow-control",
            paramLabel = "on|off",
            converter = OnOffConverter.class,
            description = {
                "Delay-based flow control of a primary's value traffic (replication.flowControl.enabled):"
                        + " on keeps the queue its values build at the WAN bottleneck near"
                        + " replication.flowControl.targetMs, so key packets do not wait behind values;"
                        + " off sends values as fast as the sockets take them (default: the --config file's"
                        + " setting, else on)"
            })
    private OnOff flowControl;

    @Option(
            names = "--protected-mode",
            paramLabel = "on|off",
            converter = OnOffConverter.class,
            description = {
                "Protected mode (protectedMode): with no requirepass and a non-loopback --bind, client"
                        + " connections from other hosts are refused with -DENIED; off only on a trusted network"
                        + " (default: the --config file's setting, else on)"
            })
    private OnOff protectedMode;

    @Option(
            names = "--warm-up",
            paramLabel = "REQUESTS",
            description = {
                "Requests run through a scratch node in this JVM before the client port opens, so that the"
                        + " request path is compiled when the first client comes (at most "
                        + WarmUp.MAX_SECONDS
                        + " s); 0: none (default: "
                        + DEFAULT_WARM_UP
                        + ")"
            })
    private long warmUp = DEFAULT_WARM_UP;

    /**
     * {@code --warm-up}'s default: none. 400,000 took a fresh node's time to 90% of its small-SET speed
     * from 6-7 s to 3.5-6.25 s on a 2-core VM, and opened its client port 6-8 s later (BENCHMARKS.md,
     * session 44): the operator's choice, for a node that must be fast from its first request.
     */
    public static final long DEFAULT_WARM_UP = 0;

    /** A command that starts a real {@link KvsNode}, after its {@code --warm-up}. */
    public ServerCommand() {
        this.starter = null;
        this.env = System::getenv;
    }

    public ServerCommand(NodeStarter starter) {
        this(starter, System::getenv);
    }

    /**
     * @param env the environment variables ({@code name -> value or null}); tests replace {@link
     *     System#getenv(String)}
     */
    public ServerCommand(NodeStarter starter, Function<String, String> env) {
        this.starter = starter;
        this.env = env;
    }

    @Override
    public Integer call() throws InterruptedException {
        NodeConfig config = config();
        if (warmUp < 0) throw new ConfigException("--warm-up < 0: " + warmUp);
        RunningNode node;
        if (starter != null) {
            node = starter.start(config);
        } else {
            if (warmUp > 0) WarmUp.runOrSkip(warmUp);
            node = startKvsNode(config);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(
                "kvs node '%s' (%s, cluster '%s', mode %s) listening on %s: clients %d, replication %d,"
                        + " admin %s://%s:%d/status%n",
                config.name(),
                config.role().label(),
                config.cluster(),
                config.mode().label(),
                config.bind(),
                node.port(),
                node.replPort(),
                config.tlsPorts().admin() ? "https" : "http",
                config.adminBindAddress(),
                node.adminPort());
        out.flush();
        Thread hook = new Thread(node::close, "kvs-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            node.awaitTermination();
        } finally {
            removeHook(hook);
        }
        return 0;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running or has run
        }
    }

    /**
     * The configuration: defaults, then {@code --config}, then the flags, {@link #ADMIN_TOKEN_ENV} and
     * {@link CoordinationConfig#CREDENTIALS_ENV}.
     *
     * @throws ConfigException naming the bad field and its value
     */
    NodeConfig config() {
        NodeConfig base =
                configFile == null ? NodeConfigLoader.build(NodeConfig.builder()) : NodeConfigLoader.load(configFile);
        NodeConfig.Builder b = base.toBuilder();
        if (name != null) b.name(name);
        if (cluster != null) b.cluster(cluster);
        if (role != null) b.role(role);
        if (bind != null) b.bind(bind);
        if (replBind != null) b.replBind(replBind);
        if (adminBind != null) b.adminBind(adminBind);
        if (advertise != null) b.advertise(advertise);
        if (port != null) b.port(port);
        if (replPort != null) b.replPort(replPort);
        if (adminPort != null) b.adminPort(adminPort);
        if (peer != null) b.peer(peer);
        if (mode != null) b.mode(mode);
        if (requirepass != null) b.requirepass(requirepass);
        if (insecureReplication) b.insecureReplication(true);
        if (protectedMode != null) b.protectedMode(protectedMode == OnOff.ON);
        try {
            if (clusterSecretFile != null) b.clusterSecret(NodeConfigLoader.readSecretFile(clusterSecretFile));
            if (maxBulkBytes != null) b.maxBulkBytes(maxBulkBytes.toInt("maxBulkBytes"));
            StoreConfig.Builder store = StoreConfig.builder().from(base.store());
            if (maxEntries != null) store.maxEntries(maxEntries);
            if (maxBytes != null) store.maxBytes(maxBytes.bytes());
            if (dataDir != null) store.dataDir(dataDir);
            b.store(store.build());
            if (flowControl != null) b.replication(withFlowControl(base.replication(), flowControl == OnOff.ON));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
        try {
            coordination(base.coordination().orElse(null)).ifPresent(b::coordination);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
        String token = env.apply(ADMIN_TOKEN_ENV);
        if (token != null && !token.isEmpty()) {
            try {
                b.admin(base.admin().withToken(token));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(ADMIN_TOKEN_ENV + ": " + e.getMessage(), e);
            }
        }
        return NodeConfigLoader.build(b);
    }

    /**
     * The {@code coordination:} section with {@code --zookeeper}, {@code --shard}, {@code --dc} and {@link
     * CoordinationConfig#CREDENTIALS_ENV} over the file's; empty if neither names an ensemble.
     */
    private Optional<CoordinationConfig> coordination(CoordinationConfig file) {
        if (file == null && zookeeper == null) {
            if (shard != null) throw new IllegalArgumentException("--shard " + shard + " needs --zookeeper");
            if (dc != null) throw new IllegalArgumentException("--dc " + dc + " needs --zookeeper");
            return Optional.empty();
        }
        if (shard == null && (file == null || file.shard() == null)) {
            throw new IllegalArgumentException("--zookeeper " + zookeeper + " needs --shard");
        }
        CoordinationConfig c = new CoordinationConfig(
                zookeeper != null ? zookeeper : file.zookeeper(),
                file == null ? Optional.empty() : file.credentials(),
                file == null ? CoordinationConfig.DEFAULT_SESSION_TIMEOUT : file.sessionTimeout(),
                shard != null ? shard : file == null ? null : file.shard(),
                dc != null ? dc : file == null ? "" : file.dc());
        String credentials = env.apply(CoordinationConfig.CREDENTIALS_ENV);
        return Optional.of(credentials == null || credentials.isEmpty() ? c : c.withCredentials(credentials));
    }

    /** {@code r} with flow control switched on or off, every other setting kept. */
    static ReplicatorConfig withFlowControl(ReplicatorConfig r, boolean on) {
        return r.withFlowControl(r.flowControl().withEnabled(on));
    }

    private static RunningNode startKvsNode(NodeConfig config) {
        KvsNode node = KvsNode.start(config);
        return new RunningNode() {
            @Override
            public int port() {
                return node.port();
            }

            @Override
            public int replPort() {
                return node.replPort();
            }

            @Override
            public int adminPort() {
                return node.adminPort();
            }

            @Override
            public void awaitTermination() throws InterruptedException {
                node.awaitTermination();
            }

            @Override
            public void close() {
                node.close();
            }
        };
    }

    static final class RoleConverter implements ITypeConverter<Role> {
        @Override
        public Role convert(String value) {
            try {
                return Role.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    static final class ModeConverter implements ITypeConverter<ReplicationMode> {
        @Override
        public ReplicationMode convert(String value) {
            try {
                return ReplicationMode.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A switch; not a {@code Boolean}, which picocli would read as {@code true|false}. */
    enum OnOff {
        ON,
        OFF
    }

    /** {@code on} or {@code off}, in any case. */
    static final class OnOffConverter implements ITypeConverter<OnOff> {
        @Override
        public OnOff convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "on" -> OnOff.ON;
                case "off" -> OnOff.OFF;
                default -> throw new TypeConversionException("not on or off: " + value);
            };
        }
    }

    static final class ByteSizeConverter implements ITypeConverter<ByteSize> {
        @Override
        public ByteSize convert(String value) {
            try {
                return ByteSize.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
