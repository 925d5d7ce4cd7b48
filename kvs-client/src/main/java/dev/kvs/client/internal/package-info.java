/**
 * The client over Netty: pipelined RESP connections, endpoint pools and the router that picks an
 * endpoint per attempt, the calls that retry and fail over, and the mapping of error replies to
 * exceptions. Not an API: applications use {@link dev.kvs.client.KvsClient}.
 */
package dev.kvs.client.internal;
