/**
 * JMH microbenchmarks ({@code ./kvs bench jmh}). The benchmarks of one module's code sit in a package that
 * mirrors it: {@code core} (the store), {@code replication} (the frame codec), {@code server} (the client
 * port's RESP codec), {@code wan} (the WAN emulator). This package holds the runner, {@link
 * dev.kvs.bench.jmh.JmhCommand}, which runs them all from the kvs jar and writes JMH's JSON, and the
 * end-to-end benchmarks, which measure no one module: a SET's latency per replication mode across two
 * in-process DCs and an emulated WAN link ({@code ReplicationLatencyBenchmark}), and the Redis baseline
 * of the same ({@code RedisWaitBenchmark}, a real {@code redis-server} primary and replica).
 */
package dev.kvs.bench.jmh;
