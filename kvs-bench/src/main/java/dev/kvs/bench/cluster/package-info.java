/**
 * Two DCs on this machine, each a kvs node in a child process, as {@code kvs drill} and {@code kvs
 * bench} start them: {@link dev.kvs.bench.cluster.TwoDcs} starts a backup, an emulated WAN link
 * ({@link dev.kvs.bench.cluster.LinkSettings}) and a primary, from the nodes' YAML ({@link
 * dev.kvs.bench.cluster.NodeYaml}), and waits until the primary streams to the backup.
 *
 * <p>Every process starts through {@link dev.kvs.bench.cluster.ChildProcesses}, whose shutdown hook
 * kills them if the JVM stops early (Ctrl-C), and runs the same {@code java} with the same flags as
 * this JVM ({@link dev.kvs.bench.cluster.JavaCommand}), with {@link dev.kvs.bench.cluster.ChildKvs}
 * as its main class. A {@link dev.kvs.bench.cluster.NodeProcess} knows when its node is ready from
 * the line the node prints, and quotes the node's log when it fails. The drill and the benchmarks
 * pass in what differs between them: the nodes' tuning, the primary's flags, the link.
 */
package dev.kvs.bench.cluster;
