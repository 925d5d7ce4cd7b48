/**
 * JMH microbenchmarks ({@code ./kvs bench jmh}): the store by value size and the replication frame
 * codec. Each is a plain JMH benchmark; {@link dev.kvs.bench.jmh.JmhCommand} runs them from the kvs
 * jar and writes JMH's JSON.
 */
package dev.kvs.bench.jmh;
