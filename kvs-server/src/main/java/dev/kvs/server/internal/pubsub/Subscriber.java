package dev.kvs.server.internal.pubsub;

/**
 * Where {@link PubSub} hands a message for one connection. Called on the publisher's thread, which may
 * be any thread (an event loop, the scripts' thread, the expiry thread), concurrently: it must queue
 * the message for its connection and return at once, never waiting for a slow client.
 */
public interface Subscriber {
    /** What a message was delivered for: Redis's {@code message}, {@code pmessage}, {@code smessage}. */
    enum Kind {
        /** To a channel subscribed with {@code SUBSCRIBE}. */
        MESSAGE,
        /** To a channel matching a pattern subscribed with {@code PSUBSCRIBE}. */
        PMESSAGE,
        /** To a shard channel subscribed with {@code SSUBSCRIBE}. */
        SMESSAGE
    }

    /**
     * Queues {@code message}, published to {@code channel}, for this subscriber's client.
     *
     * @param pattern the pattern it matched ({@link Kind#PMESSAGE}), else {@code null}
     */
    void deliver(Kind kind, byte[] pattern, byte[] channel, byte[] message);
}
