package dev.kvs.server.internal.resp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real Redis Cluster on loopback, to compare kvs's replies with: three {@code redis-server
 * --cluster-enabled yes} processes, {@code n1} (slots 0-8191, config epoch 1) with its replica {@code
 * n3}, and {@code n2} (8192-16383, epoch 2), converged and replicating; plus one Redis without cluster
 * support ({@link #plainPort}) and one cluster node that met no other and has no slots ({@link
 * #lonePort}). Each process listens on a free port whose bus port (+10000) is free too.
 */
final class RealRedisCluster implements AutoCloseable {
    /** Client ports of n1, n2, n3. */
    final int[] ports = new int[3];
    /** Node ids of n1, n2, n3. */
    final String[] ids = new String[3];

    final int plainPort;
    /** A cluster node alone, with no slots assigned, and its id. */
    final int lonePort;

    final String loneId;
    private final List<Process> processes = new ArrayList<>();

    /** True if {@code redis-server} can be run here. */
    static boolean available() {
        try {
            Process p = new ProcessBuilder("redis-server", "--version")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            return p.waitFor() == 0 && out.contains("v=7.0.15");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    RealRedisCluster(Path dir) {
        Random random = new Random();
        try {
            for (int i = 0; i < 3; i++) {
                ports[i] = freePort(random, true);
                start(dir, ports[i], true);
            }
            plainPort = freePort(random, false);
            start(dir, plainPort, false);
            lonePort = freePort(random, true);
            start(dir, lonePort, true);
            for (int p : ports) awaitPing(p);
            awaitPing(plainPort);
            awaitPing(lonePort);
            loneId = RespText.parse(RespText.call(lonePort, "CLUSTER", "MYID")).toString();
            for (int i = 0; i < 3; i++)
                ids[i] = RespText.parse(RespText.call(ports[i], "CLUSTER", "MYID"))
                        .toString();
            ok(ports[0], "CLUSTER", "SET-CONFIG-EPOCH", "1");
            ok(ports[1], "CLUSTER", "SET-CONFIG-EPOCH", "2");
            ok(ports[0], "CLUSTER", "ADDSLOTSRANGE", "0", "8191");
            ok(ports[1], "CLUSTER", "ADDSLOTSRANGE", "8192", "16383");
            ok(ports[0], "CLUSTER", "MEET", "127.0.0.1", Integer.toString(ports[1]));
            ok(ports[0], "CLUSTER", "MEET", "127.0.0.1", Integer.toString(ports[2]));
            await(() -> {
                for (int p : ports) {
                    if (!RespText.call(p, "CLUSTER", "INFO").contains("cluster_known_nodes:3\r\n")) return false;
                }
                return true;
            });
            ok(ports[2], "CLUSTER", "REPLICATE", ids[0]);
            // a replica is listed by CLUSTER SLOTS (and "online" in SHARDS) once it has replicated a write
            await(() -> {
                if (!RespText.call(ports[0], "SET", "sync{bar}", "1").equals("+OK\r\n")) return false;
                for (int p : ports) {
                    String info = RespText.call(p, "CLUSTER", "INFO");
                    if (!info.contains("cluster_state:ok\r\n") || !info.contains("cluster_current_epoch:2\r\n"))
                        return false;
                    String shards = RespText.call(p, "CLUSTER", "SHARDS");
                    if (shards.contains("loading") || shards.contains("fail")) return false;
                    if (!RespText.call(p, "CLUSTER", "NODES").contains("slave " + ids[0] + " ")) return false;
                }
                return RespText.call(ports[0], "CLUSTER", "SLOTS").contains(ids[2]);
            });
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void start(Path dir, int port, boolean cluster) {
        List<String> cmd = new ArrayList<>(List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                // the replica's full sync starts at once, not after Redis's 5 s wait for more replicas
                "--repl-diskless-sync-delay",
                "0",
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve(port + ".log").toString()));
        if (cluster) {
            cmd.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf"));
        }
        try {
            Files.createDirectories(dir);
            processes.add(new ProcessBuilder(cmd)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void ok(int port, String... args) {
        String reply = RespText.call(port, args);
        if (!reply.equals("+OK\r\n")) throw new IllegalStateException(String.join(" ", args) + ": " + reply);
    }

    private void awaitPing(int port) {
        await(() -> {
            try {
                return RespText.call(port, "PING").equals("+PONG\r\n");
            } catch (UncheckedIOException e) {
                return false;
            }
        });
    }

    private void await(java.util.concurrent.Callable<Boolean> condition) {
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(condition);
        } catch (ConditionTimeoutException e) {
            StringBuilder state = new StringBuilder("the Redis cluster did not converge:");
            for (int p : ports) {
                for (String sub : List.of("INFO", "NODES", "SHARDS")) {
                    state.append("\n").append(p).append(" CLUSTER ").append(sub).append(": ");
                    try {
                        state.append(RespText.call(p, "CLUSTER", sub));
                    } catch (UncheckedIOException io) {
                        state.append(io);
                    }
                }
            }
            throw new IllegalStateException(state.toString(), e);
        }
    }

    /** A free port; for a cluster node, with its bus port (+10000) free too. */
    private static int freePort(Random random, boolean withBus) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 20_000 + random.nextInt(20_000);
            if (free(port) && (!withBus || free(port + 10_000))) return port;
        }
        throw new IllegalStateException("no free port pair found");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroy();
            try {
                if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
