package dev.kvs.server.internal.write;

import dev.kvs.core.KvsException;

/**
 * This node takes no writes now: it is not the primary, or its writes are fenced. The message is the
 * error reply ({@code NOTPRIMARY ...} or {@code FENCED ...}).
 */
public final class NotWritableException extends KvsException {
    public NotWritableException(String reply) {
        super(reply);
    }
}
