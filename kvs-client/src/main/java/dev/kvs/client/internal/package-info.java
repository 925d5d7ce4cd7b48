/**
 * The client over Netty: pipelined RESP connections, endpoint pools and the router that picks an
 * endpoint per attempt, the calls that retry and fail over, and the mapping of error replies to
 * exceptions; in cluster mode, the topology read from {@code CLUSTER SHARDS}, the router of each hash
 * slot (one pair per shard) with its rate-limited refreshes, and the split of multi-key calls by slot.
 * Not an API: applications use {@link dev.kvs.client.KvsClient}.
 */
package dev.kvs.client.internal;
