package dev.kvs.server;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The acknowledged writes of one shard, each with the node that acknowledged it and its send and receive
 * times on one monotonic clock ({@link System#nanoTime()}), and the check that no two nodes acknowledged
 * writes in overlapping time.
 *
 * <p><b>The definition.</b> The acknowledgement of a write happened at some instant between its send
 * and its receive time. Write {@code a} is <i>surely before</i> write {@code b} when {@code a}'s receive
 * time is earlier than {@code b}'s send time. A <i>sure switch</i> is a pair of writes acknowledged by
 * different nodes, the first surely before the second; {@link #sureSwitches()} is the largest number of
 * them in one chain {@code w1, w2, ..., wm} in which each write is surely before the next and
 * acknowledged by another node than the previous one. Each switch in such a chain needs a new tenure
 * of the shard's primacy, and a new tenure needs a promotion, which moves the shard's epoch in the
 * map by one. So two nodes acknowledged writes in overlapping time exactly when the log shows more sure
 * switches than the map's epoch moved during the run ({@link #overlaps(long)}): a node that went on
 * acknowledging after another began (split brain) alternates with it many times within one epoch.
 */
final class AckLog {
    /** One acknowledged write: by {@code node}, sent at {@code sent}, its OK received at {@code received}. */
    record Ack(String node, long sent, long received) {}

    private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();

    void add(String node, long sent, long received) {
        acks.add(new Ack(node, sent, received));
    }

    int size() {
        return acks.size();
    }

    /** True if some write sent at or after {@code nanos} ({@link System#nanoTime()}) was acknowledged. */
    boolean anySentSince(long nanos) {
        return acks.stream().anyMatch(a -> a.sent() - nanos >= 0);
    }

    long countBy(String node) {
        return acks.stream().filter(a -> a.node().equals(node)).count();
    }

    /**
     * The longest chain of sure switches, found greedily from each node: the next write is the one of
     * another node, surely after the current one, whose acknowledgement surely ended first (with two
     * nodes the chain's nodes alternate, so earliest-ending-first is optimal, as in interval scheduling).
     */
    List<Ack> longestSwitchChain() {
        List<Ack> byReceive = new ArrayList<>(acks);
        byReceive.sort(Comparator.comparingLong(Ack::received));
        List<Ack> best = List.of();
        for (String first : byReceive.stream().map(Ack::node).distinct().toList()) {
            List<Ack> chain = new ArrayList<>();
            for (Ack a : byReceive) {
                if (chain.isEmpty()) {
                    if (a.node().equals(first)) chain.add(a);
                    continue;
                }
                Ack last = chain.get(chain.size() - 1);
                if (!a.node().equals(last.node()) && a.sent() > last.received()) chain.add(a);
            }
            if (chain.size() > best.size()) best = chain;
        }
        return best;
    }

    /** The first {@code limit} writes of the longest chain, as "node sent..received" in ms since its first. */
    String describeChain(int limit) {
        List<Ack> chain = longestSwitchChain();
        if (chain.isEmpty()) return "[]";
        long origin = chain.get(0).sent();
        StringBuilder b = new StringBuilder("[");
        for (Ack a : chain.subList(0, Math.min(limit, chain.size()))) {
            if (b.length() > 1) b.append(", ");
            b.append(String.format(
                    "%s %.1f..%.1f ms", a.node(), (a.sent() - origin) / 1e6, (a.received() - origin) / 1e6));
        }
        return b.append(chain.size() > limit ? ", ...]" : "]").toString();
    }

    int sureSwitches() {
        return Math.max(0, longestSwitchChain().size() - 1);
    }

    /** Whether two nodes acknowledged in overlapping time, given the shard's epoch moved {@code epochMoves}. */
    boolean overlaps(long epochMoves) {
        return sureSwitches() > epochMoves;
    }

    /**
     * The smallest gap, in ms, between one node's acknowledgement and the next node's at a sure switch:
     * the next write's send time minus the previous write's receive time (Long.MAX_VALUE with no switch).
     */
    long smallestSwitchGapMs() {
        List<Ack> chain = longestSwitchChain();
        long smallest = Long.MAX_VALUE;
        for (int i = 1; i < chain.size(); i++) {
            smallest =
                    Math.min(smallest, (chain.get(i).sent() - chain.get(i - 1).received()) / 1_000_000);
        }
        return smallest;
    }
}
