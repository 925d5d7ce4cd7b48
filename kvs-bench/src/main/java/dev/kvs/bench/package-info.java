/**
 * {@code kvs bench}, {@link dev.kvs.bench.BenchCommand}: the command that gathers the benchmarks of the
 * packages below it (the latency benchmarks, JMH, the charts). It sits above them so none of them has to
 * know the others: the packages of kvs-bench import one another without a loop.
 */
package dev.kvs.bench;
