package dev.kvs.server.internal.resp;

import io.netty.handler.codec.redis.RedisMessage;

/** One RESP command's implementation. */
@FunctionalInterface
interface Command {
    /**
     * Executes the command; {@code args[0]} is the command name. Runs on the connection's event loop
     * and must not block.
     *
     * @return the reply, or a {@link LaterReply} when the reply waits for replication
     */
    RedisMessage execute(Session session, byte[][] args);
}
