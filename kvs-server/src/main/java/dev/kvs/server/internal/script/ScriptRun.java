package dev.kvs.server.internal.script;

/**
 * One script running: which script, whether it may write, since when it runs, whether it wrote (then
 * {@code SCRIPT KILL} may not stop it: half its writes would stand) and whether it was killed. Written
 * by the thread running the script, read by any ({@code SCRIPT KILL}, the {@code BUSY} check).
 */
public final class ScriptRun {
    private final String sha;
    private final boolean readOnly;
    private final long startedNanos = System.nanoTime();
    private volatile boolean wrote;
    private volatile boolean killed;

    ScriptRun(String sha, boolean readOnly) {
        this.sha = sha;
        this.readOnly = readOnly;
    }

    /** The running script's SHA-1. */
    public String sha() {
        return sha;
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

    long runningNanos() {
        return System.nanoTime() - startedNanos;
    }

    void kill() {
        killed = true;
    }

    boolean killed() {
        return killed;
    }
}
