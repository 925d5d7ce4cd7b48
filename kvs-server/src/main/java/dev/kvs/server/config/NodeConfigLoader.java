package dev.kvs.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.NumberDeserializers;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.replication.TlsFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads a node's YAML configuration file into a validated {@link NodeConfig}. Fields left out keep
 * the defaults of {@link NodeConfig#builder()}; unknown fields are errors. Every problem is reported
 * as one {@link ConfigException} naming the field and quoting the value. Thread-safe.
 *
 * <p>The fields are those of {@link NodeConfig} ({@code cluster, name, role, bind, port, replPort,
 * adminPort, peer, mode, requirepass, maxBulkBytes, maxMultibulkLength, maxClients, timeoutSeconds,
 * authTimeoutSeconds, clientOutputBufferLimit, clientOutputBufferLimitPubsub, bulkPreallocBytes, maxClientMemory, protectedMode, ioThreads,
 * ioPackConnections, clusterSecret, insecureReplication, notifyKeyspaceEvents}; {@code clusterSecretFile} reads the secret from a file), the {@code tls:}
 * section ({@code certFile, keyFile, caFile, peerName, clients, admin, clientAuth}) plus
 * {@code dataDir}, {@code store: {maxEntries, maxBytes, maxKeyBytes, maxValueBytes}}, the {@code
 * replication:} section (with its {@code flowControl:} subsection), the {@code failover:} section, the
 * {@code coordination:} section ({@code zookeeper, credentials, sessionTimeoutMs, shard, dc}) and
 * the {@code admin:} section ({@code token, openReads, respCommands, trustLoopback, allowedHosts,
 * maxConnections, headTimeoutMs, idleTimeoutMs}) and the {@code users:} list
 * ({@code name, password | passwordSha256, role}; plain passwords are hashed as they are read).
 * Byte sizes take a number or a {@link ByteSize} string like {@code 64MiB}. See {@code
 * config/kvs.example.yaml}.
 */
public final class NodeConfigLoader {
    private static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // a field left empty keeps its default, whatever its type
            .defaultSetterInfo(JsonSetter.Value.forValueNulls(Nulls.SKIP))
            .addModule(new SimpleModule()
                    .addDeserializer(int.class, new NumberDeserializers.IntegerDeserializer(Integer.class, null))
                    .addDeserializer(boolean.class, new NumberDeserializers.BooleanDeserializer(Boolean.class, null)))
            .build();

    private static final Pattern MARK = Pattern.compile("in '[^']*', line (\\d+), column (\\d+):?");

    private NodeConfigLoader() {}

    /**
     * Reads and validates {@code file}.
     *
     * @throws ConfigException if the file cannot be read or holds a bad or unknown field
     */
    public static NodeConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e, e);
        }
        return parse(text, file.toString());
    }

    /**
     * Reads and validates YAML {@code text}; {@code source} names it in messages. Blank text gives the
     * defaults.
     *
     * @throws ConfigException if a field is bad or unknown
     */
    public static NodeConfig parse(String text, String source) {
        JsonNode tree;
        try {
            tree = MAPPER.readTree(text);
        } catch (JacksonException e) {
            throw new ConfigException(source + " is not valid YAML: " + oneLine(e), e);
        }
        if (tree == null || tree.isMissingNode() || tree.isNull()) return build(NodeConfig.builder());
        if (!tree.isObject()) throw new ConfigException(source + " is not a mapping of field: value");
        YamlBuilder yaml = new YamlBuilder();
        try {
            MAPPER.readerForUpdating(yaml).readValue(tree);
        } catch (JacksonException e) {
            throw translate(e, tree, source);
        } catch (IOException e) { // a tree in memory: no I/O
            throw new UncheckedIOException(e);
        }
        return build(yaml.settle());
    }

    /**
     * Builds {@code builder}, turning a validation failure into a {@link ConfigException}.
     *
     * @throws ConfigException naming the first bad field and its value
     */
    public static NodeConfig build(NodeConfig.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    /**
     * The YAML settings whose form differs from the builder's: read as written (so that a bad one can be
     * named with its value), turned into the builder's in {@link #settle()}, in a fixed order. The other
     * settings are read straight into the builder's fields.
     */
    static final class YamlBuilder extends NodeConfig.Builder {
        @JsonProperty
        private String role;

        @JsonProperty
        private String advertise;

        @JsonProperty
        private String peer;

        @JsonProperty
        private String mode;

        @JsonProperty
        private Object maxBulkBytes;

        @JsonProperty
        private Object clientOutputBufferLimit;

        @JsonProperty
        private String clientOutputBufferLimitPubsub;

        @JsonProperty
        private Object bulkPreallocBytes;

        @JsonProperty
        private Object maxClientMemory;

        @JsonProperty
        private String dataDir;

        @JsonProperty
        private StoreYaml store;

        @JsonProperty
        private ReplicationYaml replication;

        @JsonProperty
        private FailoverYaml failover;

        @JsonProperty
        private ExpiryYaml expiry;

        @JsonProperty
        private CoordinationYaml coordination;

        @JsonProperty
        private String clusterSecret;

        @JsonProperty
        private String clusterSecretFile;

        @JsonProperty
        private TlsYaml tls;

        @JsonProperty
        private AdminYaml admin;

        @JsonProperty
        private List<UserYaml> users;

        /** This builder with the settings read as written turned into the builder's. */
        NodeConfig.Builder settle() {
            try {
                if (role != null) role(Role.parse(role));
                if (advertise != null) advertise(NodeConfig.checkHostPort("advertise", advertise));
                if (peer != null) peer(NodeConfig.checkHostPort(peer));
                if (mode != null) mode(ReplicationMode.parse(mode));
                if (maxBulkBytes != null)
                    maxBulkBytes(byteSize("maxBulkBytes", maxBulkBytes).toInt("maxBulkBytes"));
                if (clientOutputBufferLimit != null) {
                    clientOutputBufferLimit(byteSize("clientOutputBufferLimit", clientOutputBufferLimit)
                            .bytes());
                }
                if (clientOutputBufferLimitPubsub != null) clientOutputBufferLimitPubsub(clientOutputBufferLimitPubsub);
                if (bulkPreallocBytes != null) {
                    bulkPreallocBytes(
                            byteSize("bulkPreallocBytes", bulkPreallocBytes).bytes());
                }
                if (maxClientMemory != null) maxClientMemory(clientMemory(maxClientMemory));
                store(toStore(store, dataDir));
                if (replication != null) replication(toReplication(replication));
                if (replication != null && replication.listener() != null) {
                    replicationListener(toListener(replication.listener()));
                }
                if (failover != null) failover(toFailover(failover));
                if (expiry != null) expiry(toExpiry(expiry));
                if (coordination != null) coordination(toCoordination(coordination));
                if (clusterSecret != null && clusterSecretFile != null) {
                    throw new IllegalArgumentException("set clusterSecret or clusterSecretFile, not both");
                }
                if (clusterSecret != null) clusterSecret(clusterSecret);
                if (clusterSecretFile != null) clusterSecret(readSecretFile(clusterSecretFile));
                if (tls != null) {
                    tls(toTls(tls));
                    tlsPorts(toTlsPorts(tls));
                }
                if (admin != null) admin(toAdmin(admin));
                if (users != null) users(toUsers(users));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage(), e);
            }
            return this;
        }
    }

    private static TlsFiles toTls(TlsYaml t) {
        if (t.certFile() == null || t.keyFile() == null || t.caFile() == null) {
            throw new IllegalArgumentException("tls needs certFile, keyFile and caFile");
        }
        try {
            return new TlsFiles(
                    Path.of(t.certFile()),
                    Path.of(t.keyFile()),
                    Path.of(t.caFile()),
                    Optional.ofNullable(t.peerName()));
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("tls: not a valid path: " + e.getInput());
        }
    }

    /** The {@code tls:} section's {@code clients}, {@code admin} and {@code clientAuth}. */
    private static TlsPortsConfig toTlsPorts(TlsYaml t) {
        return new TlsPortsConfig(
                Boolean.TRUE.equals(t.clients()),
                Boolean.TRUE.equals(t.admin()),
                t.clientAuth() == null
                        ? TlsPortsConfig.ClientAuth.NONE
                        : TlsPortsConfig.ClientAuth.parse(t.clientAuth()));
    }

    /** The secret in {@code file}: its content without surrounding whitespace. */
    public static String readSecretFile(String file) {
        try {
            String secret =
                    Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            if (secret.isEmpty()) throw new IllegalArgumentException("clusterSecretFile " + file + " is empty");
            return secret;
        } catch (IOException | InvalidPathException e) {
            throw new IllegalArgumentException("cannot read clusterSecretFile " + file + ": " + e.getMessage());
        }
    }

    private static StoreConfig toStore(StoreYaml s, String dataDir) {
        StoreConfig.Builder b = StoreConfig.builder();
        if (dataDir != null) {
            try {
                b.dataDir(Path.of(dataDir));
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("dataDir is not a valid path: " + dataDir);
            }
        }
        if (s == null) return b.build();
        // StoreConfig's messages name the bare field ("maxEntries <= 0: 0"); say where it lives.
        try {
            if (s.maxEntries() != null) b.maxEntries(s.maxEntries());
            if (s.maxBytes() != null)
                b.maxBytes(byteSize("store.maxBytes", s.maxBytes()).bytes());
            if (s.maxKeyBytes() != null) {
                b.maxKeyBytes(byteSize("store.maxKeyBytes", s.maxKeyBytes()).toInt("store.maxKeyBytes"));
            }
            if (s.maxValueBytes() != null) {
                b.maxValueBytes(
                        byteSize("store.maxValueBytes", s.maxValueBytes()).toInt("store.maxValueBytes"));
            }
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            throw new IllegalArgumentException(m.startsWith("store.") ? m : "store." + m, e);
        }
        return b.build();
    }

    private static ExpiryConfig toExpiry(ExpiryYaml e) {
        ExpiryConfig d = ExpiryConfig.defaults();
        try {
            return new ExpiryConfig(
                    e.activeIntervalMs() == null ? d.interval() : Duration.ofMillis(e.activeIntervalMs()),
                    e.maxKeysPerCycle() == null ? d.maxKeysPerCycle() : toInt("maxKeysPerCycle", e.maxKeysPerCycle()));
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException("expiry." + x.getMessage(), x);
        }
    }

    /** The {@code coordination:} section; its messages never quote the credentials. */
    private static CoordinationConfig toCoordination(CoordinationYaml c) {
        if (c.zookeeper() == null) {
            throw new IllegalArgumentException("coordination.zookeeper is missing: give host:port,... of the ensemble");
        }
        if (c.shard() == null) throw new IllegalArgumentException("coordination.shard is missing");
        return new CoordinationConfig(
                c.zookeeper(),
                Optional.ofNullable(c.credentials()),
                c.sessionTimeoutMs() == null
                        ? CoordinationConfig.DEFAULT_SESSION_TIMEOUT
                        : Duration.ofMillis(c.sessionTimeoutMs()),
                c.shard(),
                c.dc() == null ? "" : c.dc());
    }

    private static FailoverConfig toFailover(FailoverYaml f) {
        FailoverConfig d = FailoverConfig.defaults();
        try {
            return new FailoverConfig(
                    f.readPolicy() == null ? d.readPolicy() : FailoverConfig.ReadPolicy.parse(f.readPolicy()),
                    f.blockTimeoutMs() == null ? d.blockTimeout() : Duration.ofMillis(f.blockTimeoutMs()),
                    f.lostAfterMs() == null ? d.lostAfter() : Duration.ofMillis(f.lostAfterMs()),
                    f.autoPromoteAfterMs() == null ? d.autoPromoteAfter() : Duration.ofMillis(f.autoPromoteAfterMs()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("failover." + e.getMessage(), e);
        }
    }

    /** The {@code admin:} section; AdminConfig's messages name {@code admin.FIELD} and never quote the token. */
    private static AdminConfig toAdmin(AdminYaml a) {
        AdminConfig c = AdminConfig.defaults();
        if (a.token() != null) c = c.withToken(a.token());
        if (a.openReads() != null) c = c.withOpenReads(a.openReads());
        if (a.respCommands() != null) c = c.withRespCommands(a.respCommands());
        if (a.trustLoopback() != null) c = c.withTrustLoopback(a.trustLoopback());
        if (a.allowedHosts() != null) c = c.withAllowedHosts(a.allowedHosts());
        if (a.maxConnections() != null || a.headTimeoutMs() != null || a.idleTimeoutMs() != null) {
            c = c.withLimits(
                    a.maxConnections() == null ? c.maxConnections() : toInt("admin.maxConnections", a.maxConnections()),
                    a.headTimeoutMs() == null ? c.headTimeoutMillis() : a.headTimeoutMs(),
                    a.idleTimeoutMs() == null ? c.idleTimeoutMillis() : a.idleTimeoutMs());
        }
        return c;
    }

    /** The {@code users:} list; messages name {@code users[i]} and never quote a password or hash. */
    private static List<UserConfig> toUsers(List<UserYaml> users) {
        List<UserConfig> out = new ArrayList<>();
        for (int i = 0; i < users.size(); i++) {
            UserYaml u = users.get(i);
            String at = "users[" + i + "]";
            if (u == null) throw new IllegalArgumentException(at + " is empty");
            if (u.name() == null) throw new IllegalArgumentException(at + ".name is missing");
            if (u.role() == null) {
                throw new IllegalArgumentException(at + ".role is missing (admin, readwrite or readonly)");
            }
            if ((u.password() == null) == (u.passwordSha256() == null)) {
                throw new IllegalArgumentException(
                        at + " (" + u.name() + ") needs password or passwordSha256, one" + " of them");
            }
            try {
                UserConfig.Role role = UserConfig.Role.parse(u.role());
                out.add(
                        u.password() != null
                                ? UserConfig.withPassword(u.name(), u.password(), role)
                                : new UserConfig(u.name(), u.passwordSha256(), role));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(at + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static ReplicatorConfig toReplication(ReplicationYaml r) {
        ReplicatorConfig.Builder b = ReplicatorConfig.builder();
        try {
            if (r.maxUnackedKeys() != null) b.maxUnackedKeys(toInt("maxUnackedKeys", r.maxUnackedKeys()));
            if (r.maxPendingValues() != null) b.maxPendingValues(toInt("maxPendingValues", r.maxPendingValues()));
            if (r.maxPendingValueBytes() != null)
                b.maxPendingValueBytes(byteSize("maxPendingValueBytes", r.maxPendingValueBytes())
                        .bytes());
            if (r.valueBatchBytes() != null)
                b.valueBatchBytes(
                        byteSize("valueBatchBytes", r.valueBatchBytes()).toInt("valueBatchBytes"));
            if (r.valueLingerMs() != null) b.valueLinger(Duration.ofMillis(r.valueLingerMs()));
            if (r.chunkBytes() != null)
                b.chunkBytes(byteSize("chunkBytes", r.chunkBytes()).toInt("chunkBytes"));
            if (r.valueStreams() != null) b.valueStreams(toInt("valueStreams", r.valueStreams()));
            if (r.valueRateBytesPerSecond() != null)
                b.valueRateBytesPerSecond(byteSize("valueRateBytesPerSecond", r.valueRateBytesPerSecond())
                        .bytes());
            if (r.writeTimeoutMs() != null) b.writeTimeout(Duration.ofMillis(r.writeTimeoutMs()));
            if (r.maxValueLagMs() != null) {
                long ms = r.maxValueLagMs();
                if (ms < 0) throw new IllegalArgumentException("maxValueLagMs < 0: " + ms + " (0: off)");
                b.maxValueLag(Duration.ofMillis(ms));
            }
            if (r.maxFrameBytes() != null)
                b.maxFrameBytes(byteSize("maxFrameBytes", r.maxFrameBytes()).toInt("maxFrameBytes"));
            if (r.flowControl() != null) b.flowControl(toFlowControl(r.flowControl()));
            if (r.cutThrough() != null) b.cutThrough(r.cutThrough());
            return b.build();
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            throw new IllegalArgumentException(m.startsWith("replication.") ? m : "replication." + m, e);
        }
    }

    /** The {@code replication.listener:} section; messages name {@code replication.listener.FIELD}. */
    private static BackupConfig toListener(ListenerYaml l) {
        BackupConfig.Builder b = BackupConfig.builder();
        try {
            if (l.authDeadlineMs() != null) {
                long ms = l.authDeadlineMs();
                if (ms < 100 || ms > 60_000)
                    throw new IllegalArgumentException("authDeadlineMs is not in 100..60000: " + ms);
                b.authDeadline(Duration.ofMillis(ms));
            }
            if (l.maxHandshakes() != null) b.maxHandshakes(toInt("maxHandshakes", l.maxHandshakes()));
            if (l.maxHandshakesPerSource() != null)
                b.maxHandshakesPerSource(toInt("maxHandshakesPerSource", l.maxHandshakesPerSource()));
            if (l.maxPeerHandshakes() != null) b.maxPeerHandshakes(toInt("maxPeerHandshakes", l.maxPeerHandshakes()));
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("replication.listener." + e.getMessage(), e);
        }
    }

    /** The {@code replication.flowControl:} section; messages name {@code flowControl.FIELD}. */
    private static FlowControlConfig toFlowControl(FlowControlYaml f) {
        FlowControlConfig.Builder b = FlowControlConfig.builder();
        try {
            if (f.enabled() != null) b.enabled(f.enabled());
            if (f.targetMs() != null) b.target(targetMs(f.targetMs()));
            if (f.minRateBytesPerSecond() != null)
                b.minRateBytesPerSecond(byteSize("minRateBytesPerSecond", f.minRateBytesPerSecond())
                        .bytes());
            if (f.baseHistoryMinutes() != null) {
                long m = f.baseHistoryMinutes();
                if (m < 1 || m > 60) throw new IllegalArgumentException("baseHistoryMinutes is not in 1..60: " + m);
                b.baseHistory(Duration.ofMinutes(m));
            }
            if (f.notSentLowWatermarkBytes() != null)
                b.notSentLowWatermarkBytes(byteSize("notSentLowWatermarkBytes", f.notSentLowWatermarkBytes())
                        .toInt("notSentLowWatermarkBytes"));
            if (f.dscp() != null) b.dscp(f.dscp());
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("flowControl." + e.getMessage(), e);
        }
    }

    /** A target queueing delay in milliseconds, fractions allowed down to 0.1 (100 us). */
    private static Duration targetMs(double ms) {
        if (!(ms >= 0.1 && ms <= 10_000)) {
            throw new IllegalArgumentException("targetMs is not in 0.1..10000: " + ms);
        }
        return Duration.ofNanos(Math.round(ms * 1e6));
    }

    private static int toInt(String field, long value) {
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(field + " is out of range: " + value);
        }
        return (int) value;
    }

    /** {@code maxClientMemory}: a byte size, or a share of the heap such as {@code 25%}. */
    private static long clientMemory(Object value) {
        if (value instanceof String s && s.trim().endsWith("%")) {
            String n = s.trim().substring(0, s.trim().length() - 1).trim();
            if (!n.matches("[0-9]{1,3}") || Integer.parseInt(n) > 100) {
                throw new IllegalArgumentException(
                        "maxClientMemory is not a byte size or a percentage of the heap from 0% to 100%: " + s);
            }
            return NodeConfig.percentOfHeap(Integer.parseInt(n));
        }
        return byteSize("maxClientMemory", value).bytes();
    }

    /** A YAML scalar as a byte size: an integer, or a string such as {@code 64MiB}. */
    static ByteSize byteSize(String field, Object value) {
        if (value instanceof Integer || value instanceof Long) {
            long v = ((Number) value).longValue();
            if (v < 0) throw new IllegalArgumentException(field + " is negative: " + v);
            return new ByteSize(v);
        }
        if (value instanceof String || value instanceof Number) return ByteSize.parse(field, value.toString());
        throw new IllegalArgumentException(field + " is not a byte size (e.g. 64MiB): " + value);
    }

    private static ConfigException translate(JacksonException e, JsonNode tree, String source) {
        if (e instanceof UnrecognizedPropertyException u) {
            String parent = path(u.getPath().subList(0, u.getPath().size() - 1));
            String field = parent.isEmpty() ? u.getPropertyName() : parent + "." + u.getPropertyName();
            List<String> known = u.getKnownPropertyIds().stream()
                    .map(Object::toString)
                    .sorted()
                    .collect(Collectors.toList());
            return new ConfigException(
                    "unknown field '" + field + "' in " + source + " (known: " + String.join(", ", known) + ")");
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            String field = path(m.getPath());
            String value = describe(at(tree, m.getPath()));
            if (m.getCause() instanceof InputCoercionException) {
                return new ConfigException(field + " is out of range: " + value, e);
            }
            Class<?> type = m instanceof MismatchedInputException mi ? mi.getTargetType() : null;
            return new ConfigException(field + " is not " + describe(type) + ": " + value, e);
        }
        return new ConfigException(source + ": " + e.getOriginalMessage(), e);
    }

    /**
     * The parser's message on one line. SnakeYAML's span several: a context, {@code in 'reader', line
     * L, column C:} marks, and source excerpts indented with a caret under them, which we drop.
     */
    static String oneLine(JacksonException e) {
        StringBuilder b = new StringBuilder();
        for (String line : String.valueOf(e.getOriginalMessage()).split("\\R")) {
            String t = line.strip();
            if (t.isEmpty() || line.startsWith("    ")) continue;
            Matcher mark = MARK.matcher(t);
            if (mark.matches()) {
                b.append(" (line ")
                        .append(mark.group(1))
                        .append(", column ")
                        .append(mark.group(2))
                        .append(')');
                continue;
            }
            if (b.length() > 0) b.append("; ");
            b.append(t);
        }
        if (b.indexOf("(line ") < 0
                && e.getLocation() != null
                && e.getLocation().getLineNr() > 0) {
            b.append(" (line ")
                    .append(e.getLocation().getLineNr())
                    .append(", column ")
                    .append(e.getLocation().getColumnNr())
                    .append(')');
        }
        return b.toString();
    }

    private static String describe(Class<?> type) {
        if (type == Long.class || type == Integer.class) return "an integer";
        if (type == Double.class) return "a number";
        if (type == Boolean.class) return "true or false";
        if (type == String.class) return "a string";
        if (type == StoreYaml.class
                || type == ReplicationYaml.class
                || type == FlowControlYaml.class
                || type == FailoverYaml.class
                || type == CoordinationYaml.class
                || type == ExpiryYaml.class
                || type == AdminYaml.class
                || type == UserYaml.class
                || type == TlsYaml.class) {
            return "a mapping of field: value";
        }
        if (type != null && List.class.isAssignableFrom(type)) return "a list";
        return type == null ? "valid" : "a " + type.getSimpleName();
    }

    private static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) return "?";
        if (node.isArray()) return "a list";
        if (node.isObject()) return "a mapping";
        return node.asText();
    }

    private static JsonNode at(JsonNode tree, List<JsonMappingException.Reference> refs) {
        JsonNode node = tree;
        for (JsonMappingException.Reference r : refs) {
            if (node == null) return null;
            node = r.getFieldName() != null ? node.get(r.getFieldName()) : node.get(r.getIndex());
        }
        return node;
    }

    private static String path(List<JsonMappingException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : refs) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) sb.append('.');
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    // The sections' shapes; {@code null} means "not set". Scalars stay loose so we can word the errors.

    /** One entry of the {@code users:} list. */
    record UserYaml(String name, String password, String passwordSha256, String role) {}

    /**
     * The {@code tls:} section: PEM files of this node's identity and the CA it trusts, and whether
     * the client and admin ports use them.
     */
    record TlsYaml(
            String certFile,
            String keyFile,
            String caFile,
            String peerName,
            Boolean clients,
            Boolean admin,
            String clientAuth) {}

    /** The {@code admin:} section: who may use the admin HTTP port. */
    record AdminYaml(
            String token,
            Boolean openReads,
            Boolean respCommands,
            Boolean trustLoopback,
            List<String> allowedHosts,
            Long maxConnections,
            Long headTimeoutMs,
            Long idleTimeoutMs) {}

    /** The {@code expiry:} section: active expiry's rounds. */
    record ExpiryYaml(Long activeIntervalMs, Long maxKeysPerCycle) {}

    /** The {@code coordination:} section. */
    record CoordinationYaml(String zookeeper, String credentials, Long sessionTimeoutMs, String shard, String dc) {}

    /** The {@code failover:} section. */
    record FailoverYaml(String readPolicy, Long blockTimeoutMs, Long lostAfterMs, Long autoPromoteAfterMs) {}

    /** The {@code replication:} section (a primary's replication limits). */
    record ReplicationYaml(
            Long maxUnackedKeys,
            Long maxPendingValues,
            Object maxPendingValueBytes,
            Object valueBatchBytes,
            Long valueLingerMs,
            Object chunkBytes,
            Long valueStreams,
            Object valueRateBytesPerSecond,
            Long writeTimeoutMs,
            Long maxValueLagMs,
            Object maxFrameBytes,
            FlowControlYaml flowControl,
            Boolean cutThrough,
            ListenerYaml listener) {}

    /** The {@code replication.listener:} section (a backup's replication port: who may take handshake slots). */
    record ListenerYaml(Long authDeadlineMs, Long maxHandshakes, Long maxHandshakesPerSource, Long maxPeerHandshakes) {}

    /** The {@code replication.flowControl:} section (delay-based flow control of the value traffic). */
    record FlowControlYaml(
            Boolean enabled,
            Double targetMs,
            Object minRateBytesPerSecond,
            Long baseHistoryMinutes,
            Object notSentLowWatermarkBytes,
            Boolean dscp) {}

    /** The {@code store:} section. */
    record StoreYaml(Long maxEntries, Object maxBytes, Object maxKeyBytes, Object maxValueBytes) {}
}
