package dev.kvs.server.internal.resp;

import dev.kvs.core.log.ThrottledLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-wide bound on the memory client connections hold, as Redis's {@code maxmemory-clients}:
 * each connection's query buffer (what its decoder holds of requests still arriving: arguments read,
 * the bulk string being filled, unparsed bytes) plus its replies not yet sent (waiting their turn, and
 * Netty's outbound buffer), summed over connections.
 *
 * <p>The sum is kept as it changes, never by a scan per command: a connection reports its figures once
 * per read batch and after its replies are flushed (an {@link Account} adds the difference to the
 * totals), and a sweep every {@link #SWEEP_MILLIS} ms refreshes the unsent bytes of every connection
 * (a socket drains without telling anyone). When a report takes the sum past the bound, or a sweep
 * finds it within 1/16 of it, the connections holding bytes are closed, the biggest unauthenticated
 * ones first, then the biggest idle ones (nothing received for {@link #IDLE_NANOS}), until the sum
 * would be 1/8 under the bound: closes run on each connection's event loop, and the sum counts a
 * connection until it is closed, so starting early keeps the sum under the bound meanwhile, and
 * stopping lower makes an attack refilling it cost a check per 1/16 of the bound, not one per read.
 * Meanwhile (those closes may wait behind the reads of busy event loops) an unauthenticated connection
 * that would hold {@link #PRE_AUTH_GROWTH_GUARD} bytes with its next read is closed instead while the
 * sum is within 1/16 of the bound. Authenticated connections that are active are never closed for it: if they alone
 * hold more, the sum stays over the bound ({@link #overBound()}, an alarm) until they are done.
 * Thread-safe.
 */
final class ClientMemory {
    private static final Logger log = LoggerFactory.getLogger(ClientMemory.class);

    /** How often every connection's unsent bytes are read again. */
    static final long SWEEP_MILLIS = 100;

    /**
     * Over the bound, an unauthenticated connection that would hold this much with its next read is
     * closed instead: a login needs far less, and the closes the checks chose may lag behind busy event
     * loops.
     */
    static final long PRE_AUTH_GROWTH_GUARD = RespCommandDecoder.PRE_AUTH_MAX_BULK;

    /** An authenticated connection that has sent nothing for this long may be closed for memory. */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final long bound;
    /** 15/16 of the bound: closing starts here, so that connections still closing keep the sum under it. */
    private final long closeFrom;
    /** 7/8 of the bound: closing goes on down to here, so that a refilling attack costs few checks. */
    private final long closeTo;

    private final LongSupplier nanoClock;
    private final AtomicLong queryBytes = new AtomicLong();
    private final AtomicLong outputBytes = new AtomicLong();
    private final LongAdder evicted = new LongAdder();
    /**
     * Bytes of the connections chosen to be closed and not closed yet: a report meanwhile checks again
     * only if the rest is over the bound (else every read while the closes are queued would scan).
     */
    private final AtomicLong leavingBytes = new AtomicLong();

    private final Set<Account> accounts = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean checking = new AtomicBoolean();
    private volatile boolean checkAgain;
    private final ThrottledLog evictions = new ThrottledLog(log);

    /**
     * @param bound the most bytes all connections may hold ({@code maxClientMemory}); 0: no bound
     * @param nanoClock a monotonic clock, for idleness (tests pass their own)
     */
    ClientMemory(long bound, LongSupplier nanoClock) {
        if (bound < 0) throw new IllegalArgumentException("bound < 0: " + bound);
        this.bound = bound;
        this.closeFrom = bound - bound / 16;
        this.closeTo = bound - bound / 8;
        this.nanoClock = nanoClock;
    }

    /**
     * Opens the account of a new connection.
     *
     * @param evict closes the connection; called at most once, from any thread
     */
    Account open(Channel channel, Runnable evict) {
        Account a = new Account(channel, evict);
        a.lastCommandNanos = nanoClock.getAsLong();
        accounts.add(a);
        return a;
    }

    /** Bytes all connections hold now (as last reported, unsent bytes at most {@link #SWEEP_MILLIS} old). */
    long used() {
        return queryBytes.get() + outputBytes.get();
    }

    /** Of {@link #used()}: the requests still arriving. */
    long queryBytes() {
        return queryBytes.get();
    }

    /** Of {@link #used()}: the replies not yet sent. */
    long outputBytes() {
        return outputBytes.get();
    }

    /** Of {@link #used()}: the connections chosen to be closed, until their event loops close them. */
    long closingBytes() {
        return leavingBytes.get();
    }

    /** {@code maxClientMemory}; 0: no bound. */
    long bound() {
        return bound;
    }

    /** True while the connections hold more than the bound. */
    boolean overBound() {
        return bound > 0 && used() > bound;
    }

    /** Connections closed for memory since start (Redis {@code evicted_clients}). */
    long evicted() {
        return evicted.sum();
    }

    /** The security WARNs about connections closed for memory, written or not. */
    long warnings() {
        return evictions.events();
    }

    /** Refreshes every connection's unsent bytes, then closes connections if the sum is past the bound. */
    void sweep() {
        for (Account a : accounts) a.refreshOutput();
        if (overBoundButLeaving()) check();
    }

    /** Over the bound even without the connections already chosen to be closed. */
    private boolean overBoundButLeaving() {
        return bound > 0 && used() - leavingBytes.get() > closeFrom;
    }

    /** Closes connections until the sum would be under the bound; one check at a time, repeated if asked meanwhile. */
    private void check() {
        do {
            if (!checking.compareAndSet(false, true)) {
                checkAgain = true;
                return;
            }
            try {
                checkAgain = false;
                evictOverBound();
            } finally {
                checking.set(false);
            }
        } while (checkAgain);
    }

    private record Candidate(Account account, long bytes, boolean authenticated) {}

    private void evictOverBound() {
        long now = nanoClock.getAsLong();
        long used = 0;
        long leaving = 0;
        List<Candidate> candidates = new ArrayList<>();
        for (Account a : accounts) {
            long bytes = a.bytes();
            used += bytes;
            if (a.evicting) {
                leaving += bytes; // closing already: its bytes go soon
            } else if (bytes > 0 && (!a.authenticated || now - a.lastCommandNanos >= IDLE_NANOS)) {
                candidates.add(new Candidate(a, bytes, a.authenticated));
            }
        }
        if (used - leaving <= closeFrom) return; // those closing already take it under
        long over = used - leaving - closeTo;
        if (over <= 0) return;
        candidates.sort(Comparator.comparing(Candidate::authenticated)
                .thenComparing(Comparator.comparingLong(Candidate::bytes).reversed()));
        for (Candidate c : candidates) {
            if (over <= 0) break;
            c.account.leaving(c.bytes);
            evicted.increment();
            over -= c.bytes;
            evictions.warn(
                    "closing client {} ({}): it held {} bytes while client connections held {} bytes, over"
                            + " maxClientMemory {}",
                    c.account.channel.remoteAddress(),
                    c.authenticated ? "idle" : "unauthenticated",
                    c.bytes,
                    used,
                    bound);
            c.account.evict.run();
        }
    }

    /**
     * One connection's share of the sum: its decoder reports its query buffer, its handler its replies;
     * each report adds the difference to the node's totals. Closed when the connection closes.
     */
    final class Account {
        private final Channel channel;
        private final Runnable evict;
        private final AtomicLong query = new AtomicLong();
        private final AtomicLong output = new AtomicLong();
        /** Bytes of replies the handler holds back (waiting their turn); written by the handler. */
        private volatile long heldReplies;

        private volatile boolean closed;
        volatile boolean authenticated;
        /** When bytes last arrived from the connection, on {@link #nanoClock}. */
        volatile long lastCommandNanos;
        /** Set once it was chosen to be closed for memory. */
        volatile boolean evicting;
        /** Its bytes when it was chosen, counted in {@link #leavingBytes} until it closes. */
        private long leaving;

        private Account(Channel channel, Runnable evict) {
            this.channel = channel;
            this.evict = evict;
        }

        /**
         * True if the connection must close before a read is decoded: it was chosen to, or it is
         * unauthenticated, would hold {@link #PRE_AUTH_GROWTH_GUARD} bytes or more with the {@code
         * incoming} bytes read since its last report (this read's included), and the connections hold
         * more than 15/16 of the bound (then it is counted as closed for memory here). Called on its
         * event loop.
         */
        boolean closeBeforeRead(long incoming) {
            if (evicting) return true;
            if (authenticated || bound == 0 || query.get() + incoming < PRE_AUTH_GROWTH_GUARD || used() <= closeFrom) {
                return false;
            }
            long bytes = bytes();
            leaving(bytes);
            evicted.increment();
            evictions.warn(
                    "closing client {} (unauthenticated): it held {} bytes and sent more while client connections"
                            + " held {} bytes, over maxClientMemory {}",
                    channel.remoteAddress(),
                    bytes,
                    used(),
                    bound);
            return true;
        }

        /** Bytes arrived from the connection now. */
        void active() {
            lastCommandNanos = nanoClock.getAsLong();
        }

        /** Its decoder holds {@code bytes} now. */
        void query(long bytes) {
            if (closed || query.get() == bytes) return;
            long delta = bytes - query.getAndSet(bytes);
            queryBytes.addAndGet(delta);
            grew(delta > 0);
        }

        /** Its handler holds back {@code bytes} of replies now; the unsent bytes are read from the channel. */
        void replies(long bytes) {
            heldReplies = bytes;
            refreshOutput();
        }

        private void refreshOutput() {
            if (closed) return;
            long bytes = heldReplies + unsent(channel);
            if (output.get() == bytes) return;
            long delta = bytes - output.getAndSet(bytes);
            outputBytes.addAndGet(delta);
            if (closed) { // a sweep's refresh raced with close(): take back what it added
                outputBytes.addAndGet(-output.getAndSet(0));
                return;
            }
            grew(delta > 0);
        }

        private void grew(boolean grew) {
            if (grew && overBoundButLeaving()) check();
        }

        /** Chosen to be closed (under the check's lock: once). */
        private synchronized void leaving(long bytes) {
            evicting = true;
            leaving = bytes;
            if (!closed) leavingBytes.addAndGet(bytes);
        }

        long bytes() {
            return query.get() + output.get();
        }

        /** The connection closed: it holds nothing from now on. */
        void close() {
            synchronized (this) {
                if (closed) return;
                closed = true;
                if (evicting) leavingBytes.addAndGet(-leaving);
            }
            accounts.remove(this);
            queryBytes.addAndGet(-query.getAndSet(0));
            outputBytes.addAndGet(-output.getAndSet(0));
        }

        private static long unsent(Channel channel) {
            ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
            return out == null ? 0 : out.totalPendingWriteBytes();
        }
    }
}
