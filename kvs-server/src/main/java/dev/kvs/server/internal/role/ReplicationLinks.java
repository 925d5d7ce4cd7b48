package dev.kvs.server.internal.role;

import dev.kvs.core.KvStore;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.ReplicationEnds;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.server.config.NodeConfig;
import io.netty.channel.EventLoopGroup;
import java.util.function.LongConsumer;

/**
 * The real {@link Links}: a {@link ReplicationEnds#primary() replicator} to the configured peer, a {@link
 * ReplicationServer}.
 */
public final class ReplicationLinks implements Links {
    private final NodeConfig config;
    private final KvStore store;
    private final EventLoopGroup group;
    private final EventLoopGroup valueGroup;
    private final ReplicationEnds.Security security;
    private final WriteStages stages;
    /** The bound client port, once known (0 before). */
    private volatile int clientPort;
    /** What a primary acknowledges writes under: {@link ServingLease#ALWAYS} unless the node is coordinated. */
    private volatile ServingLease lease = ServingLease.ALWAYS;

    /**
     * @param group the event loops of replication connections (null for a lone primary)
     * @param valueGroup the event loops of a backup's value channels
     * @param stages where replication marks the stages of each write ({@link WriteStages#OFF} but for a benchmark)
     */
    public ReplicationLinks(
            NodeConfig config, KvStore store, EventLoopGroup group, EventLoopGroup valueGroup, WriteStages stages) {
        this.config = config;
        this.stages = stages;
        this.store = store;
        this.group = group;
        this.valueGroup = valueGroup;
        this.security = config.linkSecurity();
    }

    /**
     * A coordinated node's lease: a primary it starts acknowledges writes only while the lease holds, and
     * answers those waiting for the backup at once when it lapses (not at the end of the write timeout).
     */
    public void serveUnder(ServingLease lease) {
        this.lease = lease;
    }

    /** The client port is bound at {@code port}: a primary advertises it to its backup from now on. */
    public void clientPortBound(int port) {
        clientPort = port;
    }

    @Override
    public boolean hasPeer() {
        return config.peer().isPresent();
    }

    @Override
    public ReplicationLink replicate(long epoch, long lastSeq, LongConsumer onStaleEpoch, Runnable onConfirmed) {
        ReplicationEnds.PrimaryBuilder b = ReplicationEnds.primary()
                .config(config.replication())
                .store(store)
                .identity(config.cluster(), config.name())
                .shard(config.shard())
                .startAfter(epoch, lastSeq)
                .peer(config.peerAddress().orElseThrow())
                .group(group)
                .onStaleEpoch(onStaleEpoch)
                .onConfirmed(onConfirmed)
                .acknowledgeWhile(() -> lease.held())
                .clientAddress(() -> config.advertisedClientAddress(clientPort != 0 ? clientPort : config.port()));
        return b.security(security).stages(stages).start();
    }

    @Override
    public ReplicationServer listen(BackupNode node) {
        ReplicationServer.Builder b = ReplicationServer.builder()
                .store(store)
                .node(node)
                .group(group)
                .valueGroup(valueGroup)
                .config(config.replicationListener().toBuilder()
                        .maxFrameBytes(config.replication().maxFrameBytes())
                        .build())
                .listen(config.replicationBind(), config.replPort())
                .stages(stages);
        config.peerAddress().ifPresent(peer -> b.peerHost(peer.getHostString()));
        return b.security(security).start();
    }
}
