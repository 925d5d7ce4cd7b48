package dev.kvs.replication;

import dev.kvs.core.KvStore;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.backup.RealReplicationServer;
import io.netty.channel.EventLoopGroup;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * The backup's replication listener: accepts a primary's key channel and value channels, fills the
 * {@link UnfinishedKeys unfinished-key queue} from key packets and applies values to the store.
 *
 * <p>Every connection starts with the primary's {@code Hello}. It is refused ({@code Reject}, then
 * closed) if the cluster differs, if this node is not a backup, or if the primary's epoch is older
 * than the node's (a deposed primary learns it is stale); a newer epoch is adopted. Otherwise the
 * backup answers {@code Welcome} with what it has: the highest contiguous key TxId, and whether it is
 * empty (needs a full resync). A new key channel replaces the previous one.
 *
 * <pre>{@code
 * try (ReplicationServer server = ReplicationServer.builder()
 *         .store(store)
 *         .node(node)
 *         .group(group)                   // a MultiThreadIoEventLoopGroup with the NIO transport
 *         .listen("0.0.0.0", 7390)
 *         .start()) {
 *     ...
 *     readGate = new ReadGate(server.unfinishedKeys());
 * }
 * }</pre>
 *
 * <p>All work runs on the group's event loops; applying a value writes the store there (a value of
 * tens of MiB takes milliseconds, accepted for now). Thread-safe.
 */
public interface ReplicationServer extends AutoCloseable {
    /** A builder listening on an ephemeral loopback port with {@link BackupConfig#defaults()}. */
    static Builder builder() {
        return new Builder();
    }

    /** The address listened on, with the port actually bound. */
    InetSocketAddress address();

    /** The port listened on. */
    int port();

    /** The queue of keys whose values have not arrived; outlives {@link #close()}. */
    UnfinishedKeys unfinishedKeys();

    /**
     * Closes every replication connection of an epoch older than {@code epoch}: at promotion, the old
     * primary is cut off (and, reconnecting, is told it is stale).
     */
    void fence(long epoch);

    /** A snapshot of links, progress and counters. */
    BackupStatus status();

    /**
     * Active expiry on a backup: removes {@code key}'s record if it has expired at {@code nowMillis}
     * (its expiry is the primary's absolute time), so that expired keys never pile up while their
     * replicated deletes are on their way. No tombstone is left once no older value of the key can be
     * applied any more; until then one is, and collected later.
     *
     * @return true if the key was removed
     */
    boolean expire(byte[] key, long nowMillis);

    /**
     * The client (RESP) address, {@code host:port}, that the last primary whose key channel was
     * welcomed advertised in its {@code Hello}; kept after that channel closes; empty if none did.
     */
    default String primaryClientAddress() {
        return "";
    }

    /**
     * True while a full resync is in progress (its key listing, or the store walk that follows): the
     * store may still hold keys the primary deleted. Cheap: volatile reads.
     */
    default boolean resyncing() {
        return false;
    }

    /**
     * Stops listening and closes every replication connection; waits for that unless called on an
     * event loop. Does not close the store or the event loop group. Idempotent.
     */
    @Override
    void close();

    /** Builds and starts a {@link ReplicationServer}. */
    final class Builder {
        KvStore store;
        BackupNode node;
        EventLoopGroup group;
        EventLoopGroup valueGroup;
        String host = InetAddress.getLoopbackAddress().getHostAddress();
        int port;
        BackupConfig config = BackupConfig.defaults();
        UnfinishedKeys unfinished;
        LinkSecurity security = LinkSecurity.NONE;
        String peerHost;
        WriteStages stages = WriteStages.OFF;

        Builder() {}

        /**
         * Where the stages of each write are marked as the backup passes them ({@code ./kvs bench jmh
         * --stages}): the primary's {@code Replicator} is given the same. Default: {@link WriteStages#OFF}.
         */
        public Builder stages(WriteStages stages) {
            this.stages = Objects.requireNonNull(stages, "stages == null");
            return this;
        }

        /**
         * The configured peer's host (a name or an address literal): connections from its addresses
         * (resolved at start and every minute) take handshake slots from a pool of their own, which
         * strangers cannot fill ({@link BackupConfig#maxPeerHandshakes()}). With TLS a connection also
         * joins that pool once its certificate is verified. Default: none.
         */
        public Builder peerHost(String host) {
            this.peerHost = Objects.requireNonNull(host, "host == null");
            return this;
        }

        /**
         * How every connection is secured: mutual TLS, and/or the cluster secret it must prove before
         * its {@code Hello} is read (see {@link dev.kvs.replication.auth.ClusterSecret}). Default: {@link
         * LinkSecurity#NONE}; then a peer that offers to prove a secret is refused, since only a peer
         * with the same secret could be the cluster's primary.
         */
        public Builder security(LinkSecurity security) {
            this.security = Objects.requireNonNull(security, "security == null");
            return this;
        }

        /** As {@link #security(LinkSecurity)}, with the security a node built by {@link ReplicationEnds#security}. */
        public Builder security(ReplicationEnds.Security security) {
            return security(Objects.requireNonNull(security, "security == null").link());
        }

        /** The store values are applied to (required). */
        public Builder store(KvStore store) {
            this.store = Objects.requireNonNull(store, "store == null");
            return this;
        }

        /** The node's identity, role and epoch (required). */
        public Builder node(BackupNode node) {
            this.node = Objects.requireNonNull(node, "node == null");
            return this;
        }

        /**
         * The event loops to run on (required): a {@code MultiThreadIoEventLoopGroup} with the NIO or
         * the epoll transport.
         */
        public Builder group(EventLoopGroup group) {
            this.group = Objects.requireNonNull(group, "group == null");
            return this;
        }

        /**
         * Event loops for the value channels, of the same transport as {@link #group} (optional): a value
         * channel moves there after its handshake, so applying values (a 10 MiB value takes
         * milliseconds) never delays the key packets and acks of the key channel. Default: the value
         * channels stay on {@link #group}.
         */
        public Builder valueGroup(EventLoopGroup valueGroup) {
            this.valueGroup = Objects.requireNonNull(valueGroup, "valueGroup == null");
            return this;
        }

        /** Where to listen; port 0 picks a free port. Default: loopback, port 0. */
        public Builder listen(String host, int port) {
            if (port < 0 || port > 65535) throw new IllegalArgumentException("port out of range: " + port);
            this.host = Objects.requireNonNull(host, "host == null");
            this.port = port;
            return this;
        }

        /** Default {@link BackupConfig#defaults()}. */
        public Builder config(BackupConfig config) {
            this.config = Objects.requireNonNull(config, "config == null");
            return this;
        }

        /**
         * The queue to fill, e.g. one that must outlive this listener. Default: a new queue bounded by
         * {@link BackupConfig#maxUnfinishedKeys()}.
         */
        public Builder unfinishedKeys(UnfinishedKeys unfinished) {
            this.unfinished = Objects.requireNonNull(unfinished, "unfinished == null");
            return this;
        }

        /**
         * Binds and starts accepting connections.
         *
         * @throws IllegalStateException if the store, node or group is missing
         * @throws UncheckedIOException if the address cannot be bound
         */
        public ReplicationServer start() {
            if (store == null) throw new IllegalStateException("store is missing");
            if (node == null) throw new IllegalStateException("node is missing");
            if (group == null) throw new IllegalStateException("group is missing");
            return new RealReplicationServer(
                    store, node, group, valueGroup, host, port, config, unfinished, security, peerHost, stages);
        }
    }
}
