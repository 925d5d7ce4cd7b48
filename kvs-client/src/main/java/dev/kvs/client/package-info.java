/**
 * The Java client SDK: {@link dev.kvs.client.KvsClient}, its builder, the unchecked {@link
 * dev.kvs.client.KvsClientException} hierarchy, one subclass per failure a caller can act on, {@link
 * dev.kvs.client.ClusterStatus}, what a cluster-mode client knows of the topology, and {@link
 * dev.kvs.client.Keys}, the form messages print a key in. Depends on Netty, SLF4J and kvs-cluster (the
 * hash slot function) only.
 */
package dev.kvs.client;
