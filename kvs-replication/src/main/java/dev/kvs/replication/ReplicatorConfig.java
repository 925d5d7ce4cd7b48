package dev.kvs.replication;

import java.time.Duration;

/**
 * Immutable, validated settings of a primary's replicator.
 *
 * @param maxUnackedKeys key packets kept until the backup acknowledges them; at the bound writers wait
 * @param maxPendingValues values ordered but not yet acknowledged by the backup; at the bound writers wait
 * @param maxPendingValueBytes bytes of those values
 * @param valueBatchBytes a value batch is sent when it holds this many bytes...
 * @param valueLinger ...or when its oldest value has waited this long
 * @param chunkBytes values longer than this are split into chunks of this size
 * @param valueStreams parallel value connections
 * @param valueRateBytesPerSecond cap on value bytes sent per second (0: none)
 * @param writeTimeout how long a writer waits at a bound, or for its acknowledgement
 * @param maxValueLag the bound on exposure in time: past it, writes wait (up to {@code writeTimeout}, then
 *     {@link ReplicationBusyException}) until the oldest write whose value the backup has not acknowledged is
 *     younger, and the values pending would reach the backup within it at the measured rate; so under a load
 *     above the link's rate the writers slow to the link's pace, and a failover fences (or, in {@code async}
 *     mode, loses) at most about this much of the latest writes. Every mode's values share the one queue and
 *     link, so it holds writes of every mode: {@code sync} writes would wait behind the same values anyway,
 *     and {@code async} gets Redis's {@code min-replicas-max-lag} trade. While the backup is unreachable the
 *     lag grows with the outage: writes are refused after it. Zero: off (the byte and count bounds only)
 * @param reconnectMin first reconnect delay after the link drops
 * @param reconnectMax longest reconnect delay (the delay doubles up to it)
 * @param heartbeatInterval how often an idle link is probed
 * @param maxFrameBytes longest replication frame accepted
 * @param flowControl delay-based flow control of the value traffic
 * @param cutThrough ship a large SET's value while the client still sends it, before the write is
 *     committed (see {@link ReplicationLink#shipWhileStaged}; the client port does so for sync writes
 *     only); off, a value leaves after its commit
 */
public record ReplicatorConfig(
        int maxUnackedKeys,
        int maxPendingValues,
        long maxPendingValueBytes,
        int valueBatchBytes,
        Duration valueLinger,
        int chunkBytes,
        int valueStreams,
        long valueRateBytesPerSecond,
        Duration writeTimeout,
        Duration maxValueLag,
        Duration reconnectMin,
        Duration reconnectMax,
        Duration heartbeatInterval,
        int maxFrameBytes,
        FlowControlConfig flowControl,
        boolean cutThrough) {

    /**
     * The default {@link #maxValueLag}: as long as the default write timeout, so that a write held at it
     * waits about what an unconfirmed write would; long enough to ride out a burst or a WAN hiccup (a
     * retransmission timeout, a few round trips) without refusing writes; a few megabytes of values on a
     * slow link (5 MB at 8 Mbit/s), where the byte bound alone allowed 17 minutes of them.
     */
    public static final Duration DEFAULT_MAX_VALUE_LAG = Duration.ofSeconds(5);

    public ReplicatorConfig {
        if (flowControl == null) throw new IllegalArgumentException("flowControl is missing");
        positive("maxUnackedKeys", maxUnackedKeys);
        positive("maxPendingValues", maxPendingValues);
        positive("maxPendingValueBytes", maxPendingValueBytes);
        positive("valueBatchBytes", valueBatchBytes);
        notNegative("valueLinger", valueLinger);
        positive("chunkBytes", chunkBytes);
        positive("valueStreams", valueStreams);
        if (valueStreams > 64) throw new IllegalArgumentException("valueStreams > 64: " + valueStreams);
        if (valueRateBytesPerSecond < 0)
            throw new IllegalArgumentException("valueRateBytesPerSecond < 0: " + valueRateBytesPerSecond);
        notNegative("writeTimeout", writeTimeout);
        notNegative("maxValueLag", maxValueLag);
        notNegative("reconnectMin", reconnectMin);
        notNegative("reconnectMax", reconnectMax);
        if (reconnectMax.compareTo(reconnectMin) < 0)
            throw new IllegalArgumentException("reconnectMax < reconnectMin: " + reconnectMax + " < " + reconnectMin);
        notNegative("heartbeatInterval", heartbeatInterval);
        if (maxFrameBytes < chunkBytes + 128 * 1024)
            throw new IllegalArgumentException(
                    "maxFrameBytes < chunkBytes + 128KiB: " + maxFrameBytes + " < " + (chunkBytes + 128 * 1024));
    }

    private static void positive(String field, long v) {
        if (v <= 0) throw new IllegalArgumentException(field + " <= 0: " + v);
    }

    private static void notNegative(String field, Duration d) {
        if (d == null) throw new IllegalArgumentException(field + " is missing");
        if (d.isNegative()) throw new IllegalArgumentException(field + " < 0: " + d);
    }

    /** This configuration with {@code flowControl} instead of its own. */
    public ReplicatorConfig withFlowControl(FlowControlConfig flowControl) {
        return new Builder(this).flowControl(flowControl).build();
    }

    public static ReplicatorConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link ReplicatorConfig}; {@link #build()} validates. */
    public static final class Builder {
        private int maxUnackedKeys = 1_000_000;
        private int maxPendingValues = 1_000_000;
        private long maxPendingValueBytes = 1L << 30;
        private int valueBatchBytes = 256 * 1024;
        private Duration valueLinger = Duration.ofMillis(1);
        private int chunkBytes = 256 * 1024;
        private int valueStreams = 2;
        private long valueRateBytesPerSecond = 0;
        private Duration writeTimeout = Duration.ofSeconds(5);
        private Duration maxValueLag = DEFAULT_MAX_VALUE_LAG;
        private Duration reconnectMin = Duration.ofMillis(50);
        private Duration reconnectMax = Duration.ofSeconds(2);
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private int maxFrameBytes = 8 * 1024 * 1024;
        private FlowControlConfig flowControl = FlowControlConfig.defaults();
        private boolean cutThrough = true;

        Builder() {}

        /** A builder holding {@code c}'s settings. */
        Builder(ReplicatorConfig c) {
            maxUnackedKeys = c.maxUnackedKeys;
            maxPendingValues = c.maxPendingValues;
            maxPendingValueBytes = c.maxPendingValueBytes;
            valueBatchBytes = c.valueBatchBytes;
            valueLinger = c.valueLinger;
            chunkBytes = c.chunkBytes;
            valueStreams = c.valueStreams;
            valueRateBytesPerSecond = c.valueRateBytesPerSecond;
            writeTimeout = c.writeTimeout;
            maxValueLag = c.maxValueLag;
            reconnectMin = c.reconnectMin;
            reconnectMax = c.reconnectMax;
            heartbeatInterval = c.heartbeatInterval;
            maxFrameBytes = c.maxFrameBytes;
            flowControl = c.flowControl;
            cutThrough = c.cutThrough;
        }

        public Builder maxUnackedKeys(int v) {
            maxUnackedKeys = v;
            return this;
        }

        public Builder maxPendingValues(int v) {
            maxPendingValues = v;
            return this;
        }

        public Builder maxPendingValueBytes(long v) {
            maxPendingValueBytes = v;
            return this;
        }

        public Builder valueBatchBytes(int v) {
            valueBatchBytes = v;
            return this;
        }

        public Builder valueLinger(Duration v) {
            valueLinger = v;
            return this;
        }

        public Builder chunkBytes(int v) {
            chunkBytes = v;
            return this;
        }

        public Builder valueStreams(int v) {
            valueStreams = v;
            return this;
        }

        public Builder valueRateBytesPerSecond(long v) {
            valueRateBytesPerSecond = v;
            return this;
        }

        public Builder writeTimeout(Duration v) {
            writeTimeout = v;
            return this;
        }

        /** The bound on exposure in time; {@link Duration#ZERO}: off. Default {@link #DEFAULT_MAX_VALUE_LAG}. */
        public Builder maxValueLag(Duration v) {
            maxValueLag = v;
            return this;
        }

        public Builder reconnect(Duration min, Duration max) {
            reconnectMin = min;
            reconnectMax = max;
            return this;
        }

        public Builder heartbeatInterval(Duration v) {
            heartbeatInterval = v;
            return this;
        }

        public Builder maxFrameBytes(int v) {
            maxFrameBytes = v;
            return this;
        }

        public Builder flowControl(FlowControlConfig v) {
            flowControl = v;
            return this;
        }

        public Builder cutThrough(boolean v) {
            cutThrough = v;
            return this;
        }

        public ReplicatorConfig build() {
            return new ReplicatorConfig(
                    maxUnackedKeys,
                    maxPendingValues,
                    maxPendingValueBytes,
                    valueBatchBytes,
                    valueLinger,
                    chunkBytes,
                    valueStreams,
                    valueRateBytesPerSecond,
                    writeTimeout,
                    maxValueLag,
                    reconnectMin,
                    reconnectMax,
                    heartbeatInterval,
                    maxFrameBytes,
                    flowControl,
                    cutThrough);
        }
    }
}
