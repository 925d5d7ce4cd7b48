/**
 * The {@code kvs} launcher: the top-level command {@link dev.kvs.cli.KvsCli} that {@code ./kvs} and
 * the Docker image run from {@code kvs.jar}, with the {@code demo}, {@code server}, {@code wan},
 * {@code drill} and {@code bench} commands of kvs-server and kvs-bench under it.
 */
package dev.kvs.cli;
