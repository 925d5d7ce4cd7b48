package dev.kvs.server.internal.resp;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.concurrent.CompletionStage;

/**
 * A reply that is not known yet: a write's reply waits for replication. Only {@link ReplyQueue}
 * sees it; it writes the reply, in request order, when {@code reply} completes.
 *
 * @param reply the reply to come
 */
record LaterReply(CompletionStage<RedisMessage> reply) implements RedisMessage {}
