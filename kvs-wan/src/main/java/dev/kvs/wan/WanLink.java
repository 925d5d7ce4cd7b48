package dev.kvs.wan;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * An emulated WAN link: a TCP proxy from a local port to a target that adds one-way delay, limits
 * bandwidth, bounds the bytes in flight with backpressure, and can be cut, healed, paused and resumed.
 * The model is described in the {@linkplain dev.kvs.wan package documentation}.
 *
 * <pre>{@code
 * try (WanLink link = WanLink.builder()
 *         .target("127.0.0.1", backupReplPort)
 *         .delay(Duration.ofMillis(50))            // 100 ms round trip
 *         .bandwidthBitsPerSecond(100_000_000)     // 100 Mbit/s each way
 *         .build()) {
 *     connectPrimaryTo("127.0.0.1", link.port());
 *     ...
 *     link.cut();                                  // the disaster
 * }
 * }</pre>
 *
 * <p>Thread-safe: every method may be called from any thread. Control methods ({@link #cut}, {@link
 * #delay(Duration)}, ...) hand their work to the link's event loop and return once it is done (called
 * on that event loop, they run inline). Once the link is closed they do nothing.
 */
public interface WanLink extends AutoCloseable {
    /** Default {@link Builder#bufferBytes(int) buffer} per direction: 4 MiB. */
    int DEFAULT_BUFFER_BYTES = 4 * 1024 * 1024;

    /** Longest one-way delay accepted: one hour. */
    Duration MAX_DELAY = Duration.ofHours(1);

    /** A new builder: listening on an ephemeral loopback port, no delay, unlimited bandwidth. */
    static Builder builder() {
        return new Builder();
    }

    /** The address the link listens on, with the port actually bound. */
    InetSocketAddress address();

    /** The port the link listens on (the one bound, if the builder asked for port 0). */
    int port();

    /** The address every connection is relayed to. */
    InetSocketAddress target();

    /**
     * Cuts the link: closes every connection through it at once, on both sides, discarding the bytes
     * queued in the link, and refuses new connections (accepts and closes them at once, keeping the
     * port) until {@link #heal()}. Does nothing if already cut or closed.
     */
    void cut();

    /** Accepts connections again after {@link #cut()}. Does nothing if not cut. */
    void heal();

    /** Whether the link is cut. */
    boolean isCut();

    /**
     * Stops delivering bytes without closing anything, like a partition during which TCP connections
     * stay up: bytes queue in the link until backpressure stops the senders. New connections are
     * still accepted. Independent of {@link #cut()}. Does nothing if already paused.
     */
    void pause();

    /** Delivers again after {@link #pause()}: bytes already due arrive at once. Does nothing if not paused. */
    void resume();

    /** Whether the link is paused. */
    boolean isPaused();

    /**
     * Sets the one-way delay of both directions (a round trip takes twice this). Applies to bytes that
     * leave the wire from now on; bytes already propagating keep their delivery time.
     *
     * @throws IllegalArgumentException if {@code oneWay} is negative or above {@link #MAX_DELAY}
     */
    void delay(Duration oneWay);

    /** The current one-way delay. */
    Duration delay();

    /**
     * Sets the bandwidth of each direction, in bits per second; 0 for unlimited. Applies to chunks
     * that go on the wire from now on.
     *
     * @throws IllegalArgumentException if {@code bitsPerSecond < 0}
     */
    void bandwidthBitsPerSecond(long bitsPerSecond);

    /** The current bandwidth of each direction in bits per second; 0 means unlimited. */
    long bandwidthBitsPerSecond();

    /** A snapshot of the link's state and traffic; the fields are read one by one, not atomically. */
    WanLinkStats stats();

    /**
     * Closes every connection, stops listening and, if the link created its own event loop, shuts it
     * down and waits for it. Idempotent. An external {@link EventLoopGroup} is left running.
     */
    @Override
    void close();

    /** The state of a link as {@link WanLinkStats#state()} reports it. */
    enum State {
        /** Relaying bytes. */
        UP,
        /** {@linkplain #pause() Paused}: connections open, nothing delivered. */
        PAUSED,
        /** {@linkplain #cut() Cut}: no connections, new ones refused (whether or not also paused). */
        CUT
    }

    /** Which waiting chunk goes on a direction's wire next; see the package documentation. */
    enum Queueing {
        /** Arrival order across all connections, like {@code tc netem} or a drop-tail router. */
        FIFO,
        /** One chunk per busy connection in turn, like {@code fq_codel}. */
        FAIR
    }

    /**
     * Configures and starts a {@link WanLink}. Every setter checks its argument at once and throws
     * {@link IllegalArgumentException} quoting the bad value. Not thread-safe; reusable.
     */
    final class Builder {
        String listenHost = "127.0.0.1";
        int listenPort;
        String targetHost;
        int targetPort;
        Duration delay = Duration.ZERO;
        long bitsPerSecond;
        int bufferBytes = DEFAULT_BUFFER_BYTES;
        Queueing queueing = Queueing.FIFO;
        EventLoopGroup group;
        ByteBufAllocator allocator;

        Builder() {}

        /**
         * Where to listen (default {@code 127.0.0.1}, port 0).
         *
         * @param host a host name or address; {@code 0.0.0.0} for every interface
         * @param port the port, 0 for an ephemeral one
         */
        public Builder listen(String host, int port) {
            Objects.requireNonNull(host, "host == null");
            if (port < 0 || port > 65535) throw new IllegalArgumentException("listen port not in [0, 65535]: " + port);
            this.listenHost = host;
            this.listenPort = port;
            return this;
        }

        /** Where to relay connections to. Required. The host is resolved once, by {@link #build()}. */
        public Builder target(String host, int port) {
            Objects.requireNonNull(host, "host == null");
            if (port < 1 || port > 65535) throw new IllegalArgumentException("target port not in [1, 65535]: " + port);
            this.targetHost = host;
            this.targetPort = port;
            return this;
        }

        /**
         * One-way delay of each direction (default 0): 50 ms gives a 100 ms round trip.
         *
         * @throws IllegalArgumentException if negative or above {@link WanLink#MAX_DELAY}
         */
        public Builder delay(Duration oneWay) {
            this.delay = checkDelay(oneWay);
            return this;
        }

        /**
         * Bandwidth of each direction in bits per second, shared by all connections (default 0:
         * unlimited).
         *
         * @throws IllegalArgumentException if {@code bitsPerSecond < 0}
         */
        public Builder bandwidthBitsPerSecond(long bitsPerSecond) {
            this.bitsPerSecond = checkBandwidth(bitsPerSecond);
            return this;
        }

        /**
         * Most bytes queued in the link per direction before senders are stopped (default {@link
         * WanLink#DEFAULT_BUFFER_BYTES}); the router's buffer. Values below 16 KiB also shrink the
         * chunk size, so keep it at 64 KiB or more except to test backpressure.
         *
         * @throws IllegalArgumentException if {@code bufferBytes <= 0}
         */
        public Builder bufferBytes(int bufferBytes) {
            if (bufferBytes <= 0) throw new IllegalArgumentException("bufferBytes <= 0: " + bufferBytes);
            this.bufferBytes = bufferBytes;
            return this;
        }

        /** Which waiting chunk goes on the wire next (default {@link Queueing#FIFO}). */
        public Builder queueing(Queueing queueing) {
            this.queueing = Objects.requireNonNull(queueing, "queueing == null");
            return this;
        }

        /**
         * Runs the link on one event loop of {@code group} and leaves the group running on {@link
         * WanLink#close()}. The group must use {@code EpollIoHandler} or {@code NioIoHandler}; the link
         * opens channels of that kind. Only epoll times deliveries precisely: on NIO they are up to half
         * a millisecond late (see the package documentation). Default: the link creates its own
         * single-thread group, epoll where available, and shuts it down on close.
         */
        public Builder eventLoopGroup(EventLoopGroup group) {
            this.group = Objects.requireNonNull(group, "group == null");
            return this;
        }

        /** The allocator of the link's channels; tests pass one whose usage they can check. */
        Builder allocator(ByteBufAllocator allocator) {
            this.allocator = Objects.requireNonNull(allocator, "allocator == null");
            return this;
        }

        /**
         * Starts the link: binds the listening port and returns once connections are accepted.
         *
         * @throws IllegalStateException if no {@link #target} was set
         * @throws UncheckedIOException if the target host is unknown or the port cannot be bound
         */
        public WanLink build() {
            if (targetHost == null) throw new IllegalStateException("target not set");
            return new RealWanLink(this);
        }

        static Duration checkDelay(Duration oneWay) {
            Objects.requireNonNull(oneWay, "delay == null");
            if (oneWay.isNegative()) throw new IllegalArgumentException("delay < 0: " + oneWay);
            if (oneWay.compareTo(MAX_DELAY) > 0) {
                throw new IllegalArgumentException("delay > " + MAX_DELAY + ": " + oneWay);
            }
            return oneWay;
        }

        static long checkBandwidth(long bitsPerSecond) {
            if (bitsPerSecond < 0) throw new IllegalArgumentException("bandwidthBitsPerSecond < 0: " + bitsPerSecond);
            return bitsPerSecond;
        }
    }
}
