package dev.kvs.server.config;

import java.time.Duration;
import java.util.Optional;

/**
 * How a node joins its cluster's control plane on ZooKeeper (the {@code coordination:} section): opt-in,
 * a node without it replicates as one pair, as before. With it, the node publishes its status in an
 * ephemeral member znode under {@code /kvs/<cluster>}, and a primary acknowledges writes and serves reads
 * only while its lease on its ZooKeeper session holds (two thirds of {@code sessionTimeout} after its
 * last proof) and the cluster map names it its shard's primary.
 *
 * @param zookeeper the ensemble's connect string, {@code host:port,...}
 * @param credentials {@code user:password} for ZooKeeper's digest scheme (the cluster's znodes are then
 *     closed to other users), if any; never printed
 * @param sessionTimeout the session timeout asked of ZooKeeper: the lease lasts two thirds of what it
 *     grants, so this bounds both how soon a cut-off primary stops and how soon its backup may replace it
 * @param shard the shard of the cluster map this node is a member of
 * @param dc the datacenter the node runs in ({@code coordination.dc}, {@code --dc}), published in its member
 *     znode and shown in {@code /status}; empty if not given
 */
public record CoordinationConfig(
        String zookeeper, Optional<String> credentials, Duration sessionTimeout, String shard, String dc) {
    /** Default {@link #sessionTimeout}: 6 s, so a primary cut off from ZooKeeper stops within 4 s. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofMillis(6000);

    /** The environment variable that sets {@link #credentials} without writing them into a file. */
    public static final String CREDENTIALS_ENV = "KVS_ZOOKEEPER_CREDENTIALS";

    public CoordinationConfig {
        if (zookeeper == null || zookeeper.isBlank()) {
            throw new IllegalArgumentException("coordination.zookeeper is empty: give host:port,... of the ensemble");
        }
        for (String server : zookeeper.split(",", -1)) {
            NodeConfig.checkHostPort("coordination.zookeeper", server.strip());
        }
        if (credentials == null) throw new IllegalArgumentException("credentials == null (use Optional.empty())");
        credentials.ifPresent(c -> {
            int colon = c.indexOf(':');
            // the value is a password: never quoted
            if (colon < 1 || colon == c.length() - 1) {
                throw new IllegalArgumentException("coordination.credentials must be user:password");
            }
        });
        if (sessionTimeout == null || sessionTimeout.toMillis() < 200 || sessionTimeout.toMillis() > 600_000) {
            throw new IllegalArgumentException("coordination.sessionTimeoutMs is not in 200..600000: "
                    + (sessionTimeout == null ? null : sessionTimeout.toMillis()));
        }
        if (shard == null || !shard.matches("[A-Za-z0-9_.-]{1,64}")) {
            throw new IllegalArgumentException("coordination.shard must be 1-64 of [A-Za-z0-9_.-]: " + shard);
        }
        if (dc == null || !dc.matches("[A-Za-z0-9_.-]{0,64}")) {
            throw new IllegalArgumentException("coordination.dc must be 0-64 of [A-Za-z0-9_.-]: " + dc);
        }
    }

    /** Without a datacenter name. */
    public CoordinationConfig(String zookeeper, Optional<String> credentials, Duration sessionTimeout, String shard) {
        this(zookeeper, credentials, sessionTimeout, shard, "");
    }

    /** With the default session timeout and no credentials. */
    public CoordinationConfig(String zookeeper, String shard) {
        this(zookeeper, Optional.empty(), DEFAULT_SESSION_TIMEOUT, shard);
    }

    /** This section with {@code v} as its credentials. */
    public CoordinationConfig withCredentials(String v) {
        return new CoordinationConfig(zookeeper, Optional.of(v), sessionTimeout, shard, dc);
    }

    /** Without the credentials: they are a password. */
    @Override
    public String toString() {
        return "CoordinationConfig[zookeeper=" + zookeeper + ", credentials="
                + (credentials.isPresent() ? "<set>" : "none") + ", sessionTimeout=" + sessionTimeout.toMillis()
                + " ms, shard=" + shard + ", dc=" + dc + "]";
    }
}
