package dev.kvs.replication;

import java.time.Duration;

/**
 * Immutable, validated settings of a backup's replication listener.
 *
 * @param maxFrameBytes longest replication frame accepted, length prefix included (must match the
 *     primary's)
 * @param maxAssemblyBytes memory for values being assembled from chunks, over every value channel; at
 *     the bound value channels stop being read until memory frees (nothing is dropped)
 * @param maxAssemblyBytesPerChannel the same bound for one value channel
 * @param maxUnfinishedKeys keys in the unfinished-key queue at which the key channel stops being read
 *     until values drain it
 * @param maxHeldKeyPackets key packets received beyond a gap and held until it is filled
 * @param maxValueChannels value channels accepted at once; more are refused {@code BUSY}
 * @param maxHandshakes connections from strangers (not the configured peer's address, no proven TLS
 *     identity) whose handshake is not done yet; when full, the oldest of them is closed to make room, so
 *     idle squatters cannot hold the port
 * @param maxHandshakesPerSource of those, connections from one source address; when one source is at
 *     it, its own oldest is closed to make room, so one host cannot fill the pool
 * @param maxPeerHandshakes connections in their handshake from the configured peer's address or with its
 *     proven TLS identity: a pool of their own that strangers never compete for (the oldest is closed
 *     when full); the default holds every connection a primary opens at once (its key channel, up to 64
 *     value streams, a handback)
 * @param authDeadline how long a connection may take from its accept to the end of its handshake: TLS,
 *     the proof of the cluster secret and {@code Hello}; a slot is held no longer than this
 * @param maxHeldUnitBytes the bytes of values held back until their whole {@code EXEC} (unit) has
 *     arrived; a unit whose values would take more is broken: its values are applied as they come
 *     ({@code BackupStatus.unitsBroken})
 */
public record BackupConfig(
        int maxFrameBytes,
        long maxAssemblyBytes,
        long maxAssemblyBytesPerChannel,
        long maxUnfinishedKeys,
        int maxHeldKeyPackets,
        int maxValueChannels,
        int maxHandshakes,
        int maxHandshakesPerSource,
        int maxPeerHandshakes,
        Duration authDeadline,
        long maxHeldUnitBytes) {

    /** Default {@link #maxHeldUnitBytes()}: 64 MiB. */
    public static final long DEFAULT_MAX_HELD_UNIT_BYTES = 64L << 20;

    /** Default {@link #maxFrameBytes()}: 8 MiB, as the primary's default. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

    /** Default {@link #maxAssemblyBytes()}: 256 MiB. */
    public static final long DEFAULT_MAX_ASSEMBLY_BYTES = 256L * 1024 * 1024;

    /**
     * Default {@link #authDeadline()}: 2 s. A real primary needs about two round trips after the accept
     * (TLS 1.3, then the secret's challenge, its proof and {@code Hello} in one flight): 0.6 s on a 300 ms
     * intercontinental path, leaving room for a lost segment's retransmission (200 ms or more) and a busy
     * CPU. A squatter holds a slot at most this long.
     */
    public static final Duration DEFAULT_AUTH_DEADLINE = Duration.ofSeconds(2);

    /** Smallest {@link #maxFrameBytes()} accepted. */
    public static final int MIN_FRAME_BYTES = 1024;

    public BackupConfig {
        if (maxFrameBytes < MIN_FRAME_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes < " + MIN_FRAME_BYTES + ": " + maxFrameBytes);
        }
        positive("maxAssemblyBytes", maxAssemblyBytes);
        positive("maxAssemblyBytesPerChannel", maxAssemblyBytesPerChannel);
        if (maxAssemblyBytesPerChannel > maxAssemblyBytes) {
            throw new IllegalArgumentException("maxAssemblyBytesPerChannel > maxAssemblyBytes: "
                    + maxAssemblyBytesPerChannel + " > " + maxAssemblyBytes);
        }
        positive("maxUnfinishedKeys", maxUnfinishedKeys);
        positive("maxHeldKeyPackets", maxHeldKeyPackets);
        positive("maxValueChannels", maxValueChannels);
        positive("maxHandshakes", maxHandshakes);
        positive("maxHandshakesPerSource", maxHandshakesPerSource);
        positive("maxPeerHandshakes", maxPeerHandshakes);
        positive("maxHeldUnitBytes", maxHeldUnitBytes);
        if (authDeadline == null || authDeadline.isNegative() || authDeadline.isZero()) {
            throw new IllegalArgumentException("authDeadline must be positive: " + authDeadline);
        }
    }

    private static void positive(String field, long v) {
        if (v <= 0) throw new IllegalArgumentException(field + " <= 0: " + v);
    }

    /** The defaults. */
    public static BackupConfig defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxFrameBytes = maxFrameBytes;
        b.maxAssemblyBytes = maxAssemblyBytes;
        b.maxAssemblyBytesPerChannel = maxAssemblyBytesPerChannel;
        b.maxUnfinishedKeys = maxUnfinishedKeys;
        b.maxHeldKeyPackets = maxHeldKeyPackets;
        b.maxValueChannels = maxValueChannels;
        b.maxHandshakes = maxHandshakes;
        b.maxHandshakesPerSource = maxHandshakesPerSource;
        b.maxPeerHandshakes = maxPeerHandshakes;
        b.authDeadline = authDeadline;
        b.maxHeldUnitBytes = maxHeldUnitBytes;
        return b;
    }

    /** Builds a {@link BackupConfig}; {@link #build()} validates. */
    public static final class Builder {
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private long maxAssemblyBytes = DEFAULT_MAX_ASSEMBLY_BYTES;
        private long maxAssemblyBytesPerChannel; // 0: same as maxAssemblyBytes
        private long maxUnfinishedKeys = UnfinishedKeys.DEFAULT_MAX_KEYS;
        private int maxHeldKeyPackets = 100_000;
        private long maxHeldUnitBytes = DEFAULT_MAX_HELD_UNIT_BYTES;
        private int maxValueChannels = 64;
        private int maxHandshakes = 16;
        private int maxHandshakesPerSource = 4;
        private int maxPeerHandshakes = 66;
        private Duration authDeadline = DEFAULT_AUTH_DEADLINE;

        Builder() {}

        /** Default 8 MiB. */
        public Builder maxFrameBytes(int v) {
            maxFrameBytes = v;
            return this;
        }

        /** Default 256 MiB. */
        public Builder maxAssemblyBytes(long v) {
            maxAssemblyBytes = v;
            return this;
        }

        /** Default: {@link #maxAssemblyBytes(long)}. */
        public Builder maxAssemblyBytesPerChannel(long v) {
            if (v <= 0) throw new IllegalArgumentException("maxAssemblyBytesPerChannel <= 0: " + v);
            maxAssemblyBytesPerChannel = v;
            return this;
        }

        /** Default 10,000,000. */
        public Builder maxUnfinishedKeys(long v) {
            maxUnfinishedKeys = v;
            return this;
        }

        /** Default 100,000. */
        public Builder maxHeldKeyPackets(int v) {
            maxHeldKeyPackets = v;
            return this;
        }

        /** Default 64. */
        public Builder maxValueChannels(int v) {
            maxValueChannels = v;
            return this;
        }

        /** Default 16. */
        public Builder maxHandshakes(int v) {
            maxHandshakes = v;
            return this;
        }

        /** Default 4. */
        public Builder maxHandshakesPerSource(int v) {
            maxHandshakesPerSource = v;
            return this;
        }

        /** Default 66. */
        public Builder maxPeerHandshakes(int v) {
            maxPeerHandshakes = v;
            return this;
        }

        /** Default {@link BackupConfig#DEFAULT_MAX_HELD_UNIT_BYTES}: 64 MiB. */
        public Builder maxHeldUnitBytes(long v) {
            maxHeldUnitBytes = v;
            return this;
        }

        /** Default {@link BackupConfig#DEFAULT_AUTH_DEADLINE}: 2 s. */
        public Builder authDeadline(Duration v) {
            authDeadline = v;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the first invalid setting and its value
         */
        public BackupConfig build() {
            return new BackupConfig(
                    maxFrameBytes,
                    maxAssemblyBytes,
                    maxAssemblyBytesPerChannel == 0 ? maxAssemblyBytes : maxAssemblyBytesPerChannel,
                    maxUnfinishedKeys,
                    maxHeldKeyPackets,
                    maxValueChannels,
                    maxHandshakes,
                    maxHandshakesPerSource,
                    maxPeerHandshakes,
                    authDeadline,
                    maxHeldUnitBytes);
        }
    }
}
