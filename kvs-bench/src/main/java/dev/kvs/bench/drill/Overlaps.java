package dev.kvs.bench.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether two nodes of one shard acknowledged writes in overlapping time, from the acknowledgements a
 * drill recorded on one monotonic clock ({@link System#nanoTime()}). Node X and node Y overlap
 * <i>definitely</i> when X acknowledged a write sent after a write acknowledged by Y was answered, and
 * Y one sent after a write acknowledged by X was answered: each served after the other had. When only
 * the windows of the last write of one and the first write of the other intersect (the old primary's
 * last reply came back after the new primary's first write was sent), the order cannot be told from
 * the client: that is an <i>ambiguous</i> window, reported apart with its length.
 */
final class Overlaps {
    private Overlaps() {}

    /** One acknowledged write: the node that acknowledged it, when it was sent and when answered. */
    record Ack(String node, long sentNanos, long answeredNanos) {}

    /**
     * What the check found in one shard.
     *
     * @param definite writes acknowledged by the node that served first, sent after another node's
     *     first acknowledgement was answered, where both directions held; 0 when none
     * @param pairs the node pairs that overlapped definitely, {@code X/Y}
     * @param ambiguousMs the longest window (ms) in which two nodes' acknowledgements could not be
     *     ordered; 0 when none
     */
    record Result(long definite, List<String> pairs, double ambiguousMs) {}

    /** Checks one shard's acknowledgements. */
    static Result check(List<Ack> acks) {
        Map<String, long[]> bounds = new TreeMap<>(); // node -> min sent, max sent, min answered, max answered
        for (Ack a : acks) {
            long[] b = bounds.computeIfAbsent(
                    a.node(), n -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE});
            b[0] = Math.min(b[0], a.sentNanos());
            b[1] = Math.max(b[1], a.sentNanos());
            b[2] = Math.min(b[2], a.answeredNanos());
            b[3] = Math.max(b[3], a.answeredNanos());
        }
        List<String> nodes = new ArrayList<>(bounds.keySet());
        long definite = 0;
        List<String> pairs = new ArrayList<>();
        long ambiguous = 0;
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = i + 1; j < nodes.size(); j++) {
                String x = nodes.get(i);
                String y = nodes.get(j);
                long[] bx = bounds.get(x);
                long[] by = bounds.get(y);
                boolean xAfterY = bx[1] > by[2];
                boolean yAfterX = by[1] > bx[2];
                if (xAfterY && yAfterX) {
                    // counted: the writes the node that served first acknowledged after the other had served
                    definite += bx[2] <= by[2] ? sentAfter(acks, x, by[2]) : sentAfter(acks, y, bx[2]);
                    pairs.add(x + "/" + y);
                } else {
                    // the earlier node's last reply against the later node's first send
                    long window = xAfterY ? by[3] - bx[0] : bx[3] - by[0];
                    ambiguous = Math.max(ambiguous, window);
                }
            }
        }
        return new Result(definite, pairs, Math.max(0, ambiguous) / 1e6);
    }

    private static long sentAfter(List<Ack> acks, String node, long nanos) {
        return acks.stream()
                .filter(a -> a.node().equals(node) && a.sentNanos() > nanos)
                .count();
    }
}
