package dev.kvs.bench.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One kvs node running as a child process ({@code kvs server --config FILE}), or another {@code kvs}
 * process of a drill ({@code kvs wan}), its output in a log file. {@link #awaitReady} reads the
 * ports a node bound from the line {@code kvs server} prints.
 */
public final class NodeProcess {
    private static final Pattern READY = Pattern.compile(
            "listening on (\\S+): clients (\\d+), replication (\\d+), admin https?://\\S+?:(\\d+)/status");

    /**
     * The ports a started node bound.
     *
     * @param host the address it bound them on
     * @param client RESP client port
     * @param repl replication port
     * @param admin admin HTTP port
     */
    public record Ports(String host, int client, int repl, int admin) {}

    private final String name;
    private final Path log;
    private final Process process;

    private NodeProcess(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts {@code command} with its stdout and stderr going to {@code log}, tracked by {@code children}.
     *
     * @throws java.io.UncheckedIOException if the process cannot be started
     */
    public static NodeProcess start(String name, List<String> command, Path log, ChildProcesses children) {
        return start(name, command, Map.of(), log, children);
    }

    /**
     * As above, with {@code environment} set in the process's environment over this process's (a
     * secret such as {@code KVS_ZOOKEEPER_CREDENTIALS}, kept out of the command line and the files).
     */
    public static NodeProcess start(
            String name, List<String> command, Map<String, String> environment, Path log, ChildProcesses children) {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().putAll(environment);
        return new NodeProcess(name, log, children.start(pb));
    }

    /** The name messages give the process. */
    public String name() {
        return name;
    }

    /** The file its output goes to. */
    public Path log() {
        return log;
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the process is running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits until the node printed the ports it listens on.
     *
     * @throws IllegalStateException with the tail of the log if it exits or does not start in time
     */
    public Ports awaitReady(Duration timeout) throws InterruptedException {
        MatchResult m = awaitLine(READY, timeout);
        return new Ports(
                m.group(1), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4)));
    }

    /**
     * Waits until the process printed something matching {@code ready}.
     *
     * @throws IllegalStateException with the tail of the log if it exits or does not print it in time
     */
    public MatchResult awaitLine(Pattern ready, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Matcher m = ready.matcher(read());
            if (m.find()) return m.toMatchResult();
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue()
                        + " before it was ready; " + log + " ends with:\n" + tail(20));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not start within " + timeout.toSeconds() + " s; " + log
                        + " ends with:\n" + tail(20));
            }
            // the child writes its log as it starts; there is no other signal to wait on
            process.waitFor(50, TimeUnit.MILLISECONDS);
        }
    }

    /** Kills the node at once ({@code SIGKILL}): it cannot ship or flush anything more. */
    public void kill() {
        ChildProcesses.kill(process);
    }

    /** Asks the node to stop ({@code SIGTERM}), then kills it if it has not stopped in {@code grace}. */
    public void stop(Duration grace) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) kill();
    }

    /** The last {@code lines} lines of the log. */
    public String tail(int lines) {
        List<String> all = read().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    private String read() {
        try {
            return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + log + ": " + e.getMessage(), e);
        }
    }
}
