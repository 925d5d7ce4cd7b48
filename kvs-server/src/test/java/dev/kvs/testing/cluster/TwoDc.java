package dev.kvs.testing.cluster;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The in-process two-DC fixture (as Ratis' {@code MiniRaftCluster}): a backup node, a {@link WanLink}
 * (FIFO queueing, like a plain WAN link) in front of its replication port, and a primary replicating
 * through the link; or, built with {@link Builder#directLink()}, a primary whose peer is the backup's
 * replication port itself. With {@link Builder#returnLink} the backup also knows the primary as its peer,
 * through a second link, so a switchover or a failback can run the other way. Loopback, ephemeral ports.
 * Closing it stops both nodes and the links.
 *
 * <p>Used by the tests of kvs-server, kvs-client, the examples and kvs-bench (kvs-server's test jar).
 * Not thread-safe: one test drives it.
 */
public final class TwoDc implements AutoCloseable {
    /** The address the nodes listen on. */
    public static final String HOST = "127.0.0.1";

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private KvsNode backup;
    private final WanLink link;
    private final WanLink returnLink;
    private KvsNode primary;

    private TwoDc(KvsNode backup, WanLink link, WanLink returnLink, KvsNode primary) {
        this.backup = backup;
        this.link = link;
        this.returnLink = returnLink;
        this.primary = primary;
    }

    /** A builder with the defaults the replication tests share: see each setter. */
    public static Builder builder() {
        return new Builder();
    }

    /** The replication settings most tests start from: a long write timeout, quick reconnects, 64 KiB chunks. */
    public static ReplicatorConfig.Builder replication() {
        return ReplicatorConfig.builder()
                .writeTimeout(Duration.ofSeconds(20))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(200))
                .chunkBytes(64 * 1024);
    }

    /** The store both nodes get unless the builder says otherwise: 50,000 entries, 256 MiB. */
    public static StoreConfig.Builder store() {
        return StoreConfig.builder().maxEntries(50_000).maxBytes(256L << 20);
    }

    /** How to start a {@link TwoDc}; each setter replaces what an earlier call set. */
    public static final class Builder {
        private String primaryName = "dc-main";
        private String backupName = "dc-backup";
        private ReplicationMode mode;
        private ReplicatorConfig replication;
        private FailoverConfig failover = FailoverConfig.defaults();
        private Clock primaryClock = Clock.systemUTC();
        private Clock backupClock = Clock.systemUTC();
        private StoreConfig primaryStore = TwoDc.store().build();
        private StoreConfig backupStore = primaryStore;
        private boolean withLink = true;
        private Duration oneWayDelay = Duration.ofMillis(1);
        private long bitsPerSecond;
        private Duration returnDelay;
        private UnaryOperator<NodeConfig.Builder> primaryExtra = UnaryOperator.identity();
        private UnaryOperator<NodeConfig.Builder> backupExtra = UnaryOperator.identity();

        private Builder() {}

        /** The nodes' names; {@code dc-main} and {@code dc-backup} by default. */
        public Builder names(String primary, String backup) {
            this.primaryName = primary;
            this.backupName = backup;
            return this;
        }

        /** The primary's default replication mode; the node's own default if not set. */
        public Builder mode(ReplicationMode v) {
            this.mode = v;
            return this;
        }

        /** The primary's replication settings; the node's own defaults if not set. */
        public Builder replication(ReplicatorConfig v) {
            this.replication = v;
            return this;
        }

        /** The backup's failover settings (what it does once its primary is gone); the defaults if not set. */
        public Builder failover(FailoverConfig v) {
            this.failover = v;
            return this;
        }

        /** Each node's wall clock: what TTLs are computed and checked with. The system clock by default. */
        public Builder clocks(Clock primary, Clock backup) {
            this.primaryClock = primary;
            this.backupClock = backup;
            return this;
        }

        /** Both nodes' store; {@link #store()} by default. */
        public Builder store(StoreConfig v) {
            return stores(v, v);
        }

        /** Each node's store: a backup smaller than its primary, say. */
        public Builder stores(StoreConfig primary, StoreConfig backup) {
            this.primaryStore = primary;
            this.backupStore = backup;
            return this;
        }

        /**
         * The emulated WAN link's one-way delay and bandwidth (0 for unlimited); 1 ms and unlimited by
         * default.
         *
         * @throws IllegalArgumentException if the delay is negative or the bandwidth below 0
         */
        public Builder link(Duration oneWayDelay, long bitsPerSecond) {
            if (oneWayDelay.isNegative()) throw new IllegalArgumentException("oneWayDelay < 0: " + oneWayDelay);
            if (bitsPerSecond < 0) throw new IllegalArgumentException("bitsPerSecond < 0: " + bitsPerSecond);
            this.withLink = true;
            this.oneWayDelay = oneWayDelay;
            this.bitsPerSecond = bitsPerSecond;
            return this;
        }

        /** No link: the primary's peer is the backup's replication port itself. */
        public Builder directLink() {
            this.withLink = false;
            return this;
        }

        /**
         * The backup knows the primary as its peer too, through a second link of {@code oneWayDelay}
         * (WanLink's default queueing) in front of the primary's replication port, chosen up front; both
         * nodes then get the mode, replication and failover settings, as either may be the primary.
         */
        public Builder returnLink(Duration oneWayDelay) {
            if (oneWayDelay.isNegative()) throw new IllegalArgumentException("oneWayDelay < 0: " + oneWayDelay);
            this.returnDelay = oneWayDelay;
            return this;
        }

        /** More of the primary's configuration (users, TLS, ...), applied after the fixture's. */
        public Builder primary(UnaryOperator<NodeConfig.Builder> extra) {
            this.primaryExtra = extra;
            return this;
        }

        /** More of the backup's configuration, applied after the fixture's. */
        public Builder backup(UnaryOperator<NodeConfig.Builder> extra) {
            this.backupExtra = extra;
            return this;
        }

        /**
         * Starts the (return link,) backup, the link, then the primary; stops what it started if one
         * fails.
         */
        public TwoDc start() {
            int primaryRepl = returnDelay == null ? 0 : freePort();
            WanLink back = returnDelay == null
                    ? null
                    : WanLink.builder()
                            .target(HOST, primaryRepl)
                            .delay(returnDelay)
                            .build();
            KvsNode backup = null;
            WanLink link = null;
            try {
                NodeConfig.Builder b =
                        node(backupName).role(Role.BACKUP).store(backupStore).failover(failover);
                if (back != null) settings(b.peer(HOST + ":" + back.port()));
                backup = KvsNode.start(backupExtra.apply(b).build(), backupClock);
                if (withLink) {
                    link = WanLink.builder()
                            .target(HOST, backup.replPort())
                            .delay(oneWayDelay)
                            .bandwidthBitsPerSecond(bitsPerSecond)
                            // a plain WAN link: the primary's flow control keeps value bytes from queueing
                            // in front of key packets
                            .queueing(WanLink.Queueing.FIFO)
                            .build();
                }
                NodeConfig.Builder p = node(primaryName)
                        .role(Role.PRIMARY)
                        .replPort(primaryRepl)
                        .peer(HOST + ":" + (link != null ? link.port() : backup.replPort()))
                        .store(primaryStore);
                settings(p);
                if (back != null) p.failover(failover);
                KvsNode primary = KvsNode.start(primaryExtra.apply(p).build(), primaryClock);
                return new TwoDc(backup, link, back, primary);
            } catch (RuntimeException e) {
                if (link != null) link.close();
                if (backup != null) backup.close();
                if (back != null) back.close();
                throw e;
            }
        }

        private NodeConfig.Builder settings(NodeConfig.Builder b) {
            if (mode != null) b.mode(mode);
            if (replication != null) b.replication(replication);
            return b;
        }

        private static int freePort() {
            try (ServerSocket s = new ServerSocket(0)) {
                return s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free port: " + e, e);
            }
        }

        private static NodeConfig.Builder node(String name) {
            return NodeConfig.builder().name(name).port(0).adminPort(0).replPort(0);
        }
    }

    /** The primary node (a new one after {@link #restartPrimaryEmpty()}). */
    public KvsNode primary() {
        return primary;
    }

    /** The backup node (a new one after a restart or a replacement). */
    public KvsNode backup() {
        return backup;
    }

    /**
     * The emulated WAN link the replication crosses: cut, heal, pause or slow it.
     *
     * @throws IllegalStateException if the fixture was built with {@link Builder#directLink()}
     */
    public WanLink link() {
        if (link == null) throw new IllegalStateException("no link: this TwoDc was built with directLink()");
        return link;
    }

    /**
     * The second link, the backup's to the primary's replication port.
     *
     * @throws IllegalStateException if the fixture was built without {@link Builder#returnLink}
     */
    public WanLink returnLink() {
        if (returnLink == null) throw new IllegalStateException("no return link: built without returnLink(..)");
        return returnLink;
    }

    /** {@code host:port} of the primary's RESP port. */
    public String primaryEndpoint() {
        return HOST + ":" + primary.port();
    }

    /** {@code host:port} of the backup's RESP port. */
    public String backupEndpoint() {
        return HOST + ":" + backup.port();
    }

    /** Stops the primary (the main DC goes down); the backup and the link stay. */
    public void stopPrimary() {
        primary.close();
    }

    /** Replaces the backup by a new, empty one on the same replication port (a wiped backup DC). */
    public void replaceBackupWithAnEmptyOne() {
        int replPort = backup.replPort();
        NodeConfig c = backup.config();
        backup.close();
        backup = KvsNode.start(c.toBuilder().replPort(replPort).build());
    }

    /**
     * Stops the backup, runs {@code whileAway} (writes on the primary, say), and starts it again with
     * the same configuration on the same replication port: with a data dir it comes back with its data.
     */
    public void restartBackup(Runnable whileAway) {
        int replPort = backup.replPort();
        NodeConfig c = backup.config();
        backup.close();
        whileAway.run();
        backup = KvsNode.start(c.toBuilder().replPort(replPort).build());
    }

    /** Restarts the (memory-only) primary: it comes back empty, in the same epoch. */
    public void restartPrimaryEmpty() {
        NodeConfig c = primary.config();
        primary.close();
        primary = KvsNode.start(c);
    }

    /**
     * {@code POST /promote} plus {@code query} (e.g. {@code ?lost=true}, or empty) on the backup's admin
     * port, and returns the answer's body whatever its status: the test asserts on it.
     *
     * @throws UncheckedIOException if the request fails
     */
    public String promoteBackup(String query) throws InterruptedException {
        try {
            return HTTP.send(
                            HttpRequest.newBuilder(URI.create(
                                            "http://" + HOST + ":" + backup.adminPort() + "/promote" + query))
                                    .header("X-Kvs-Admin", "1")
                                    .POST(HttpRequest.BodyPublishers.noBody())
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "POST /promote" + query + " on " + backup.config().name() + ": " + e, e);
        }
    }

    /** Stops the primary, the link, the backup and the return link, in that order. */
    @Override
    public void close() {
        primary.close();
        if (link != null) link.close();
        backup.close();
        if (returnLink != null) returnLink.close();
    }
}
