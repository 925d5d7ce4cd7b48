package dev.kvs.bench.drill;

import java.util.Locale;

/** What a drill does to the main DC while load is running. */
public enum Disaster {
    /** The primary's process is killed ({@code kill -9}): whatever it had not shipped is gone. */
    KILL_PRIMARY("kill-primary"),
    /** The WAN link is cut; the primary stays alive but can no longer reach the backup. */
    CUT_LINK("cut-link");

    private final String label;

    Disaster(String label) {
        this.label = label;
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
        throw new IllegalArgumentException("disaster is not kill-primary or cut-link: " + label);
    }
}
