package dev.kvs.server.internal.role;

import dev.kvs.core.KvsException;

/** A role change (promotion, switchover, ...) that cannot be made in the node's current state. */
public final class RoleChangeException extends KvsException {
    public RoleChangeException(String message) {
        super(message);
    }
}
