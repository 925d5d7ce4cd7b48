package dev.kvs.server.config;

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
 * @param autoPromoteAfter a backup promotes itself once its primary's key channel has been down this
 *     long (zero: never, the default). <b>Risk: split brain.</b> A backup cannot tell a dead primary
 *     from a cut link; if the primary is alive and its clients can still reach it, both nodes accept
 *     writes until the link heals. Epochs keep that bounded (on reconnect the old primary learns it is
 *     stale, demotes itself and rolls back its writes the backup never acknowledged, listing them in
 *     its failback report), but those writes are lost to their clients in every mode, and in {@code
 *     async} acknowledged ones too. Enable it only where clients reach both DCs through the same
 *     network path as the link, or where availability matters more than those writes.
 */
public record FailoverConfig(
        ReadPolicy readPolicy, Duration blockTimeout, Duration lostAfter, Duration autoPromoteAfter) {
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
        if (autoPromoteAfter == null || autoPromoteAfter.isNegative())
            throw new IllegalArgumentException("autoPromoteAfter < 0: " + autoPromoteAfter);
    }

    /** Without automatic promotion. */
    public FailoverConfig(ReadPolicy readPolicy, Duration blockTimeout, Duration lostAfter) {
        this(readPolicy, blockTimeout, lostAfter, Duration.ZERO);
    }

    public static FailoverConfig defaults() {
        return new FailoverConfig(ReadPolicy.BLOCK, Duration.ofSeconds(5), Duration.ZERO, Duration.ZERO);
    }
}
