package dev.kvs.client.internal;

import io.netty.handler.codec.redis.RedisMessage;

/** Turns a non-error reply into a command's result, copying what it keeps (the reply is released after). */
@FunctionalInterface
interface ReplyDecoder<T> {
    /**
     * @throws dev.kvs.client.KvsClientException if the reply is not of the kind the command expects
     */
    T decode(String command, RedisMessage reply);
}
