/**
 * The write path of the primary: {@link dev.kvs.server.internal.write.Writes}, the one way a command
 * writes the store, in TxId order, replicated as its mode says.
 */
package dev.kvs.server.internal.write;
