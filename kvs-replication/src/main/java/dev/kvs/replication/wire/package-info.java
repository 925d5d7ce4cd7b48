/**
 * The replication protocol between a primary and its backup: the {@link
 * dev.kvs.replication.wire.Frame} messages, their binary format and Netty codec, and the socket
 * channel classes the replication connections use.
 */
package dev.kvs.replication.wire;
