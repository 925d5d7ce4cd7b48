/** The admin HTTP port: a small router over Netty's HTTP codec, {@code /health}, {@code /status}, {@code /metrics}. */
package dev.kvs.server.internal.admin;
