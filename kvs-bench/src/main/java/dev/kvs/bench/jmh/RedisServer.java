package dev.kvs.bench.jmh;

import dev.kvs.bench.resp.RespConnection;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} child process on loopback, for the Redis baseline: no persistence, no
 * protected mode, its files and log in a temporary directory. Stopped by {@link #close()}, and by a
 * shutdown hook if the JVM exits first.
 */
final class RedisServer implements AutoCloseable {
    /** What {@link #requireOnPath} says when there is no {@code redis-server}. */
    static final String NOT_INSTALLED = "redis-server is not on PATH: the Redis baseline needs it"
            + " (Debian/Ubuntu: apt-get install -y redis-server)";

    private final Process process;
    private final Thread hook;
    private final Path dir;
    final int port;

    private RedisServer(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.hook = new Thread(process::destroyForcibly, "redis-server-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The {@code redis-server} executable on {@code PATH}, if any. */
    static Optional<Path> onPath() {
        return onPath(System.getenv("PATH"));
    }

    static Optional<Path> onPath(String path) {
        if (path == null) return Optional.empty();
        for (String d : path.split(File.pathSeparator)) {
            if (d.isEmpty()) continue;
            Path p = Path.of(d, "redis-server");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** Fails with {@link #NOT_INSTALLED} if there is no {@code redis-server} on {@code PATH}. */
    static Path requireOnPath() {
        return onPath().orElseThrow(() -> new IllegalStateException(NOT_INSTALLED));
    }

    /**
     * Starts a server on a free loopback port and waits until it answers {@code PING}.
     *
     * @param extra more {@code --option value} arguments, e.g. {@code --replicaof}
     */
    static RedisServer start(String name, List<String> extra) throws IOException {
        return start(name, extra, RedisServer::freePort);
    }

    /** Where each attempt's port comes from. */
    @FunctionalInterface
    interface Ports {
        int next() throws IOException;
    }

    /**
     * As above, on a port from {@code ports}: if another socket took it before {@code redis-server} bound it
     * (an outgoing connection's ephemeral port), again on the next one, up to {@value #START_ATTEMPTS} times.
     */
    static RedisServer start(String name, List<String> extra, Ports ports) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return start(name, extra, ports.next());
            } catch (IOException e) {
                if (attempt == START_ATTEMPTS || !portTaken(e)) throw e;
            }
        }
    }

    /** Whether {@code e} says {@code redis-server} could not bind its port. */
    static boolean portTaken(IOException e) {
        return e.getMessage() != null && e.getMessage().contains("Address already in use");
    }

    private static final int START_ATTEMPTS = 3;

    private static RedisServer start(String name, List<String> extra, int port) throws IOException {
        Path exe = requireOnPath();
        Path dir = Files.createTempDirectory("kvs-jmh-" + name + "-");
        List<String> cmd = new ArrayList<>(List.of(
                exe.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--protected-mode",
                "no",
                "--save",
                "",
                "--appendonly",
                "no",
                "--repl-diskless-sync",
                "yes",
                "--repl-diskless-sync-delay",
                "0",
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve("redis.log").toString()));
        cmd.addAll(extra);
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile())
                .start();
        RedisServer s = new RedisServer(p, dir, port);
        try {
            s.awaitPing(Duration.ofSeconds(10));
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void awaitPing(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) throw new IOException("redis-server exited: " + log());
            try (RespConnection c =
                    RespConnection.open("127.0.0.1", port, Duration.ofSeconds(1), Duration.ofSeconds(1))) {
                if ("PONG".equals(c.call("PING"))) return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) throw new IOException("redis-server did not answer: " + log());
            }
            sleep(Duration.ofMillis(20));
        }
    }

    /** The {@code field:value} lines of {@code INFO replication}. */
    String info(String field) throws IOException {
        try (RespConnection c = RespConnection.open("127.0.0.1", port, Duration.ofSeconds(1), Duration.ofSeconds(5))) {
            Object reply = c.call("INFO", "replication");
            if (!(reply instanceof byte[] b)) throw new IOException("INFO answered " + reply);
            for (String line : new String(b, StandardCharsets.UTF_8).split("\r\n")) {
                if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
            }
            return null;
        }
    }

    /** Waits until {@code INFO replication} shows {@code field:expected}. */
    void awaitInfo(String field, String expected, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last;
        while (!expected.equals(last = info(field))) {
            if (System.nanoTime() > deadline) {
                throw new IOException("redis on port " + port + ": " + field + " is " + last + ", not " + expected
                        + " after " + timeout.toSeconds() + " s; log: " + log());
            }
            sleep(Duration.ofMillis(50));
        }
    }

    private String log() {
        try {
            Path f = dir.resolve("redis.log");
            if (!Files.exists(f)) f = dir.resolve("stdout.log");
            List<String> lines = Files.readAllLines(f);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        deleteQuietly(dir);
    }

    private static void deleteQuietly(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temp dir left behind
        }
    }
}
