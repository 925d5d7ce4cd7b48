package dev.kvs.client.internal;

import dev.kvs.cluster.HashSlots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Cluster mode's split of a multi-key request: a node answers {@code -CROSSSLOT} to keys of two
 * slots (as Redis does, even when one shard serves both), so {@code MGET}/{@code MSET} are sent once
 * per slot, concurrently, and their replies joined back in the caller's key order.
 */
final class SlotGroups {
    private SlotGroups() {}

    /** The indices of {@code keys}, one array per slot, in the order of each slot's first key. */
    static List<int[]> of(List<byte[]> keys) {
        Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            bySlot.computeIfAbsent(HashSlots.slot(keys.get(i)), s -> new ArrayList<>())
                    .add(i);
        }
        List<int[]> groups = new ArrayList<>(bySlot.size());
        for (List<Integer> g : bySlot.values())
            groups.add(g.stream().mapToInt(Integer::intValue).toArray());
        return groups;
    }

    /** The elements of {@code list} at {@code indices}, in that order. */
    static <E> List<E> pick(List<E> list, int[] indices) {
        List<E> out = new ArrayList<>(indices.length);
        for (int i : indices) out.add(list.get(i));
        return out;
    }

    /**
     * Completes when every part has, normally if all did; otherwise with the failure of the first part
     * (in list order) that failed. It waits for every part first, so that when the caller hears of a
     * failure no part is still in flight.
     */
    static CompletableFuture<Void> all(List<? extends CompletableFuture<?>> parts) {
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
                .handle((v, e) -> null)
                .thenCompose(ignored -> {
                    for (CompletableFuture<?> p : parts) {
                        Throwable t = p.handle((r, e) -> e).join();
                        if (t != null) {
                            return CompletableFuture.failedFuture(
                                    t instanceof CompletionException && t.getCause() != null ? t.getCause() : t);
                        }
                    }
                    return CompletableFuture.completedFuture(null);
                });
    }
}
