package dev.kvs.client;

import java.util.List;

/**
 * Hears which node answered each write, and when: what a failover drill needs to check that two nodes of
 * a shard never acknowledged writes in overlapping time ({@link KvsClient.Builder#acknowledgements}).
 * Called on the client's I/O thread before the write's future completes, once per write answered with
 * success; it must be quick and must not block. Reads and failed writes are not reported.
 */
@FunctionalInterface
public interface Acknowledgements {
    /**
     * A write was acknowledged.
     *
     * @param keys the write's keys (not copied: do not modify)
     * @param node {@code host:port} of the node that acknowledged it
     * @param sentNanos {@link System#nanoTime()} when the attempt that succeeded was handed to its
     *     connection
     * @param answeredNanos {@link System#nanoTime()} when the success reply was read
     */
    void acknowledged(List<byte[]> keys, String node, long sentNanos, long answeredNanos);
}
