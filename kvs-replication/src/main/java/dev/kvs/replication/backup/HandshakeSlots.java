package dev.kvs.replication.backup;

import dev.kvs.replication.BackupConfig;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The replication port's connections whose handshake is not done yet, in two pools, so that strangers
 * cannot shut the real primary out. Connections from the configured peer's address, or whose TLS
 * identity is proven, go to the peer's pool ({@link BackupConfig#maxPeerHandshakes()}), which
 * strangers never take from. Every other connection is a stranger's: at most {@link
 * BackupConfig#maxHandshakesPerSource()} from one source address and {@link
 * BackupConfig#maxHandshakes()} in all. A full pool never refuses the newcomer: its oldest connection
 * is closed to make room (the source's own oldest when the source is at its cap), so a squatter holds a
 * slot only until newer connections come, and never longer than the authentication deadline.
 *
 * <p>Thread-safe: connections are accepted on every event loop.
 */
final class HandshakeSlots {
    /**
     * A connection to close to make room.
     *
     * @param why which bound was reached, for the log
     */
    record Eviction(Channel channel, InetAddress source, String why) {}

    private final BackupConfig config;
    private volatile Set<InetAddress> peerAddresses = Set.of();

    // guarded by this; insertion order is age, oldest first
    private final Map<Channel, InetAddress> strangers = new LinkedHashMap<>();
    private final Set<Channel> peers = new LinkedHashSet<>();
    private final Map<InetAddress, Integer> bySource = new HashMap<>();

    HandshakeSlots(BackupConfig config) {
        this.config = config;
    }

    /** The addresses the configured peer connects from: their connections use the peer's pool. */
    void peerAddresses(Set<InetAddress> addresses) {
        peerAddresses = Set.copyOf(addresses);
    }

    /**
     * Takes a slot for {@code ch}, accepted from {@code source} (null if unknown: a stranger).
     *
     * @return the connections to close to make room, their slots already given up
     */
    synchronized List<Eviction> admit(Channel ch, InetAddress source) {
        List<Eviction> out = new ArrayList<>(1);
        if (source != null && peerAddresses.contains(source)) {
            addPeer(ch, out);
            return out;
        }
        if (bySource.getOrDefault(source, 0) >= config.maxHandshakesPerSource()) {
            evictOldestStranger(
                    source,
                    source + " has " + config.maxHandshakesPerSource() + " connections in their handshake",
                    out);
        }
        if (strangers.size() >= config.maxHandshakes()) {
            evictOldestStranger(null, strangers.size() + " connections of strangers are in their handshake", out);
        }
        strangers.put(ch, source);
        bySource.merge(source, 1, Integer::sum);
        return out;
    }

    /**
     * {@code ch} proved the peer's identity (its TLS handshake is done, so it carries a certificate this
     * node trusts): it moves to the peer's pool, where strangers cannot push it out.
     *
     * @return the connections to close to make room in the peer's pool
     */
    synchronized List<Eviction> proven(Channel ch) {
        List<Eviction> out = new ArrayList<>(1);
        if (strangers.containsKey(ch)) {
            forgetStranger(ch);
            addPeer(ch, out);
        }
        return out;
    }

    /** The handshake of {@code ch} is over (or it closed): its slot is free. */
    synchronized void release(Channel ch) {
        if (!peers.remove(ch)) forgetStranger(ch);
    }

    /** Connections of strangers in their handshake now. */
    synchronized int strangers() {
        return strangers.size();
    }

    /** Connections in the peer's pool now. */
    synchronized int peers() {
        return peers.size();
    }

    private void addPeer(Channel ch, List<Eviction> out) {
        if (peers.size() >= config.maxPeerHandshakes()) {
            Iterator<Channel> oldest = peers.iterator();
            Channel c = oldest.next();
            oldest.remove();
            out.add(new Eviction(
                    c, null, peers.size() + 1 + " connections from the peer's address are in their handshake"));
        }
        peers.add(ch);
    }

    /** Evicts the oldest stranger from {@code source}, or of all if {@code source} is null. */
    private void evictOldestStranger(InetAddress source, String why, List<Eviction> out) {
        for (Map.Entry<Channel, InetAddress> e : strangers.entrySet()) {
            if (source == null || source.equals(e.getValue())) {
                Channel c = e.getKey();
                InetAddress from = e.getValue();
                forgetStranger(c);
                out.add(new Eviction(c, from, why));
                return;
            }
        }
    }

    private void forgetStranger(Channel ch) {
        if (!strangers.containsKey(ch)) return;
        InetAddress source = strangers.remove(ch);
        bySource.computeIfPresent(source, (k, n) -> n == 1 ? null : n - 1);
    }
}
