/**
 * The replication protocol between a primary and its backup: the {@link
 * dev.kvs.replication.wire.Frame} messages and their binary format and Netty codec (the socket channel
 * classes are the API's {@link dev.kvs.replication.Transports}, since the client port uses them too).
 */
package dev.kvs.replication.wire;
