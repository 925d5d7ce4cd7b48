/** JMH benchmarks of kvs-replication: the frame codec, through its Netty handlers. */
package dev.kvs.bench.jmh.replication;
