/**
 * Authentication of replication connections by a shared {@link dev.kvs.replication.auth.ClusterSecret}:
 * an HMAC-SHA256 challenge-response in both directions, before anything else is read ({@link
 * dev.kvs.replication.auth.DiallerAuth}, {@link dev.kvs.replication.auth.ListenerAuth}).
 */
package dev.kvs.replication.auth;
