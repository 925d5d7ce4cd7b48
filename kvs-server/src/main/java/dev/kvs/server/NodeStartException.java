package dev.kvs.server;

import dev.kvs.core.KvsException;

/** A node could not start: a port is taken, an address cannot be bound, or it was interrupted. */
public final class NodeStartException extends KvsException {
    public NodeStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
