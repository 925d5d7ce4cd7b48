package dev.kvs.replication;

import java.util.Locale;

/** The role of a node in its primary/backup pair. */
public enum Role {
    /** Serves clients and ships writes to the backup. */
    PRIMARY,
    /** Receives writes from the primary; answers clients {@code -NOTPRIMARY} until promoted. */
    BACKUP;

    /** Parses {@code primary} or {@code backup}, any case. */
    public static Role parse(String text) {
        for (Role r : values()) {
            if (r.name().equalsIgnoreCase(text.trim())) return r;
        }
        throw new IllegalArgumentException("role is not primary|backup: " + text);
    }

    /** The lower-case name used in config, status and INFO. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
