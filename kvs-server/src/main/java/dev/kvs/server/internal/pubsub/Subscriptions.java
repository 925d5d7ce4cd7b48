package dev.kvs.server.internal.pubsub;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One connection's channels, patterns and shard channels, kept in {@link PubSub}'s registry as they
 * change. What {@code SUBSCRIBE} and the rest change, and {@code CLIENT LIST}'s {@code sub=}/{@code psub=}
 * count; {@link #clear} when the connection closes or resets. Confined to the connection's event loop
 * (the registry itself is shared and thread-safe).
 */
public final class Subscriptions {
    private final PubSub pubSub;
    private final Subscriber subscriber;
    private final Set<Name> channels = new LinkedHashSet<>();
    private final Set<Name> patterns = new LinkedHashSet<>();
    private final Set<Name> shardChannels = new LinkedHashSet<>();

    Subscriptions(PubSub pubSub, Subscriber subscriber) {
        this.pubSub = pubSub;
        this.subscriber = subscriber;
    }

    /** {@code SUBSCRIBE channel}: true if it was not subscribed yet. */
    public boolean subscribe(byte[] channel) {
        if (!channels.add(new Name(channel))) return false;
        pubSub.addChannel(channel, subscriber, false);
        return true;
    }

    /** {@code UNSUBSCRIBE channel}: true if it was subscribed. */
    public boolean unsubscribe(byte[] channel) {
        if (!channels.remove(new Name(channel))) return false;
        pubSub.removeChannel(channel, subscriber, false);
        return true;
    }

    /** {@code PSUBSCRIBE pattern}: true if it was not subscribed yet. */
    public boolean psubscribe(byte[] pattern) {
        if (!patterns.add(new Name(pattern))) return false;
        pubSub.addPattern(pattern, subscriber);
        return true;
    }

    /** {@code PUNSUBSCRIBE pattern}: true if it was subscribed. */
    public boolean punsubscribe(byte[] pattern) {
        if (!patterns.remove(new Name(pattern))) return false;
        pubSub.removePattern(pattern, subscriber);
        return true;
    }

    /** {@code SSUBSCRIBE channel}: true if it was not subscribed yet. */
    public boolean ssubscribe(byte[] channel) {
        if (!shardChannels.add(new Name(channel))) return false;
        pubSub.addChannel(channel, subscriber, true);
        return true;
    }

    /** {@code SUNSUBSCRIBE channel}: true if it was subscribed. */
    public boolean sunsubscribe(byte[] channel) {
        if (!shardChannels.remove(new Name(channel))) return false;
        pubSub.removeChannel(channel, subscriber, true);
        return true;
    }

    /** The channels subscribed, in the order they were. */
    public List<byte[]> channels() {
        return bytes(channels);
    }

    /** The patterns subscribed, in the order they were. */
    public List<byte[]> patterns() {
        return bytes(patterns);
    }

    /** The shard channels subscribed, in the order they were. */
    public List<byte[]> shardChannels() {
        return bytes(shardChannels);
    }

    /** Channels plus patterns: the count Redis's (P)SUBSCRIBE and (P)UNSUBSCRIBE replies carry. */
    public int count() {
        return channels.size() + patterns.size();
    }

    /** Shard channels: the count SSUBSCRIBE and SUNSUBSCRIBE replies carry. */
    public int shardCount() {
        return shardChannels.size();
    }

    public int channelCount() {
        return channels.size();
    }

    public int patternCount() {
        return patterns.size();
    }

    /** True while anything is subscribed: a RESP2 connection is in subscribe mode. */
    public boolean any() {
        return !channels.isEmpty() || !patterns.isEmpty() || !shardChannels.isEmpty();
    }

    /** Drops every subscription (the connection closed or ran {@code RESET}). */
    public void clear() {
        for (Name n : channels) pubSub.removeChannel(n.bytes, subscriber, false);
        for (Name n : patterns) pubSub.removePattern(n.bytes, subscriber);
        for (Name n : shardChannels) pubSub.removeChannel(n.bytes, subscriber, true);
        channels.clear();
        patterns.clear();
        shardChannels.clear();
    }

    private static List<byte[]> bytes(Set<Name> names) {
        List<byte[]> out = new ArrayList<>(names.size());
        for (Name n : names) out.add(n.bytes);
        return out;
    }
}
