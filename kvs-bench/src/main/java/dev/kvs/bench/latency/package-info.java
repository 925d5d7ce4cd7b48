/**
 * {@code kvs bench}, latency benchmarks of identifier-first replication with acceptance bounds:
 * {@code keys-under-load} (small writes while large values fill the link) and {@code
 * id-first-overhead} (an id-first write's cost over async in link round trips), each on two DCs
 * over an emulated WAN.
 */
package dev.kvs.bench.latency;
