/**
 * A kvs node: {@link dev.kvs.server.KvsNode} starts one from a {@link dev.kvs.server.config.NodeConfig} (its
 * store, RESP client port, admin HTTP port and replication) and stops it cleanly. It is where the node
 * is assembled: it makes each part and hands it the few others it uses, in the order they start.
 */
package dev.kvs.server;
