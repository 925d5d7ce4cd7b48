/** The {@code kvs server} command: options and YAML configuration to a running node. */
package dev.kvs.server.cli;
