/**
 * The admin HTTP port: a small router over Netty's HTTP codec, {@code /health}, {@code /status},
 * {@code /metrics}; who may use it ({@code AdminAccess}: a bearer token, else loopback-only actions);
 * strict parameters; blocking actions on a pool of its own.
 */
package dev.kvs.server.internal.admin;
