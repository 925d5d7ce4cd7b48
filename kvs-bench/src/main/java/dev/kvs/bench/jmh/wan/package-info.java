/** JMH benchmarks of kvs-wan: the WAN emulator's accuracy in round trips through a delayed link. */
package dev.kvs.bench.jmh.wan;
