/**
 * The Java client SDK: {@link dev.kvs.client.KvsClient}, its builder, and the unchecked {@link
 * dev.kvs.client.KvsClientException} hierarchy, one subclass per failure a caller can act on, and
 * {@link dev.kvs.client.Keys}, the form messages print a key in. Depends on Netty and SLF4J only.
 */
package dev.kvs.client;
