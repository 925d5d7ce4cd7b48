package dev.kvs.replication;

/** When a write is acknowledged to its client, relative to replication to the backup. */
public enum ReplicationMode {
    /** Answered when key and value are stored on the backup. Nothing lost on disaster. */
    SYNC("sync"),
    /** Answered when the backup acked the key packet. Missing values are detected and fenced. */
    ID_FIRST("id-first"),
    /**
     * Answered at once while the key channel streams and key acks keep coming (the oldest unacked key
     * packet is younger than the heartbeat interval, 1 s by default); the key packet is sent right
     * after. Small window of undetected loss: about one heartbeat interval of writes when the link
     * fails. Otherwise a write waits for its key packet's acknowledgement like {@link #ID_FIRST}.
     */
    ID_FIRST_AFTER_REPLY("id-first-after-reply"),
    /** Answered at once; key and value shipped together later. Silent loss on disaster. */
    ASYNC("async");

    private final String label;

    ReplicationMode(String label) {
        this.label = label;
    }

    /** The name used in config, on the command line and in {@code KVS.MODE}. */
    public String label() {
        return label;
    }

    /** Parses a {@link #label()}, any case; also accepts the enum name. */
    public static ReplicationMode parse(String text) {
        String t = text.trim();
        for (ReplicationMode m : values()) {
            if (m.label.equalsIgnoreCase(t) || m.name().equalsIgnoreCase(t)) return m;
        }
        throw new IllegalArgumentException("mode is not id-first|id-first-after-reply|sync|async: " + text);
    }

    @Override
    public String toString() {
        return label;
    }
}
