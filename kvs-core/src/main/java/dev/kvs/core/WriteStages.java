package dev.kvs.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * When each stage of a write happened, across the primary, the link and the backup of one JVM: a tool for
 * benchmarks ({@code ./kvs bench jmh --stages}). The parts on a write's path are given one (their builders'
 * {@code stages}, as Caffeine's {@code recordStats(Supplier)}); each node uses {@link #OFF} unless a
 * benchmark passes a {@linkplain #recording recording} one to both nodes.
 *
 * <p>The benchmark {@linkplain #begin begins} each write and the code on its path {@linkplain #mark marks} the
 * stages it passes, stamped with {@link System#nanoTime()}, so the stamps of the primary and the backup share
 * one clock. A stage is stamped for whichever write began last: the trace is meaningful with one write in
 * flight at a time (the benchmark waits for each write's value on the backup, and its ack on the primary, before
 * the next write). On {@link #OFF}, a mark is a final field's null check.
 *
 * <p>Thread-safe: marks come from any thread; each stage of each write keeps its first stamp ({@link #mark}) or
 * its last ({@link #markLast}).
 */
public final class WriteStages {
    /** The stages of a replicated write, in the order they usually happen. */
    public enum Stage {
        /** The client starts sending the command (the benchmark's {@link #begin}). */
        CLIENT_SENDS("the client starts sending the SET"),
        /** A staged value's first store chunk is readable, so it may start for the backup (cut-through). */
        FIRST_READABLE("its first chunk is readable on the primary (cut-through)"),
        /** The command is read whole and dispatched on the primary. */
        DISPATCHED("the command is dispatched (all of it received)"),
        /** The write is in the primary's store and its key packet is released: the origin of the table. */
        COMMITTED("the write commits on the primary"),
        /** The client event loop's turn ends and wakes replication. */
        CLIENT_TURN_ENDED("the client loop's turn ends (replication is woken)"),
        /** The replication event loop runs the turn that sends key packets and ships values. */
        REPLICATION_TURN("the replication event loop's task runs"),
        /** The flush of a key packet frame returns. */
        KEY_FLUSHED("the key packet's flush returns"),
        /** A value frame is written (first, {@link #mark}; last, {@link #markLast}). */
        FIRST_VALUE_FRAME("the value's first frame is written"),
        LAST_VALUE_FRAME("the value's last frame is written"),
        /** The backup reads a value frame. */
        BACKUP_FIRST_READ("the value's first frame is read on the backup"),
        BACKUP_LAST_READ("its last frame is read on the backup"),
        /** The backup applied a whole value. */
        APPLIED("the value is applied on the backup"),
        /** The backup flushed value acks. */
        ACK_FLUSHED("its ack is flushed"),
        /** The primary reads a key ack. */
        KEY_ACKED("the key packet's ack reaches the primary"),
        /** The primary reads a value ack. */
        VALUE_ACKED("the value's ack reaches the primary"),
        /** The reply is written to the client's channel. */
        REPLY_WRITTEN("the reply is written on the client loop"),
        /** The client has the reply (the benchmark's {@link #end}). */
        CLIENT_HAS_REPLY("the client has the reply");

        private final String description;

        Stage(String description) {
            this.description = description;
        }

        /** What the stage is, for a table. */
        public String description() {
            return description;
        }
    }

    private static final Stage[] STAGES = Stage.values();

    /** Records nothing: what every part on a write's path marks unless a benchmark passes its own. */
    public static final WriteStages OFF = new WriteStages(null);

    /** What this records, or null: {@link #OFF}. */
    private final Recording recording;

    private WriteStages(Recording recording) {
        this.recording = recording;
    }

    /**
     * Stages that record from now on: up to {@code maxWrites} writes, stamped by {@code clock} (nanoseconds).
     *
     * @throws IllegalArgumentException if {@code maxWrites <= 0}
     */
    public static WriteStages recording(int maxWrites, LongSupplier clock) {
        if (maxWrites <= 0) throw new IllegalArgumentException("maxWrites <= 0: " + maxWrites);
        return new WriteStages(new Recording(maxWrites, clock));
    }

    /** {@link #recording(int, LongSupplier)} on {@link System#nanoTime()}. */
    public static WriteStages recording(int maxWrites) {
        return recording(maxWrites, System::nanoTime);
    }

    /** Forgets what was recorded and records afresh (a benchmark's next iteration); nothing on {@link #OFF}. */
    public void restart() {
        Recording r = recording;
        if (r != null) r.restart();
    }

    /** True if this records: not {@link #OFF}. */
    public boolean enabled() {
        return recording != null;
    }

    /** A new write begins: stamps its {@link Stage#CLIENT_SENDS}; later marks are its. */
    public void begin() {
        Recording r = recording;
        if (r != null) r.trace.begin();
    }

    /** The current write's client has its reply: stamps {@link Stage#CLIENT_HAS_REPLY}. */
    public void end() {
        mark(Stage.CLIENT_HAS_REPLY);
    }

    /** Stamps {@code stage} of the current write, unless it has a stamp already. */
    public void mark(Stage stage) {
        Recording r = recording;
        if (r != null) r.trace.mark(stage, false);
    }

    /** Stamps {@code stage} of the current write, replacing an earlier stamp. */
    public void markLast(Stage stage) {
        Recording r = recording;
        if (r != null) r.trace.mark(stage, true);
    }

    /** Writes begun since recording started (or restarted). */
    public int writes() {
        Recording r = recording;
        return r == null ? 0 : r.trace.current + 1;
    }

    /**
     * A Markdown table of each stage's time from {@link Stage#COMMITTED} (median, quartiles and count), in µs,
     * over the writes that have both a commit and a reply; empty ({@code ""}) if none has. Stages no write
     * passed are left out.
     */
    public String table() {
        Recording r = recording;
        return r == null ? "" : r.trace.table();
    }

    /** A recording's size and clock, and its current trace, replaced at each restart. */
    private static final class Recording {
        private final int maxWrites;
        private final LongSupplier clock;
        private volatile Trace trace;

        Recording(int maxWrites, LongSupplier clock) {
            this.maxWrites = maxWrites;
            this.clock = clock;
            restart();
        }

        void restart() {
            trace = new Trace(maxWrites, clock);
        }
    }

    private static final class Trace {
        private final long[][] stamps;
        private final LongSupplier clock;
        private volatile int current = -1;

        Trace(int maxWrites, LongSupplier clock) {
            this.stamps = new long[STAGES.length][maxWrites];
            this.clock = clock;
        }

        void begin() {
            int next = current + 1;
            if (next >= stamps[0].length) return; // full: the rest is not recorded
            stamps[Stage.CLIENT_SENDS.ordinal()][next] = clock.getAsLong();
            current = next;
        }

        void mark(Stage stage, boolean last) {
            int w = current;
            if (w < 0) return;
            long[] s = stamps[stage.ordinal()];
            if (last || s[w] == 0) s[w] = clock.getAsLong();
        }

        String table() {
            int n = current + 1;
            long[] origin = stamps[Stage.COMMITTED.ordinal()];
            long[] reply = stamps[Stage.CLIENT_HAS_REPLY.ordinal()];
            StringBuilder out = new StringBuilder();
            for (Stage stage : STAGES) {
                long[] s = stamps[stage.ordinal()];
                long[] d = new long[n];
                int k = 0;
                for (int i = 0; i < n; i++) {
                    if (origin[i] != 0 && reply[i] != 0 && s[i] != 0) d[k++] = s[i] - origin[i];
                }
                if (k == 0) continue;
                Arrays.sort(d, 0, k);
                if (out.length() == 0) {
                    out.append(
                            "| stage (µs from the commit) | p50 | p25 | p75 | writes |\n|---|---:|---:|---:|---:|\n");
                }
                out.append(String.format(
                        Locale.ROOT,
                        "| %s | %,.0f | %,.0f | %,.0f | %d |\n",
                        stage.description(),
                        d[k / 2] / 1e3,
                        d[k / 4] / 1e3,
                        d[3 * k / 4] / 1e3,
                        k));
            }
            return out.toString();
        }
    }
}
