package dev.kvs.client;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Redis 7 cluster of three primaries on loopback, for what the client needs of a cluster that
 * is plain Redis (GET/SET/MGET/MSET, {@code CLUSTER SHARDS}, {@code -MOVED}): three {@code
 * redis-server --cluster-enabled yes} child processes in temporary directories, on free ports, the
 * 16,384 slots split in three ranges with {@code CLUSTER ADDSLOTSRANGE}, joined with {@code CLUSTER
 * MEET}, ready once every node reports {@code cluster_state:ok} and knows the others. No
 * persistence.
 */
final class RedisCluster implements AutoCloseable {
    /** What the tests say when there is no {@code redis-server}. */
    static final String NOT_INSTALLED =
            "redis-server is not on PATH (Debian/Ubuntu: apt-get install -y redis-server); CI installs it";

    /** The slot ranges of the three nodes, as redis-cli --cluster create would assign them. */
    static final int[][] RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};

    private final List<Process> processes = new ArrayList<>();
    private final List<Path> dirs = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();
    /** Stops the servers if the JVM exits before {@link #close()}. */
    private final Thread stopOnExit = new Thread(this::stopProcesses, "redis-cluster-stop");

    private RedisCluster() {
        Runtime.getRuntime().addShutdownHook(stopOnExit);
    }

    /** The {@code redis-server} on {@code PATH}, if any. */
    static Optional<Path> redisServer() {
        String path = System.getenv("PATH");
        if (path == null) return Optional.empty();
        return Stream.of(path.split(File.pathSeparator))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, "redis-server"))
                .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
                .findFirst();
    }

    static RedisCluster start() {
        RedisCluster c = new RedisCluster();
        try {
            for (int i = 0; i < RANGES.length; i++) c.startNode(i);
            for (int i = 0; i < RANGES.length; i++) {
                try (RespProbe p = new RespProbe(c.port(i))) {
                    expectOk(p.call("CLUSTER", "ADDSLOTSRANGE", "" + RANGES[i][0], "" + RANGES[i][1]));
                    c.ids.add(p.text("CLUSTER", "MYID"));
                }
            }
            try (RespProbe p = new RespProbe(c.port(0))) {
                for (int i = 1; i < RANGES.length; i++)
                    expectOk(p.call("CLUSTER", "MEET", "127.0.0.1", "" + c.port(i)));
            }
            await("cluster_state:ok on every node")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .until(c::allOk);
            return c;
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
    }

    int port(int node) {
        return ports.get(node);
    }

    String id(int node) {
        return ids.get(node);
    }

    String endpoint(int node) {
        return "127.0.0.1:" + port(node);
    }

    /** The node (0..2) whose range holds {@code slot} at start. */
    static int initialOwner(int slot) {
        for (int i = 0; i < RANGES.length; i++) {
            if (slot >= RANGES[i][0] && slot <= RANGES[i][1]) return i;
        }
        throw new IllegalArgumentException("slot is not in 0..16383: " + slot);
    }

    /** Gives {@code slot} (empty) to {@code node}: {@code CLUSTER SETSLOT slot NODE id} on each node, the new owner first. */
    void moveSlot(int slot, int node) {
        List<Integer> order = new ArrayList<>(List.of(node));
        for (int i = 0; i < RANGES.length; i++) if (i != node) order.add(i);
        for (int i : order) {
            try (RespProbe p = new RespProbe(port(i))) {
                expectOk(p.call("CLUSTER", "SETSLOT", "" + slot, "NODE", id(node)));
            }
        }
    }

    private boolean allOk() {
        for (int i = 0; i < RANGES.length; i++) {
            try (RespProbe p = new RespProbe(port(i))) {
                String info = p.text("CLUSTER", "INFO");
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:3")) return false;
            }
        }
        return true;
    }

    private void startNode(int i) {
        Path exe = redisServer().orElseThrow(() -> new IllegalStateException(NOT_INSTALLED));
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            try {
                Path dir = Files.createTempDirectory("kvs-client-redis-cluster-");
                dirs.add(dir);
                Process p = new ProcessBuilder(
                                exe.toString(),
                                "--port",
                                "" + port,
                                "--bind",
                                "127.0.0.1",
                                "--cluster-enabled",
                                "yes",
                                "--cluster-config-file",
                                dir.resolve("nodes.conf").toString(),
                                "--cluster-node-timeout",
                                "5000",
                                "--save",
                                "",
                                "--appendonly",
                                "no",
                                "--dir",
                                dir.toString(),
                                "--logfile",
                                dir.resolve("redis.log").toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("stdout.log").toFile())
                        .start();
                processes.add(p);
                if (answers(port, p)) {
                    ports.add(port);
                    return;
                }
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                processes.remove(p);
                if (attempt == 3)
                    throw new IllegalStateException("redis-server did not start on port " + port + ": see " + dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Whether the server answers PING before it exits or 10 s pass. */
    private static boolean answers(int port, Process p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) return false;
            try (RespProbe probe = new RespProbe(port)) {
                if ("PONG".equals(probe.call("PING"))) return true;
            } catch (UncheckedIOException e) {
                // not listening yet
            }
            p.waitFor(20, TimeUnit.MILLISECONDS);
        }
        return false;
    }

    /** A free loopback port whose cluster bus port (+10000) is free too. */
    private static int freePort() {
        for (int i = 0; i < 100; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int port = s.getLocalPort();
                if (port + 10_000 > 65_535) continue;
                try (ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
                    return port;
                } catch (IOException taken) {
                    // try another
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free port pair (p, p+10000) on loopback");
    }

    private static void expectOk(Object reply) {
        if (!"OK".equals(reply)) throw new IllegalStateException("expected OK, got " + reply);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException exiting) {
            // the hook runs
        }
        stopProcesses();
        deleteDirs();
    }

    private void stopProcesses() {
        for (Process p : processes) p.destroyForcibly();
        for (Process p : processes) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void deleteDirs() {
        for (Path d : dirs) {
            try (Stream<Path> files = Files.walk(d)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException e) {
                // a temp dir left behind
            }
        }
    }
}
