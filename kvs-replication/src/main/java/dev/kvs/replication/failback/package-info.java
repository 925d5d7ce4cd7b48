/**
 * Failback, both ends of it. A deposed primary runs {@link dev.kvs.replication.failback.HandbackClient}:
 * it dials the node that replaced it, learns which fenced keys that node lacks ({@link
 * dev.kvs.replication.WantedValue}), hands back the values it holds for exactly those writes,
 * and rolls back its own writes the new primary never received ({@link
 * dev.kvs.replication.HandbackReport}). The new primary answers through its replication
 * listener, which offers the node's {@link dev.kvs.replication.Handback}. These
 * records and the interface are the API's; a node starts the handback through {@link
 * dev.kvs.replication.ReplicationEnds#handBack}.
 */
package dev.kvs.replication.failback;
