package dev.kvs.server.config;

import java.time.Duration;

/**
 * Active expiry: how often a node removes keys whose expiry has passed, and at most how many per
 * round, so the work per round is bounded (like Redis's {@code hz} and its sampling). Keys are also
 * expired lazily: a read never serves an expired key, whether or not a round has removed it.
 *
 * @param interval time between two rounds (at least 1 ms)
 * @param maxKeysPerCycle most keys one round removes (at least 1); the rest wait for the next round
 */
public record ExpiryConfig(Duration interval, int maxKeysPerCycle) {
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);
    public static final int DEFAULT_MAX_KEYS_PER_CYCLE = 1000;

    public ExpiryConfig {
        if (interval == null) throw new IllegalArgumentException("activeIntervalMs is missing");
        if (interval.toMillis() < 1 || interval.toMillis() > 60_000) {
            throw new IllegalArgumentException("activeIntervalMs not in 1..60000: " + interval.toMillis());
        }
        if (maxKeysPerCycle < 1 || maxKeysPerCycle > 1_000_000) {
            throw new IllegalArgumentException("maxKeysPerCycle not in 1..1000000: " + maxKeysPerCycle);
        }
    }

    /** A round every 100 ms, at most 1000 keys each (up to 10,000 keys a second). */
    public static ExpiryConfig defaults() {
        return new ExpiryConfig(DEFAULT_INTERVAL, DEFAULT_MAX_KEYS_PER_CYCLE);
    }
}
