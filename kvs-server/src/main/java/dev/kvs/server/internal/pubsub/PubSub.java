package dev.kvs.server.internal.pubsub;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The node's channels, patterns and shard channels, and who listens to each; publishes a message to
 * them. Node-local, as in Redis: nothing is replicated, a backup publishes to its own subscribers.
 * Thread-safe: a publish from any thread (event loop, scripts' thread, expiry thread) runs on that
 * thread, hands the message to each {@link Subscriber} (which only queues it) and never waits for a
 * subscriber's client. A subscribe or unsubscribe goes through the connection's {@link Subscriptions}.
 * Holds the {@code pubsub} class's {@link OutputLimit}, which {@code CONFIG SET} may change, and the
 * count of subscribers disconnected by it.
 */
public final class PubSub {
    /** A pattern's subscribers, with the pattern compiled once. */
    private record PatternSubscribers(byte[] pattern, Predicate<byte[]> matcher, Set<Subscriber> subscribers) {}

    private final Function<byte[], Predicate<byte[]>> patterns;
    private final Map<Name, Set<Subscriber>> channelSubscribers = new ConcurrentHashMap<>();
    private final Map<Name, PatternSubscribers> patternSubscribers = new ConcurrentHashMap<>();
    private final Map<Name, Set<Subscriber>> shardSubscribers = new ConcurrentHashMap<>();
    private final LongAdder disconnections = new LongAdder();
    private volatile OutputLimit limit;

    /**
     * @param patterns compiles a {@code PSUBSCRIBE} pattern to its matcher of channel names (Redis's
     *     glob, the RESP port's {@code GlobPattern})
     * @param limit the {@code pubsub} class's output limit to start with
     */
    public PubSub(Function<byte[], Predicate<byte[]>> patterns, OutputLimit limit) {
        this.patterns = patterns;
        this.limit = limit;
    }

    /**
     * Publishes {@code message} to {@code channel}: to its subscribers and those of every pattern it
     * matches. Safe from any thread; returns without waiting for any client.
     *
     * @return how many subscriptions received it (a client subscribed to the channel and to two
     *     matching patterns counts three), as {@code PUBLISH} answers
     */
    public int publish(byte[] channel, byte[] message) {
        int receivers = 0;
        Set<Subscriber> direct = channelSubscribers.get(new Name(channel));
        if (direct != null) {
            for (Subscriber s : direct) {
                s.deliver(Subscriber.Kind.MESSAGE, null, channel, message);
                receivers++;
            }
        }
        if (patternSubscribers.isEmpty()) return receivers;
        for (PatternSubscribers p : patternSubscribers.values()) {
            if (!p.matcher().test(channel)) continue;
            for (Subscriber s : p.subscribers()) {
                s.deliver(Subscriber.Kind.PMESSAGE, p.pattern(), channel, message);
                receivers++;
            }
        }
        return receivers;
    }

    /** {@code SPUBLISH}: publishes {@code message} to the subscribers of shard channel {@code channel}. */
    public int publishToShard(byte[] channel, byte[] message) {
        Set<Subscriber> subscribers = shardSubscribers.get(new Name(channel));
        if (subscribers == null) return 0;
        int receivers = 0;
        for (Subscriber s : subscribers) {
            s.deliver(Subscriber.Kind.SMESSAGE, null, channel, message);
            receivers++;
        }
        return receivers;
    }

    /** A connection's subscriptions, empty, delivering to {@code subscriber}. */
    public Subscriptions subscriptions(Subscriber subscriber) {
        return new Subscriptions(this, subscriber);
    }

    /** Channels with at least one subscriber, matching {@code matcher} ({@code PUBSUB CHANNELS}). */
    public List<byte[]> channels(Predicate<byte[]> matcher) {
        return names(channelSubscribers, matcher);
    }

    /** Shard channels with at least one subscriber, matching {@code matcher} ({@code PUBSUB SHARDCHANNELS}). */
    public List<byte[]> shardChannels(Predicate<byte[]> matcher) {
        return names(shardSubscribers, matcher);
    }

    /** Subscribers of {@code channel}, patterns not counted ({@code PUBSUB NUMSUB}). */
    public int subscribers(byte[] channel) {
        Set<Subscriber> s = channelSubscribers.get(new Name(channel));
        return s == null ? 0 : s.size();
    }

    /** Subscribers of shard channel {@code channel} ({@code PUBSUB SHARDNUMSUB}). */
    public int shardSubscribers(byte[] channel) {
        Set<Subscriber> s = shardSubscribers.get(new Name(channel));
        return s == null ? 0 : s.size();
    }

    /** Channels with subscribers ({@code INFO}'s {@code pubsub_channels}). */
    public int channelCount() {
        return channelSubscribers.size();
    }

    /** Shard channels with subscribers ({@code INFO}'s {@code pubsubshard_channels}). */
    public int shardChannelCount() {
        return shardSubscribers.size();
    }

    /** Patterns with subscribers ({@code PUBSUB NUMPAT}, {@code INFO}'s {@code pubsub_patterns}). */
    public int patternCount() {
        return patternSubscribers.size();
    }

    /** The {@code pubsub} class's output limit now. */
    public OutputLimit limit() {
        return limit;
    }

    /** Sets the {@code pubsub} class's output limit ({@code CONFIG SET}); subscribers see it at their next message. */
    public void limit(OutputLimit limit) {
        this.limit = limit;
    }

    /** A subscriber was disconnected for its {@link #limit()}: counted for INFO, metrics and status. */
    public void disconnected() {
        disconnections.increment();
    }

    /** Subscribers disconnected for the output limit since the node started. */
    public long disconnections() {
        return disconnections.sum();
    }

    void addChannel(byte[] channel, Subscriber s, boolean shard) {
        (shard ? shardSubscribers : channelSubscribers).compute(new Name(channel), (k, set) -> {
            Set<Subscriber> out = set != null ? set : ConcurrentHashMap.newKeySet();
            out.add(s);
            return out;
        });
    }

    void removeChannel(byte[] channel, Subscriber s, boolean shard) {
        (shard ? shardSubscribers : channelSubscribers).computeIfPresent(new Name(channel), (k, set) -> {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
    }

    void addPattern(byte[] pattern, Subscriber s) {
        patternSubscribers.compute(new Name(pattern), (k, p) -> {
            PatternSubscribers out = p != null
                    ? p
                    : new PatternSubscribers(pattern, patterns.apply(pattern), ConcurrentHashMap.newKeySet());
            out.subscribers().add(s);
            return out;
        });
    }

    void removePattern(byte[] pattern, Subscriber s) {
        patternSubscribers.computeIfPresent(new Name(pattern), (k, p) -> {
            p.subscribers().remove(s);
            return p.subscribers().isEmpty() ? null : p;
        });
    }

    private static List<byte[]> names(Map<Name, ?> map, Predicate<byte[]> matcher) {
        List<byte[]> out = new ArrayList<>();
        for (Name n : map.keySet()) {
            if (matcher.test(n.bytes)) out.add(n.bytes);
        }
        return out;
    }
}
