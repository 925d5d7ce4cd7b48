/**
 * The admin HTTP port: a small router over Netty's HTTP codec serving {@code /health}, and the routes
 * other parts of the node add: {@code /status} and {@code /metrics} ({@code StatusRoutes}), failover
 * ({@code FailoverRoutes}); who may use it ({@code AdminAccess}: a bearer token, else loopback-only
 * actions); strict parameters; blocking actions on a pool of its own.
 */
package dev.kvs.server.internal.admin;
