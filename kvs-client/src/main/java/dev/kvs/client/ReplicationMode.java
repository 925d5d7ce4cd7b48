package dev.kvs.client;

import java.util.Locale;

/**
 * When the server answers a write, chosen per connection with {@code KVS.MODE} (see {@link
 * KvsClient.Builder#mode(ReplicationMode)}). The server's own default applies when none is chosen.
 */
public enum ReplicationMode {
    /** Answered once the key and value are stored on the backup: nothing is lost in a disaster. */
    SYNC("sync"),
    /**
     * Answered once the backup acknowledged the key's identifier (one WAN round trip, whatever the
     * value size); a value that never arrives is detected and fenced after a failover.
     */
    ID_FIRST("id-first"),
    /** Answered at once; the identifier is sent right after (a small window of undetected loss). */
    ID_FIRST_AFTER_REPLY("id-first-after-reply"),
    /** Answered at once; key and value are shipped together later (silent loss is possible). */
    ASYNC("async"),
    /** Whatever the server is configured with; the client sends no {@code KVS.MODE}. */
    SERVER_DEFAULT("default");

    private final String label;

    ReplicationMode(String label) {
        this.label = label;
    }

    /** The name the server knows the mode by, e.g. {@code "id-first"}. */
    public String label() {
        return label;
    }

    /**
     * The mode named {@code label} (case-insensitive), e.g. {@code "id-first"}.
     *
     * @throws IllegalArgumentException if no mode has that name
     */
    public static ReplicationMode parse(String label) {
        if (label != null) {
            String l = label.trim().toLowerCase(Locale.ROOT);
            for (ReplicationMode m : values()) {
                if (m.label.equals(l)) return m;
            }
        }
        throw new IllegalArgumentException(
                "mode is not one of sync, id-first, id-first-after-reply, async, default: " + label);
    }
}
