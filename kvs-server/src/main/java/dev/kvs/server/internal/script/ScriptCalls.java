package dev.kvs.server.internal.script;

import io.netty.handler.codec.redis.RedisMessage;

/**
 * How a script's {@code redis.call} and {@code redis.pcall} reach the node's commands. The RESP port
 * implements it: it checks the command as Redis checks one called from a script (known, arity, allowed
 * in scripts, no write from a read-only script, permissions, slots) and runs it as it runs a command
 * queued in {@code EXEC}. Defined here so that this package never depends on the port.
 */
@FunctionalInterface
public interface ScriptCalls {
    /**
     * Runs the command {@code args} names ({@code args[0]}) for {@code run}.
     *
     * @return its reply; an {@code ErrorRedisMessage} if it was refused or failed (with Redis's words for a
     *     script's call: {@code ERR Unknown Redis command called from script}...)
     */
    RedisMessage call(ScriptRun run, byte[][] args);
}
