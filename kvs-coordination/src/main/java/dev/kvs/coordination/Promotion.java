package dev.kvs.coordination;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A shard's backup to be made its primary at the next epoch, and the rule that decides it: the shard's
 * primary has no member znode (ZooKeeper expired its session: it is dead, or cut off and already stopped
 * by its {@link Lease}), and a backup of the same epoch is alive, streamed from that primary and is not
 * resyncing. Otherwise nothing happens: a shard with no backup fit to take over waits, unavailable,
 * rather than lose acknowledged writes.
 *
 * @param shard the shard as read from the map
 * @param member the backup to promote
 */
public record Promotion(Shard shard, String member) {

    /** The promotions {@code members} (by node id, the live ones) call for in {@code map}. */
    public static List<Promotion> decide(ClusterMap map, Map<String, MemberStatus> members) {
        List<Promotion> promotions = new ArrayList<>();
        for (Shard shard : map.shards()) {
            if (members.containsKey(shard.primary())) continue;
            shard.backups().stream()
                    .map(members::get)
                    .filter(m -> m != null && m.shard().equals(shard.id()) && m.canTakeOver(shard.epoch()))
                    .max((a, b) -> Long.compareUnsigned(a.appliedTxId(), b.appliedTxId()))
                    .ifPresent(m -> promotions.add(new Promotion(shard, m.node())));
        }
        return promotions;
    }

    /** The shard after this promotion. */
    public Shard promoted() {
        return shard.promote(member);
    }
}
