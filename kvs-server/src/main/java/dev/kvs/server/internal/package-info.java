/**
 * What several parts of a node share, each made once by {@code KvsNode} and handed to the parts that
 * use it: the metrics ({@link dev.kvs.server.internal.NodeMetrics}) and status snapshot ({@link
 * dev.kvs.server.internal.NodeStatus}), the admin port's figures, client ids, and the Netty transport the
 * ports run on. Not an API.
 */
package dev.kvs.server.internal;
