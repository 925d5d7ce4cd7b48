/**
 * The store's API: {@link dev.kvs.core.KvStore} and its builder, the records it holds ({@link
 * dev.kvs.core.StoredValue}, {@link dev.kvs.core.RecordHeader}, {@link dev.kvs.core.RecordState},
 * {@link dev.kvs.core.TxId}), what a key holds ({@link dev.kvs.core.ValueType}: a string, a hash, a set
 * or a list (laid out in members by {@link dev.kvs.core.ListLayout}), with {@link dev.kvs.core.Member}, {@link dev.kvs.core.MemberWrite} and {@link
 * dev.kvs.core.WrongTypeException}; several at once with {@link dev.kvs.core.StructureView} and {@link
 * dev.kvs.core.StructureChange}), its configuration and statistics, and the unchecked {@link
 * dev.kvs.core.KvsException} hierarchy that replication and the server extend.
 */
package dev.kvs.core;
