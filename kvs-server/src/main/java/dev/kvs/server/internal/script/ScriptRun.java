package dev.kvs.server.internal.script;

import java.lang.management.ManagementFactory;

/**
 * One script running: which script (or function), whether it may write, since when it runs, whether it
 * wrote (then {@code SCRIPT KILL} may not stop it: half its writes would stand) and whether it was
 * killed; a library's load also has a deadline ({@code FUNCTION LOAD timeout}). Written by the thread
 * running the script, read by any ({@code SCRIPT KILL}, {@code FUNCTION KILL}, the {@code BUSY} check).
 */
public final class ScriptRun {
    /**
     * The most one run may allocate, in all: a quarter of the heap, at most 256 MiB. What a script holds
     * is never more than what it allocated, so this bounds its memory (LuaJ has no allocator hook to count
     * what it holds); a script that churns through more, holding little, is stopped too.
     */
    static final long MAX_ALLOCATED_BYTES =
            Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final String sha;
    private final boolean readOnly;
    private final boolean function;
    private final long startedNanos = System.nanoTime();
    private final long deadlineNanos;
    /** The running thread's allocated bytes when the run began (it runs on the thread that made it). */
    private final long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();

    private volatile boolean wrote;
    private volatile boolean killed;
    /** The line of the script's last instruction run (0 before the first), for its error's position. */
    private int line;

    ScriptRun(String sha, boolean readOnly) {
        this(sha, readOnly, false, 0);
    }

    /**
     * @param function a function's run ({@code FCALL}): {@code FUNCTION KILL} stops it, not {@code SCRIPT KILL}
     * @param limitNanos how long it may run before it is stopped, 0 for no limit (a library's load has one)
     */
    ScriptRun(String name, boolean readOnly, boolean function, long limitNanos) {
        this.sha = name;
        this.readOnly = readOnly;
        this.function = function;
        this.deadlineNanos = limitNanos > 0 ? startedNanos + limitNanos : 0;
    }

    /** The running script's SHA-1, or the running function's name. */
    public String sha() {
        return sha;
    }

    /** True if this runs a function ({@code FCALL}), false for {@code EVAL}'s script. */
    public boolean function() {
        return function;
    }

    /**
     * True once this thread allocated more than {@link #MAX_ALLOCATED_BYTES} since the run began (false
     * where the JVM does not count a thread's allocations).
     */
    boolean pastMemory() {
        long now = THREADS.getCurrentThreadAllocatedBytes();
        return allocatedBefore >= 0 && now - allocatedBefore > MAX_ALLOCATED_BYTES;
    }

    /** True once the run's deadline (if it has one) has passed. */
    boolean pastDeadline() {
        return deadlineNanos != 0 && System.nanoTime() - deadlineNanos > 0;
    }

    /** True if the script may run no write command ({@code EVAL_RO}, {@code EVALSHA_RO}, {@code no-writes}). */
    public boolean readOnly() {
        return readOnly;
    }

    /** Called before the script's first write command runs: from then on {@code SCRIPT KILL} refuses. */
    public void writing() {
        wrote = true;
    }

    boolean wrote() {
        return wrote;
    }

    /** How long it has run, in milliseconds. */
    public long runningMillis() {
        return runningNanos() / 1_000_000;
    }

    long runningNanos() {
        return System.nanoTime() - startedNanos;
    }

    void kill() {
        killed = true;
    }

    boolean killed() {
        return killed;
    }

    void line(int line) {
        this.line = line;
    }

    int line() {
        return line;
    }
}
