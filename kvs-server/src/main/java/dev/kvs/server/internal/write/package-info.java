/**
 * The write path of the primary: {@link dev.kvs.server.internal.write.Writes}, the one way a command
 * writes the store (a SET's long value staged as it arrives included), in TxId order, replicated as its
 * mode says; each client write keeps its order in the connection's {@link
 * dev.kvs.server.internal.write.LastWrite} for {@code WAIT}. An {@code EXEC}'s writes are held in a
 * {@link dev.kvs.server.internal.write.WriteUnit} and committed to replication together.
 */
package dev.kvs.server.internal.write;
