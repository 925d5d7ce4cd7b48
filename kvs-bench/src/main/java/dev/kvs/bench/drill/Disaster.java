package dev.kvs.bench.drill;

import java.util.Locale;

/** What a drill does to the main DC while load is running. */
public enum Disaster {
    /** The primary's process is killed ({@code kill -9}): whatever it had not shipped is gone. */
    KILL_PRIMARY("kill-primary"),
    /** The WAN link is cut; the primary stays alive but can no longer reach the backup. */
    CUT_LINK("cut-link"),
    /**
     * Sharded drills only: DC a, where the primaries are, is cut off ZooKeeper and off DC b at once,
     * silently (its links paused, nothing reset), for three session timeouts, then healed. Its primaries
     * must stop on their lease, DC b's backups be promoted by the coordinator, and after the heal the old
     * primaries follow the map and serve as backups.
     */
    ISOLATE_DC("isolate-dc"),
    /**
     * Sharded drills only: the mirror, DC b (the backups) cut off ZooKeeper and off DC a for three
     * session timeouts, then healed: nothing may be promoted, and writes resume once healed.
     */
    ISOLATE_BACKUP_DC("isolate-backup-dc");

    private final String label;

    Disaster(String label) {
        this.label = label;
    }

    /** Whether it cuts a whole datacenter, which only a sharded drill (ZooKeeper, a link per DC) can do. */
    public boolean isolatesDc() {
        return this == ISOLATE_DC || this == ISOLATE_BACKUP_DC;
    }

    /** The name used on the command line, e.g. {@code kill-primary}. */
    public String label() {
        return label;
    }

    /**
     * The disaster named {@code label} (case-insensitive).
     *
     * @throws IllegalArgumentException quoting {@code label} if there is none
     */
    public static Disaster parse(String label) {
        String l = label == null ? "" : label.trim().toLowerCase(Locale.ROOT);
        for (Disaster d : values()) {
            if (d.label.equals(l)) return d;
        }
        throw new IllegalArgumentException(
                "disaster is not kill-primary, cut-link, isolate-dc or isolate-backup-dc: " + label);
    }
}
