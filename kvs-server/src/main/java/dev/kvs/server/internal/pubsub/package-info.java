/**
 * Pub/sub as Redis has it, node-local: {@link dev.kvs.server.internal.pubsub.PubSub} holds who listens
 * to which channel, pattern and shard channel, and hands each published message to its {@link
 * dev.kvs.server.internal.pubsub.Subscriber}s; a connection's own subscriptions are its {@link
 * dev.kvs.server.internal.pubsub.Subscriptions}. Nothing here is replicated or stored: a message reaches
 * the subscribers connected to the node it is published on, when it is published, or no one. Kept out
 * of the RESP port so that anything on the node (a command, a script, the expiry thread's keyspace
 * events) publishes through the same {@link dev.kvs.server.internal.pubsub.PubSub#publish}, from any
 * thread; how a message is written to a client, and when a slow one is cut off ({@link
 * dev.kvs.server.internal.pubsub.OutputLimit}), is the RESP port's.
 */
package dev.kvs.server.internal.pubsub;
