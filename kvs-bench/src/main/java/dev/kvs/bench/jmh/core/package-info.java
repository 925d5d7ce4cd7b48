/** JMH benchmarks of kvs-core: the Chronicle Map store's put and get by value size, and emptying it. */
package dev.kvs.bench.jmh.core;
