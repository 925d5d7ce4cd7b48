package dev.kvs.replication;

import dev.kvs.core.KvStore;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.auth.ClusterSecret;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.auth.ReplicationTls;
import dev.kvs.replication.failback.HandbackClient;
import dev.kvs.replication.primary.Replicator;
import dev.kvs.replication.wire.FrameMac;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The way from this API into the implementation packages, for a node: the primary's end of a
 * replication link ({@link #primary()}), the security both ends share ({@link #security}), a deposed
 * primary's handback ({@link #handBack}) and the count of frames that failed their MAC. The backup's
 * end is {@link ReplicationServer#builder()}.
 *
 * <p>This class and {@link ReplicationServer.Builder} are the only classes of the API package that
 * reach into {@code primary}, {@code backup}, {@code failback} or {@code auth} (the implementation
 * packages use the API, so nothing else of it may use them back); a node (kvs-server) uses nothing but
 * this package. kvs-cli's {@code PackageCyclesTest} and {@code
 * ModuleBoundariesTest} check both. Thread-safe: it holds
 * no state.
 */
public final class ReplicationEnds {
    /** Neither TLS nor a cluster secret: loopback and tests. */
    public static final Security NO_SECURITY = new Security(LinkSecurity.NONE);

    private ReplicationEnds() {}

    /**
     * The cluster secret as the replication code takes it.
     *
     * @throws IllegalArgumentException if it is shorter than the minimum the secret's check requires
     */
    public static Secret secret(String secret, String cluster) {
        return new Secret(ClusterSecret.of(secret, cluster));
    }

    /**
     * How replication connections are secured: mutual TLS from {@code tls}, the cluster secret, both, or
     * neither. Reads the TLS files now.
     *
     * @throws IllegalArgumentException if a TLS file is not a usable certificate, key or CA
     */
    public static Security security(Optional<Secret> secret, Optional<TlsFiles> tls) {
        return new Security(new LinkSecurity(
                secret.map(Secret::secret).orElse(null),
                tls.map(ReplicationTls::of).orElse(null)));
    }

    /** A builder of the primary's end of a link: what to replicate, to whom, who hears of its answers. */
    public static PrimaryBuilder primary() {
        return new PrimaryBuilder();
    }

    /**
     * Hands back (failback) to the new primary at {@code newPrimary} (its replication address); see
     * {@link HandbackReport} for what it did.
     *
     * @param epoch this node's epoch, sent in the {@code Hello}
     * @param timeout the longest wait for any one answer of the new primary
     * @throws HandbackFailedException if it was refused or did not complete; nothing was rolled back
     */
    public static HandbackReport handBack(
            KvStore store,
            ReplicatorConfig config,
            String cluster,
            String node,
            long epoch,
            InetSocketAddress newPrimary,
            EventLoopGroup group,
            Duration timeout,
            Security security)
            throws HandbackFailedException, InterruptedException {
        try {
            return HandbackClient.handBack(
                    store, config, cluster, node, epoch, newPrimary, group, timeout, security.link());
        } catch (HandbackClient.HandbackException e) {
            throw new HandbackFailedException(e.getMessage(), e);
        }
    }

    /**
     * Frames that failed their MAC in this process since it started (one node per process in production;
     * nodes started in one test JVM share it): each closed its connection.
     */
    public static long macFailures() {
        return FrameMac.failures();
    }

    /** The cluster secret both nodes prove; {@link #toString()} does not show it. Immutable. */
    public static final class Secret {
        private final ClusterSecret secret;

        private Secret(ClusterSecret secret) {
            this.secret = secret;
        }

        ClusterSecret secret() {
            return secret;
        }

        @Override
        public String toString() {
            return secret.toString();
        }
    }

    /** How replication connections are secured; built by {@link #security} once per node. Immutable. */
    public static final class Security {
        private final LinkSecurity link;

        private Security(LinkSecurity link) {
            this.link = link;
        }

        LinkSecurity link() {
            return link;
        }
    }

    /** Refused by the new primary or not completed; nothing was rolled back. */
    public static final class HandbackFailedException extends Exception {
        private static final long serialVersionUID = 1L;

        HandbackFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Builds and starts the primary's end of a link; see {@link #start()}. */
    public static final class PrimaryBuilder {
        private final Replicator.Builder b = Replicator.builder();

        private PrimaryBuilder() {}

        /**
         * This node's client (RESP) address, {@code host:port}, sent to the backup so that it can name its
         * primary in {@code -NOTPRIMARY}; asked at each connection: empty means none, null not known yet.
         * Default: none.
         */
        public PrimaryBuilder clientAddress(Supplier<String> clientAddress) {
            b.clientAddress(clientAddress);
            return this;
        }

        /** How each connection is secured. Default: {@link #NO_SECURITY}. */
        public PrimaryBuilder security(Security security) {
            b.security(Objects.requireNonNull(security, "security == null").link());
            return this;
        }

        /**
         * Where the stages of each write are marked as replication passes them ({@code ./kvs bench jmh
         * --stages}): give the backup's {@link ReplicationServer} the same. Default: {@link WriteStages#OFF}.
         */
        public PrimaryBuilder stages(WriteStages stages) {
            b.stages(stages);
            return this;
        }

        /**
         * Whether this primary may acknowledge writes now: a coordinated primary's lease. While it does not,
         * writes waiting for the backup fail at once with {@link ReplicationTimeoutException} instead of at
         * the end of the write timeout. Default: always.
         */
        public PrimaryBuilder acknowledgeWhile(BooleanSupplier mayAcknowledge) {
            b.acknowledgeWhile(mayAcknowledge);
            return this;
        }

        /** Default {@link ReplicatorConfig#defaults()}. */
        public PrimaryBuilder config(ReplicatorConfig config) {
            b.config(config);
            return this;
        }

        /** The store values are read from (required). */
        public PrimaryBuilder store(KvStore store) {
            b.store(store);
            return this;
        }

        /** The shard this node is a member of, sent in the handshake; empty (the default) without one. */
        public PrimaryBuilder shard(String shard) {
            b.shard(shard);
            return this;
        }

        /** The cluster and this node's name, sent in the handshake. Default {@code kvs}, {@code kvs}. */
        public PrimaryBuilder identity(String cluster, String node) {
            b.identity(cluster, node);
            return this;
        }

        /** The epoch and the last seq of it already used; writes continue after it. Default 1, 0. */
        public PrimaryBuilder startAfter(long epoch, long lastSeq) {
            b.startAfter(epoch, lastSeq);
            return this;
        }

        /** The backup's replication address (required). */
        public PrimaryBuilder peer(InetSocketAddress peer) {
            b.peer(peer);
            return this;
        }

        /** The event loops of the key and value channels (required). */
        public PrimaryBuilder group(EventLoopGroup group) {
            b.group(group);
            return this;
        }

        /** Called (on an I/O thread) when the backup reports a higher epoch. Default: nothing. */
        public PrimaryBuilder onStaleEpoch(LongConsumer onStaleEpoch) {
            b.onStaleEpoch(onStaleEpoch);
            return this;
        }

        /** Called (on an I/O thread) at every successful handshake with the backup. Default: nothing. */
        public PrimaryBuilder onConfirmed(Runnable onConfirmed) {
            b.onConfirmed(onConfirmed);
            return this;
        }

        /**
         * Starts replicating; connects in the background and keeps reconnecting.
         *
         * @throws IllegalStateException if the store, peer or group is missing
         */
        public ReplicationLink start() {
            return b.start();
        }
    }
}
