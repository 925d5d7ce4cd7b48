/**
 * The node's YAML configuration: {@link dev.kvs.server.config.NodeConfigLoader} reads it, with sizes
 * such as {@code 64mb} ({@link dev.kvs.server.config.ByteSize}) and a clear error for every bad value.
 */
package dev.kvs.server.config;
