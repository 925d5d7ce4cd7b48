/**
 * A kvs node: {@link dev.kvs.server.KvsNode} starts one from a {@link dev.kvs.server.config.NodeConfig} (its
 * store, RESP client port, admin HTTP port and replication) and stops it cleanly.
 */
package dev.kvs.server;
