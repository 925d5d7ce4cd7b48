package dev.kvs.server.internal;

import dev.kvs.core.KvStore;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.Handback;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.failover.Failover;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.resp.CommandContext;
import dev.kvs.server.internal.role.Links;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleEvents;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.write.Writes;
import java.util.function.LongConsumer;

/** Node contexts for tests of one server (RESP, admin, metrics) without a network to a peer. */
public final class TestContexts {
    private TestContexts() {}

    /** A started primary, alone (a configured peer is only shown, never dialled). */
    public static NodeContext primary(NodeConfig config, KvStore store, long epoch, long lastSeq) {
        return primary(config, store, epoch, lastSeq, null);
    }

    /** A started primary whose replication to the backup is {@code link} (null: alone). */
    public static NodeContext primary(
            NodeConfig config, KvStore store, long epoch, long lastSeq, ReplicationLink link) {
        return primary(config, store, epoch, lastSeq, link, java.time.Clock.systemUTC());
    }

    /** The same, with {@code clock} as the node's wall clock (expiry). */
    public static NodeContext primary(
            NodeConfig config, KvStore store, long epoch, long lastSeq, ReplicationLink link, java.time.Clock clock) {
        RoleMachine roles = new RoleMachine(config, null, new FixedLinks(link));
        Writes writes = new Writes(store, roles, clock);
        Failover failover = new Failover(config, store, roles, writes, null);
        roles.start(epoch, lastSeq, false, NO_EVENTS);
        return new NodeContext(config, store, roles, writes, failover, new NodeMetrics(store, roles));
    }

    /**
     * What the RESP commands of {@code node} work with, as {@code KvsNode} builds it: the same
     * collaborators, counters and client ids; no {@code SHUTDOWN} (a test's node cannot stop so).
     */
    public static CommandContext commands(NodeContext node) {
        return commands(node, ClusterView.NONE);
    }

    /** The same, answering as a member of the cluster {@code cluster} shows ({@code -MOVED}, {@code CLUSTER}). */
    public static CommandContext commands(NodeContext node, ClusterView cluster) {
        return commands(node, cluster, KeyEvents.off());
    }

    /** The same, with {@code events} as its keyspace notifications. */
    public static CommandContext commands(NodeContext node, ClusterView cluster, KeyEvents events) {
        return new CommandContext(
                node.config(),
                node.store(),
                node.reads(),
                node.writes(),
                node.roles(),
                node.failover(),
                node.metrics(),
                node.adminPort(),
                node.expiredKeys(),
                node::nextClientId,
                null,
                cluster,
                events);
    }

    /** Nothing happens after a demotion: the node stays deposed (a backup to clients). */
    public static final RoleEvents NO_EVENTS = new RoleEvents() {
        @Override
        public void demoted(NodeRole.Deposed now) {}

        @Override
        public void handoverRequested(long epoch) {}

        @Override
        public Handback handback() {
            return null;
        }
    };

    private record FixedLinks(ReplicationLink link) implements Links {
        @Override
        public boolean hasPeer() {
            return link != null;
        }

        @Override
        public ReplicationLink replicate(long epoch, long lastSeq, LongConsumer onStaleEpoch, Runnable onConfirmed) {
            return link;
        }

        @Override
        public ReplicationServer listen(BackupNode node) {
            throw new UnsupportedOperationException("no replication listener in this test");
        }
    }
}
