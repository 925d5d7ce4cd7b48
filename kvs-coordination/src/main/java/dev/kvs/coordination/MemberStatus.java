package dev.kvs.coordination;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What a node publishes about itself in its ephemeral znode, {@code /kvs/<cluster>/members/<node>}: the
 * znode's existence says the node's session is alive; its content says whether it could take over.
 *
 * @param node the node's id (stable across restarts)
 * @param shard the shard it is a member of
 * @param role {@code primary}, {@code backup} or {@code deposed}
 * @param epoch the epoch the node is at
 * @param streaming for a backup: it completed its sync from the primary of {@code epoch} and was
 *     streaming from it (it stays true after the link drops, since that is when it may be promoted)
 * @param resyncing for a backup: a resync from the primary is under way (its store lacks keys)
 * @param appliedTxId the last TxId the node applied in order
 * @param clientAddress {@code host:port} of its client (RESP) port
 * @param replicationAddress {@code host:port} of its replication port
 * @param dc the datacenter it runs in, empty if not given
 */
// a node reads the statuses of nodes of other versions: a field it does not know is skipped
@JsonIgnoreProperties(ignoreUnknown = true)
public record MemberStatus(
        String node,
        String shard,
        String role,
        long epoch,
        boolean streaming,
        boolean resyncing,
        long appliedTxId,
        String clientAddress,
        String replicationAddress,
        String dc) {

    public MemberStatus {
        if (dc == null) dc = ""; // a status published before the field existed
    }

    /** Without a datacenter name. */
    public MemberStatus(
            String node,
            String shard,
            String role,
            long epoch,
            boolean streaming,
            boolean resyncing,
            long appliedTxId,
            String clientAddress,
            String replicationAddress) {
        this(node, shard, role, epoch, streaming, resyncing, appliedTxId, clientAddress, replicationAddress, "");
    }

    /** Whether this member could become its shard's primary at the epoch after {@code shardEpoch}. */
    public boolean canTakeOver(long shardEpoch) {
        return role.equals("backup") && epoch == shardEpoch && streaming && !resyncing;
    }
}
