package dev.kvs.server.internal.cluster;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster as one node answers for it: the {@link ClusterMap}, which member of it this node is, and
 * every member's id and client address. Checked whole when built (this node and every member of the
 * map have an address, ids are unique). Immutable; {@link #redirect} is the per-command question and
 * allocates nothing.
 */
public final class ClusterLayout {
    private final ClusterMap map;
    private final String me;
    private final Map<String, ClusterMember> members;
    /** Index in {@code map.shards()} of each slot's shard. */
    private final short[] shardOfSlot = new short[HashSlots.SLOTS];
    /** Per shard: its primary's client address, as {@code -MOVED} names it. */
    private final String[] primaryAddress;
    /** Per shard: its slots as contiguous, ascending ranges (neighbouring ranges merged). */
    private final List<List<SlotRange>> ranges;

    private final int myShard;
    private final boolean primary;

    /**
     * @param map the cluster map
     * @param me this node's name in the map (a member of one shard)
     * @param members every member's id and client address, by its name in the map
     */
    public ClusterLayout(ClusterMap map, String me, Map<String, ClusterMember> members) {
        this.map = map;
        this.me = me;
        this.members = Map.copyOf(members);
        List<Shard> shards = map.shards();
        if (shards.size() > Short.MAX_VALUE) throw new IllegalArgumentException("too many shards: " + shards.size());
        primaryAddress = new String[shards.size()];
        Map<String, String> names = new HashMap<>();
        int mine = -1;
        for (int i = 0; i < shards.size(); i++) {
            Shard s = shards.get(i);
            for (String m : s.members()) {
                ClusterMember member = this.members.get(m);
                if (member == null) throw new IllegalArgumentException("no address for member " + m + " of " + s.id());
                String other = names.put(member.id(), m);
                if (other != null)
                    throw new IllegalArgumentException("node id " + member.id() + " of " + other + " and " + m);
            }
            if (s.members().contains(me)) mine = i;
            primaryAddress[i] = this.members.get(s.primary()).address();
            for (SlotRange r : s.slots()) {
                for (int slot = r.first(); slot <= r.last(); slot++) shardOfSlot[slot] = (short) i;
            }
        }
        if (mine < 0) throw new IllegalArgumentException("this node (" + me + ") is a member of no shard");
        myShard = mine;
        primary = shards.get(mine).primary().equals(me);
        ranges = mergedRanges(shards.size());
    }

    private List<List<SlotRange>> mergedRanges(int count) {
        List<List<SlotRange>> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(new ArrayList<>());
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
            int first = slot;
            while (slot + 1 < HashSlots.SLOTS && shardOfSlot[slot + 1] == shardOfSlot[first]) slot++;
            out.get(shardOfSlot[first]).add(new SlotRange(first, slot));
        }
        return out.stream().map(List::copyOf).toList();
    }

    /**
     * Where a command on {@code slot} must go instead of this node ({@code host:port} of the owning
     * shard's primary), or {@code null} if this node serves it: its shard owns the slot, and this node
     * is the shard's primary, or {@code backupRead} (a read on a {@code READONLY} connection) and it is
     * a backup. As a Redis Cluster node chooses between serving and {@code -MOVED}.
     */
    public String redirect(int slot, boolean backupRead) {
        int s = shardOfSlot[slot];
        if (s == myShard && (primary || backupRead)) return null;
        return primaryAddress[s];
    }

    public ClusterMap map() {
        return map;
    }

    /** This node's id. */
    public String myId() {
        return members.get(me).id();
    }

    /** This node's name in the map. */
    public String me() {
        return me;
    }

    /** The shard this node is a member of. */
    public Shard myShard() {
        return map.shards().get(myShard);
    }

    /** True if the map names this node its shard's primary. */
    public boolean isPrimary() {
        return primary;
    }

    /** The member named {@code name} in the map. */
    public ClusterMember member(String name) {
        ClusterMember m = members.get(name);
        if (m == null) throw new IllegalArgumentException("no member " + name);
        return m;
    }

    /** {@code shard}'s slots as contiguous ascending ranges, neighbouring ranges merged (as Redis lists them). */
    public List<SlotRange> ranges(Shard shard) {
        int i = map.shards().indexOf(shard);
        if (i < 0) throw new IllegalArgumentException("not a shard of this map: " + shard.id());
        return ranges.get(i);
    }

    /** The highest shard epoch: Redis's {@code cluster_current_epoch}. */
    public long currentEpoch() {
        long max = 0;
        for (Shard s : map.shards()) max = Math.max(max, s.epoch());
        return max;
    }
}
