package dev.kvs.server;

import java.time.Duration;
import java.util.Locale;

/**
 * How a promoted node treats keys whose values never arrived.
 *
 * @param readPolicy {@code block}: a read of an unfinished key waits up to {@code blockTimeout} for its
 *     value, then answers {@code -UNFINISHED}; {@code reject}: {@code -UNFINISHED} at once
 * @param blockTimeout how long a blocked read waits
 * @param lostAfter after promotion, unfinished keys become {@code LOST} after this long (zero: only when
 *     an operator declares the old primary lost)
 */
public record FailoverConfig(ReadPolicy readPolicy, Duration blockTimeout, Duration lostAfter) {
    /** What a read of an unfinished key does after promotion. */
    public enum ReadPolicy {
        BLOCK,
        REJECT;

        public static ReadPolicy parse(String text) {
            for (ReadPolicy p : values()) {
                if (p.name().equalsIgnoreCase(text.trim())) return p;
            }
            throw new IllegalArgumentException("readPolicy is not block|reject: " + text);
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public FailoverConfig {
        if (readPolicy == null) throw new IllegalArgumentException("readPolicy is missing");
        if (blockTimeout == null || blockTimeout.isNegative())
            throw new IllegalArgumentException("blockTimeout < 0: " + blockTimeout);
        if (lostAfter == null || lostAfter.isNegative())
            throw new IllegalArgumentException("lostAfter < 0: " + lostAfter);
    }

    public static FailoverConfig defaults() {
        return new FailoverConfig(ReadPolicy.BLOCK, Duration.ofSeconds(5), Duration.ZERO);
    }
}
