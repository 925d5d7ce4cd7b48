package dev.kvs.client;

import java.time.Duration;
import java.time.Instant;

/**
 * What a cluster-mode client knows of the cluster's topology and how it got there, for logs and
 * health checks ({@link KvsClient#clusterStatus()}). A snapshot: later calls return new values.
 *
 * @param shards shards in the current topology that serve at least one slot (0 before the first
 *     successful refresh)
 * @param slotsCovered slots some shard serves: 16,384 unless the cluster has a hole
 * @param nodes nodes the client holds connection pools for: those of the topology, plus seeds and
 *     {@code -MOVED} targets named since the last refresh
 * @param lastRefresh when the current topology was read, or null if never
 * @param refreshes successful topology reads ({@code CLUSTER SHARDS}) so far, the first included
 * @param failedRefreshes topology reads that no node answered
 * @param movedReplies {@code -MOVED} replies received (each asks for a refresh, at most one at a time
 *     and one per {@code refreshMinInterval})
 * @param clusterDownReplies {@code -CLUSTERDOWN} replies received: a node that executed nothing because
 *     its lease lapsed (cut off from ZooKeeper) or it has no cluster map yet; each request that gets one
 *     goes on to its shard's other nodes, and each asks for a refresh as {@code -MOVED} does
 * @param lastRefreshError why the last failed refresh failed, or null if none failed
 * @param maxRedirects how many {@code -MOVED} replies one request follows before it fails with {@link
 *     TooManyRedirectsException}
 * @param refreshMinInterval the least time between the starts of two refreshes
 * @param maxPendingPerConnection requests in flight per connection, beyond which a request fails with
 *     {@link TooManyPendingRequestsException} (a split {@code getAll}/{@code putAll} sends one request
 *     per slot, each counted)
 */
public record ClusterStatus(
        int shards,
        int slotsCovered,
        int nodes,
        Instant lastRefresh,
        long refreshes,
        long failedRefreshes,
        long movedReplies,
        long clusterDownReplies,
        String lastRefreshError,
        int maxRedirects,
        Duration refreshMinInterval,
        int maxPendingPerConnection) {}
