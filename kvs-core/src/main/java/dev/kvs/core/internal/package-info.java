/**
 * The Chronicle Map implementation of {@link dev.kvs.core.KvStore}: record and value-chunk maps,
 * their marshallers and sizing, the data directory of a persisted store, and the limits, capacity
 * counters and key locks every write goes through. Also the member pages of hashes and sets ({@link
 * dev.kvs.core.internal.MemberPages}: linear-hashed pages, their header, scan cursor and canonical
 * image), which {@link dev.kvs.core.internal.Structures} (and, for several keys at once, {@link
 * dev.kvs.core.internal.StructureBatch}) keeps in step with a structure's record and
 * the capacity counters. Not an API: other modules open a store through
 * {@link dev.kvs.core.KvStore#builder()}.
 */
package dev.kvs.core.internal;
