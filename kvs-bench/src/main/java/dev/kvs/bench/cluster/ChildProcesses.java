package dev.kvs.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The processes a drill or a benchmark started. A shutdown hook kills them, and every other
 * descendant of this JVM, if the JVM stops early (Ctrl-C, SIGTERM); {@link #close()} kills them on
 * the normal path and removes the hook. Thread-safe.
 */
public final class ChildProcesses implements AutoCloseable {
    private final Set<Process> processes = ConcurrentHashMap.newKeySet();
    private final List<Runnable> cleanups = new ArrayList<>();
    private final Thread hook = new Thread(this::onShutdown, "kvs-child-cleanup");

    /** Tracks no process yet; installs the shutdown hook. */
    public ChildProcesses() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts {@code builder}'s process and tracks it. */
    Process start(ProcessBuilder builder) {
        try {
            Process p = builder.start();
            processes.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot start " + String.join(" ", builder.command()) + ": " + e.getMessage(), e);
        }
    }

    /** Runs {@code cleanup} after the processes are killed, on close or at shutdown (e.g. removing namespaces). */
    public synchronized void onClose(Runnable cleanup) {
        cleanups.add(cleanup);
    }

    /** Kills {@code p} and its descendants at once ({@code SIGKILL}) and waits for it to exit. */
    static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void killAll() {
        for (Process p : processes) kill(p);
        processes.clear();
        List<Runnable> todo;
        synchronized (this) {
            todo = new ArrayList<>(cleanups);
            cleanups.clear();
        }
        for (Runnable r : todo) {
            try {
                r.run();
            } catch (RuntimeException e) {
                System.err.println("kvs: cleanup failed: " + e.getMessage());
            }
        }
    }

    private void onShutdown() {
        killAll();
        // anything else this JVM started (e.g. a process that outlived its parent wrapper)
        ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
    }

    /** Kills every process started through this object, runs the clean-ups, removes the hook. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running or has run
        }
    }
}
