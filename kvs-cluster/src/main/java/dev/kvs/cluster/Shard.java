package dev.kvs.cluster;

import java.util.List;

/**
 * One shard of the cluster map: a primary/backup pair (today's pair, replicating identifier-first on its
 * own streams) that owns some slots.
 *
 * @param id the shard's name, unique in the map
 * @param slots the slot ranges it owns
 * @param members the node ids of its members, one per datacenter
 * @param primary the member that acknowledges writes, at {@code epoch}
 * @param epoch the shard's epoch: moved forward by exactly one at each promotion, by the map's writer
 */
public record Shard(String id, List<SlotRange> slots, List<String> members, String primary, long epoch) {
    public Shard {
        if (id == null || id.isBlank()) throw new IllegalArgumentException("shard id is empty");
        slots = List.copyOf(slots);
        members = List.copyOf(members);
        if (slots.isEmpty()) throw new IllegalArgumentException("shard " + id + " owns no slots");
        if (members.isEmpty()) throw new IllegalArgumentException("shard " + id + " has no members");
        if (members.stream().distinct().count() != members.size()) {
            throw new IllegalArgumentException("shard " + id + " lists a member twice: " + members);
        }
        if (!members.contains(primary)) {
            throw new IllegalArgumentException(
                    "shard " + id + ": primary " + primary + " is not a member of " + members);
        }
        if (epoch < 1) throw new IllegalArgumentException("shard " + id + ": epoch < 1: " + epoch);
    }

    /** The members other than the primary. */
    public List<String> backups() {
        return members.stream().filter(m -> !m.equals(primary)).toList();
    }

    /** This shard with {@code member} as its primary at the next epoch. */
    public Shard promote(String member) {
        if (!members.contains(member)) {
            throw new IllegalArgumentException("shard " + id + ": " + member + " is not a member of " + members);
        }
        return new Shard(id, slots, members, member, epoch + 1);
    }

    public boolean owns(int slot) {
        for (SlotRange r : slots) {
            if (r.contains(slot)) return true;
        }
        return false;
    }
}
