package dev.kvs.server.internal.resp;

/** One RESP command's implementation. */
@FunctionalInterface
interface Command {
    /**
     * Executes the command; {@code args[0]} is the command name. Runs on the connection's event loop
     * and must not block.
     *
     * @return a {@link io.netty.handler.codec.redis.RedisMessage}, or a {@link
     *     java.util.concurrent.CompletionStage} of one when the reply waits for replication
     */
    Object execute(Session session, byte[][] args);
}
