/**
 * What a node's servers share ({@link dev.kvs.server.internal.NodeContext}), its metrics and status
 * snapshot, and the Netty transport it runs on. Not an API.
 */
package dev.kvs.server.internal;
