package dev.kvs.cluster;

/**
 * The slots {@code first..last}, both included, as Redis's {@code CLUSTER SLOTS} and {@code CLUSTER
 * SHARDS} list them.
 */
public record SlotRange(int first, int last) implements Comparable<SlotRange> {
    public SlotRange {
        if (first < 0 || first >= HashSlots.SLOTS) throw new IllegalArgumentException("slot out of 0..16383: " + first);
        if (last < 0 || last >= HashSlots.SLOTS) throw new IllegalArgumentException("slot out of 0..16383: " + last);
        if (last < first) throw new IllegalArgumentException("slot range ends before it starts: " + first + "-" + last);
    }

    /** Parses {@code "0-5460"} or a single slot {@code "42"}. */
    public static SlotRange parse(String text) {
        int dash = text.indexOf('-');
        try {
            if (dash < 0) {
                int slot = Integer.parseInt(text.trim());
                return new SlotRange(slot, slot);
            }
            return new SlotRange(
                    Integer.parseInt(text.substring(0, dash).trim()),
                    Integer.parseInt(text.substring(dash + 1).trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a slot range (like 0-5460): " + text);
        }
    }

    public boolean contains(int slot) {
        return slot >= first && slot <= last;
    }

    public int size() {
        return last - first + 1;
    }

    /** The {@code n}th of {@code count} nearly equal ranges covering every slot, as redis-cli splits them. */
    public static SlotRange even(int n, int count) {
        if (count < 1 || count > HashSlots.SLOTS)
            throw new IllegalArgumentException("shard count out of 1..16384: " + count);
        if (n < 0 || n >= count) throw new IllegalArgumentException("shard index out of 0.." + (count - 1) + ": " + n);
        int first = (int) ((long) HashSlots.SLOTS * n / count);
        int last = (int) ((long) HashSlots.SLOTS * (n + 1) / count) - 1;
        return new SlotRange(first, last);
    }

    @Override
    public int compareTo(SlotRange o) {
        return Integer.compare(first, o.first);
    }

    @Override
    public String toString() {
        return first == last ? Integer.toString(first) : first + "-" + last;
    }
}
