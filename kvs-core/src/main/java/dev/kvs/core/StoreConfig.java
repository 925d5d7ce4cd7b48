package dev.kvs.core;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Immutable, validated store configuration.
 *
 * @param maxEntries maximum number of records
 * @param maxBytes maximum bytes of keys plus values
 * @param maxKeyBytes longest key accepted
 * @param maxValueBytes longest value accepted
 * @param dataDir directory of the persisted files; empty for a memory-only store
 */
public record StoreConfig(long maxEntries, long maxBytes, int maxKeyBytes, int maxValueBytes, Optional<Path> dataDir) {
    public static final long DEFAULT_MAX_ENTRIES = 1_000_000;
    public static final long DEFAULT_MAX_BYTES = 1L << 30;
    public static final int DEFAULT_MAX_KEY_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_VALUE_BYTES = 512 * 1024 * 1024;

    public StoreConfig {
        if (maxEntries <= 0) throw new IllegalArgumentException("maxEntries <= 0: " + maxEntries);
        if (maxBytes <= 0) throw new IllegalArgumentException("maxBytes <= 0: " + maxBytes);
        if (maxKeyBytes <= 0) throw new IllegalArgumentException("maxKeyBytes <= 0: " + maxKeyBytes);
        if (maxValueBytes < 0) throw new IllegalArgumentException("maxValueBytes < 0: " + maxValueBytes);
        if (dataDir == null) throw new NullPointerException("dataDir == null (use Optional.empty())");
    }

    /**
     * Entries beyond {@code maxEntries} that only tombstones may take: 1% of {@code maxEntries}, at
     * least 1,024. A delete that has to leave a tombstone (a backup ordering it against older writes
     * still on their way) is then not refused because live keys fill the store, as Redis takes a
     * {@code DEL} whatever its memory; tombstones are collected once they order nothing.
     */
    public long tombstoneReserve() {
        return Math.max(1024, maxEntries / 100);
    }

    public static StoreConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link StoreConfig}; setters reject bad values at once. */
    public static final class Builder {
        private long maxEntries = DEFAULT_MAX_ENTRIES;
        private long maxBytes = DEFAULT_MAX_BYTES;
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
        private Path dataDir;

        Builder() {}

        public Builder maxEntries(long v) {
            if (v <= 0) throw new IllegalArgumentException("maxEntries <= 0: " + v);
            maxEntries = v;
            return this;
        }

        public Builder maxBytes(long v) {
            if (v <= 0) throw new IllegalArgumentException("maxBytes <= 0: " + v);
            maxBytes = v;
            return this;
        }

        public Builder maxKeyBytes(int v) {
            if (v <= 0) throw new IllegalArgumentException("maxKeyBytes <= 0: " + v);
            maxKeyBytes = v;
            return this;
        }

        public Builder maxValueBytes(int v) {
            if (v < 0) throw new IllegalArgumentException("maxValueBytes < 0: " + v);
            maxValueBytes = v;
            return this;
        }

        /** {@code null} for a memory-only store. */
        public Builder dataDir(Path dir) {
            dataDir = dir;
            return this;
        }

        public Builder from(StoreConfig c) {
            maxEntries = c.maxEntries();
            maxBytes = c.maxBytes();
            maxKeyBytes = c.maxKeyBytes();
            maxValueBytes = c.maxValueBytes();
            dataDir = c.dataDir().orElse(null);
            return this;
        }

        public StoreConfig build() {
            return new StoreConfig(maxEntries, maxBytes, maxKeyBytes, maxValueBytes, Optional.ofNullable(dataDir));
        }
    }
}
