package dev.kvs.client;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One real {@code redis-server} child process on a free loopback port, no persistence, in a
 * temporary directory: what the client's calls are checked against besides kvs. Fails (never skips)
 * if {@code redis-server} is not installed: CI installs it.
 */
final class LoneRedis implements AutoCloseable {
    private final Process process;
    private final Path dir;
    private final int port;

    private LoneRedis(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    static LoneRedis start() {
        Path server =
                RedisCluster.redisServer().orElseThrow(() -> new IllegalStateException(RedisCluster.NOT_INSTALLED));
        try {
            Path dir = Files.createTempDirectory("lone-redis");
            int port = Nodes.freePort();
            Process p = new ProcessBuilder(
                            server.toString(),
                            "--port",
                            "" + port,
                            "--bind",
                            "127.0.0.1",
                            "--save",
                            "",
                            "--appendonly",
                            "no")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
            LoneRedis r = new LoneRedis(p, dir, port);
            try {
                await("redis-server answers PING")
                        .atMost(Duration.ofSeconds(20))
                        .until(r::answers);
            } catch (RuntimeException | Error e) {
                r.close();
                throw e;
            }
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String endpoint() {
        return "127.0.0.1:" + port;
    }

    private boolean answers() {
        try (RespProbe probe = new RespProbe(port)) {
            return "PONG".equals(probe.text("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }
}
