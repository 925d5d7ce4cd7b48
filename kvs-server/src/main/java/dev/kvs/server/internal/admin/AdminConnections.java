package dev.kvs.server.internal.admin;

import dev.kvs.server.internal.AdminPortStats;
import io.netty.channel.Channel;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The admin port's connection cap: at most {@code max} connections open at once. A connection past it
 * closes the oldest connection that is waiting for a request (a stranger's half-open one, most likely),
 * so that an operator's new connection gets in during an attack; if every open connection has a request
 * in hand, the new one is closed at once. Thread-safe.
 */
final class AdminConnections {
    private final int max;
    private final AdminPortStats stats;
    /** Open connections with no request in hand, oldest first. */
    private final ConcurrentLinkedDeque<Channel> waiting = new ConcurrentLinkedDeque<>();

    AdminConnections(int max, AdminPortStats stats) {
        this.max = max;
        this.stats = stats;
        stats.maxConnections(max);
    }

    /**
     * Counts a new connection (until it closes) and makes room for it.
     *
     * @return false if it was closed at once: the cap is reached and no connection is waiting
     */
    boolean opened(Channel ch) {
        stats.open().incrementAndGet();
        ch.closeFuture().addListener(f -> {
            stats.open().decrementAndGet();
            waiting.remove(ch);
        });
        if (stats.open().get() > max) {
            Channel oldest;
            while ((oldest = waiting.pollFirst()) != null) {
                if (oldest.isOpen()) break;
            }
            if (oldest == null) {
                stats.refusedAtCap();
                ch.close();
                return false;
            }
            stats.droppedAtCap();
            oldest.close();
        }
        waiting.addLast(ch);
        return true;
    }

    /** {@code ch} has sent a request head: it is not dropped for a newcomer until it has been answered. */
    void busy(Channel ch) {
        waiting.remove(ch);
    }

    /** {@code ch} has been answered and waits for its next request. */
    void idle(Channel ch) {
        if (ch.isOpen() && !waiting.contains(ch)) waiting.addLast(ch);
    }
}
