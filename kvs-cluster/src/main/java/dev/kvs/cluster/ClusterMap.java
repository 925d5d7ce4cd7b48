package dev.kvs.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which shard owns each of the 16,384 slots, and who is each shard's primary at which epoch. Checked
 * whole when built: every slot is owned by exactly one shard (JedisCluster refuses a map with holes), no
 * node is a member of two shards, shard ids are unique.
 */
public record ClusterMap(List<Shard> shards) {
    public ClusterMap {
        shards = List.copyOf(shards);
        Shard[] owner = new Shard[HashSlots.SLOTS];
        Set<String> ids = new HashSet<>();
        Set<String> nodes = new HashSet<>();
        for (Shard s : shards) {
            if (!ids.add(s.id())) throw new IllegalArgumentException("shard id used twice: " + s.id());
            for (String m : s.members()) {
                if (!nodes.add(m)) throw new IllegalArgumentException("node " + m + " is a member of two shards");
            }
            for (SlotRange r : s.slots()) {
                for (int slot = r.first(); slot <= r.last(); slot++) {
                    if (owner[slot] != null) {
                        throw new IllegalArgumentException(
                                "slot " + slot + " is owned by shards " + owner[slot].id() + " and " + s.id());
                    }
                    owner[slot] = s;
                }
            }
        }
        List<SlotRange> holes = new ArrayList<>();
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
            if (owner[slot] != null) continue;
            int first = slot;
            while (slot + 1 < HashSlots.SLOTS && owner[slot + 1] == null) slot++;
            holes.add(new SlotRange(first, slot));
        }
        if (!holes.isEmpty()) throw new IllegalArgumentException("slots owned by no shard: " + holes);
    }

    /** {@code count} shards splitting the slots evenly, each with its members and first primary. */
    public static ClusterMap evenly(List<List<String>> membersPerShard) {
        List<Shard> shards = new ArrayList<>();
        for (int i = 0; i < membersPerShard.size(); i++) {
            List<String> members = membersPerShard.get(i);
            shards.add(new Shard(
                    "shard-" + i, List.of(SlotRange.even(i, membersPerShard.size())), members, members.get(0), 1));
        }
        return new ClusterMap(shards);
    }

    /** The shard owning {@code slot}. */
    public Shard shardOf(int slot) {
        for (Shard s : shards) {
            if (s.owns(slot)) return s;
        }
        throw new IllegalStateException("no shard owns slot " + slot); // the constructor rules it out
    }

    public Optional<Shard> shard(String id) {
        return shards.stream().filter(s -> s.id().equals(id)).findFirst();
    }

    /** The shard that has {@code node} as a member. */
    public Optional<Shard> shardWithMember(String node) {
        return shards.stream().filter(s -> s.members().contains(node)).findFirst();
    }

    /** This map with {@code shard} replaced by the shard of the same id. */
    public ClusterMap with(Shard shard) {
        if (shard(shard.id()).isEmpty()) throw new IllegalArgumentException("no shard " + shard.id());
        return new ClusterMap(
                shards.stream().map(s -> s.id().equals(shard.id()) ? shard : s).toList());
    }
}
