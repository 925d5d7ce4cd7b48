package dev.kvs.server.internal.resp;

import io.netty.handler.codec.redis.RedisMessage;

/**
 * A command that can run a run of itself as one: commands of one read of one connection, one after
 * the other, naming it on the same key ({@link CommandRuns}). Three SETs of one key are one write of
 * the last value; sixteen SPOPs of one set are one pop of sixteen members; SADDs of one set are one
 * write of their members. Each command still gets the reply it would have had alone.
 */
interface RunCommand {
    /** True if {@code args} (a command naming this one, on a key) is of the form a run takes. */
    boolean joins(byte[][] args);

    /**
     * Runs {@code run[0..n)}, two or more commands of this kind on one key, as one, on the connection's
     * event loop; keyspace events are off and no key is fenced ({@link CommandRuns#mayRun}).
     *
     * @return each command's reply, in order (a {@link LaterReply} where it waits for replication), or
     *     {@code null} if nothing was done and each must run alone (the key holds the wrong type, the
     *     write was refused): then each gets its own reply, or error, as it would have
     */
    RedisMessage[] execute(Session session, byte[][][] run, int n);
}
