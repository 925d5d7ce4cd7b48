package dev.kvs.replication.backup;

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
 * @param maxHandshakes connections accepted whose handshake is not done yet; more are closed at once
 * @param handshakeTimeout how long a connection may take to authenticate and say {@code Hello}
 */
public record BackupConfig(
        int maxFrameBytes,
        long maxAssemblyBytes,
        long maxAssemblyBytesPerChannel,
        long maxUnfinishedKeys,
        int maxHeldKeyPackets,
        int maxValueChannels,
        int maxHandshakes,
        Duration handshakeTimeout) {

    /** Default {@link #maxFrameBytes()}: 8 MiB, as the primary's default. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

    /** Default {@link #maxAssemblyBytes()}: 256 MiB. */
    public static final long DEFAULT_MAX_ASSEMBLY_BYTES = 256L * 1024 * 1024;

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
        if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be positive: " + handshakeTimeout);
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

    /** Builds a {@link BackupConfig}; {@link #build()} validates. */
    public static final class Builder {
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private long maxAssemblyBytes = DEFAULT_MAX_ASSEMBLY_BYTES;
        private long maxAssemblyBytesPerChannel; // 0: same as maxAssemblyBytes
        private long maxUnfinishedKeys = UnfinishedKeys.DEFAULT_MAX_KEYS;
        private int maxHeldKeyPackets = 100_000;
        private int maxValueChannels = 64;
        private int maxHandshakes = 16;
        private Duration handshakeTimeout = Duration.ofSeconds(10);

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

        /** Default 10 s. */
        public Builder handshakeTimeout(Duration v) {
            handshakeTimeout = v;
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
                    handshakeTimeout);
        }
    }
}
