/**
 * The RESP client port: our own decoder (with limits), the per-connection handler that keeps replies
 * in request order while writes wait for replication, and the commands (data commands write through
 * {@link dev.kvs.server.internal.write.Writes}).
 */
package dev.kvs.server.internal.resp;
