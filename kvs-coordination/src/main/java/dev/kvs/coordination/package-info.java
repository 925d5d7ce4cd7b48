/**
 * The control plane of a sharded kvs, on ZooKeeper through Apache Curator. ZooKeeper is never on the
 * write path: a primary checks its {@link dev.kvs.coordination.Lease} (one volatile read) before it
 * acknowledges a write or serves a read, and the lease is renewed off that path.
 */
package dev.kvs.coordination;
