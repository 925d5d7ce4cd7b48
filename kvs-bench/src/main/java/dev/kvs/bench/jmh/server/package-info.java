/** JMH benchmarks of kvs-server: the client port's RESP codec. */
package dev.kvs.bench.jmh.server;
