package dev.kvs.server.internal.coordination;

import dev.kvs.coordination.Coordinator;
import dev.kvs.coordination.Lease;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A coordinated node as {@code /status} ({@code coordination}), {@code INFO replication} and {@code
 * /metrics} show it.
 *
 * @param node this node's id, its member znode's name
 * @param shard the shard it is a member of
 * @param dc the datacenter it runs in ({@code coordination.dc}), empty if not given
 * @param connected whether its ZooKeeper session is connected now
 * @param sessionId the session's id in hex ({@code 0} before the first connection)
 * @param lease the lease: held, millis left, renewals, revocations, last revocation
 * @param alarm true while this node is the primary and its lease does not hold: it refuses every
 *     data command ({@code -CLUSTERDOWN})
 * @param map the cluster map as this node follows it
 * @param coordinator the coordinator running in this node
 */
public record CoordinationStatus(
        String node,
        String shard,
        String dc,
        boolean connected,
        String sessionId,
        Lease.Status lease,
        boolean alarm,
        MapView map,
        CoordinatorStatus coordinator) {

    /** The fields of {@code INFO replication}; {@code kvs_lease_alarm:1} is the alarm. */
    public Map<String, Object> infoFields() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("kvs_coordination_node_id", node());
        f.put("kvs_coordination_shard", shard());
        f.put("kvs_coordination_dc", dc());
        f.put("kvs_coordination_connected", connected() ? 1 : 0);
        f.put("kvs_coordination_session_id", sessionId());
        f.put("kvs_lease_held", lease().held() ? 1 : 0);
        f.put("kvs_lease_millis_left", lease().millisLeft());
        f.put("kvs_lease_renewals", lease().renewals());
        f.put("kvs_lease_failed_renewals", lease().failedRenewals());
        f.put("kvs_lease_revocations", lease().revocations());
        f.put("kvs_lease_last_revocation", lease().lastRevocation());
        f.put("kvs_lease_alarm", alarm() ? 1 : 0);
        f.put("kvs_cluster_map_version", map().mapVersion());
        f.put("kvs_cluster_shard_epoch", map().shardEpoch());
        f.put("kvs_cluster_view", map().viewed() ? 1 : 0);
        f.put("kvs_cluster_view_problem", map().problem());
        f.put("kvs_cluster_promotions_by_map", map().promotions());
        f.put("kvs_coordinator_leader", coordinator().leader() ? 1 : 0);
        f.put("kvs_coordinator_rounds", coordinator().rounds());
        f.put("kvs_coordinator_promotions", coordinator().promotions());
        f.put("kvs_coordinator_conflicts", coordinator().conflicts());
        return f;
    }

    /**
     * The cluster map as this node follows it.
     *
     * @param mapVersion the map znode's version last read; -1 before there is a map
     * @param shardEpoch this node's shard's epoch in that map; 0 before
     * @param shardPrimary the node id the map names its shard's primary; empty before
     * @param viewed whether the RESP port answers by a layout ({@code CLUSTER SLOTS}, {@code -MOVED}); false
     *     before the first one, when {@code CLUSTER} answers that cluster support is disabled
     * @param problem why the layout is not the latest map's, or why the map's naming was not followed;
     *     empty if all is well
     * @param promotions times this node promoted itself because the map named it
     */
    public record MapView(
            int mapVersion, long shardEpoch, String shardPrimary, boolean viewed, String problem, long promotions) {}

    /**
     * The coordinator running in this node.
     *
     * @param leader whether it leads now (one node of the cluster does, briefly two: see {@link Coordinator})
     * @param rounds rounds it ran while leading
     * @param promotions promotions it wrote to the map
     * @param conflicts writes refused because the map had changed under a round
     */
    public record CoordinatorStatus(boolean leader, long rounds, long promotions, long conflicts) {}
}
