package dev.kvs.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Writes every thread's stack to {@code target/hang-dumps/} when a test JVM makes no progress for {@link
 * #DEFAULT_AFTER} (system property {@code kvs.test.hangDumpAfter}, an ISO-8601 duration): no test or
 * class fixture began or ended meanwhile. A hang on a fresh CI machine (session 33: a deadlock in a test
 * class's teardown) then leaves its cause behind before Surefire's {@code forkedProcessTimeoutInSeconds}
 * kills the JVM, and {@code .ci/run} prints the dumps when the build fails. It never fails a test.
 *
 * <p>Registered as {@link NettyLeakCheck} is, for the modules that have this module's test jar. One
 * watchdog per JVM, a daemon thread; a dump is written once per stall (again only after progress).
 */
public final class HangWatch implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    /** Longer than any one test or fixture here takes (the longest, about 2 minutes); under the fork's 20. */
    static final Duration DEFAULT_AFTER = Duration.ofMinutes(8);

    private static final Watchdog WATCHDOG = new Watchdog(
            Duration.parse(System.getProperty("kvs.test.hangDumpAfter", DEFAULT_AFTER.toString())),
            Path.of("target", "hang-dumps"));

    @Override
    public void beforeAll(ExtensionContext context) {
        WATCHDOG.progress("the fixtures of " + context.getRequiredTestClass().getName());
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        WATCHDOG.progress(context.getRequiredTestClass().getName() + "#" + context.getDisplayName());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        WATCHDOG.progress("after " + context.getRequiredTestClass().getName() + "#" + context.getDisplayName()
                + " (its class's teardown, or the next test's setup)");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        WATCHDOG.progress("after the class " + context.getRequiredTestClass().getName());
    }

    /** Watches the time since the last {@link #progress}; thread-safe. */
    static final class Watchdog {
        private final Duration after;
        private final Path dir;
        private volatile long lastNanos = System.nanoTime();
        private volatile String where = "the JVM's start";
        private volatile boolean dumped;
        private Thread thread;

        Watchdog(Duration after, Path dir) {
            this.after = after;
            this.dir = dir;
        }

        /** Marks progress at {@code where}; starts the watchdog's thread on the first call. */
        synchronized void progress(String where) {
            this.where = where;
            lastNanos = System.nanoTime();
            dumped = false;
            if (thread == null) {
                thread = new Thread(this::watch, "kvs-hang-watch");
                thread.setDaemon(true);
                thread.start();
            }
        }

        private void watch() {
            long period = Math.max(1, Math.min(after.toMillis() / 4, 10_000));
            while (true) {
                try {
                    Thread.sleep(period);
                } catch (InterruptedException e) {
                    return;
                }
                long idle = System.nanoTime() - lastNanos;
                if (dumped || idle < after.toNanos()) continue;
                dumped = true;
                String stall =
                        "kvs-hang-watch: no test progress for " + seconds(Duration.ofNanos(idle)) + " s, in " + where;
                try {
                    System.err.println(stall + "; every thread's stack is in "
                            + dump(Duration.ofNanos(idle)).toAbsolutePath());
                } catch (UncheckedIOException e) {
                    System.err.println(stall + "; the dump could not be written: " + e.getCause());
                }
            }
        }

        private static String seconds(Duration d) {
            return String.format(java.util.Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
        }

        /** Writes the dump of every thread; the file's path. */
        Path dump(Duration idle) {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            StringBuilder b = new StringBuilder();
            b.append("No test progress for ")
                    .append(idle.toSeconds())
                    .append(" s, in ")
                    .append(where)
                    .append(" (")
                    .append(Instant.now())
                    .append(")\n");
            long[] deadlocked = threads.findDeadlockedThreads();
            if (deadlocked != null) {
                b.append("Deadlocked (monitors or ownable synchronizers):");
                for (ThreadInfo t : threads.getThreadInfo(deadlocked))
                    if (t != null) b.append(" \"").append(t.getThreadName()).append('"');
                b.append('\n');
            }
            b.append('\n');
            for (ThreadInfo t : threads.dumpAllThreads(true, true)) append(b, t);
            try {
                Files.createDirectories(dir);
                Path file = dir.resolve(
                        "hang-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis() + ".txt");
                Files.writeString(file, b, StandardCharsets.UTF_8);
                return file;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** One thread, every frame (ThreadInfo's toString stops at eight), with what it waits for and holds. */
        private static void append(StringBuilder b, ThreadInfo t) {
            b.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
            if (t.getLockName() != null) b.append(" on ").append(t.getLockName());
            if (t.getLockOwnerName() != null)
                b.append(" owned by \"").append(t.getLockOwnerName()).append('"');
            b.append('\n');
            StackTraceElement[] frames = t.getStackTrace();
            MonitorInfo[] monitors = t.getLockedMonitors();
            for (int i = 0; i < frames.length; i++) {
                b.append("\tat ").append(frames[i]).append('\n');
                for (MonitorInfo m : monitors) {
                    if (m.getLockedStackDepth() == i)
                        b.append("\t- locked ").append(m).append('\n');
                }
            }
            LockInfo[] synchronizers = t.getLockedSynchronizers();
            if (synchronizers.length > 0) {
                b.append("\tLocked synchronizers:\n");
                for (LockInfo l : synchronizers) b.append("\t- ").append(l).append('\n');
            }
            b.append('\n');
        }
    }
}
