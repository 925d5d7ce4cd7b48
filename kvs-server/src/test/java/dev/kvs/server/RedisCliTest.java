package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The real {@code redis-cli} binary against an in-process node: {@code --scan}, {@code --bigkeys},
 * {@code --memkeys}, {@code --latency} (stopped once it has printed samples) and {@code INFO}'s
 * sections. Skipped, saying so, when {@code redis-cli} is not installed ({@code .ci/run} installs
 * {@code redis-tools}).
 */
class RedisCliTest {
    private static KvsNode node;
    private static final Set<String> KEYS = new HashSet<>();

    @BeforeAll
    static void start() {
        Assumptions.assumeTrue(
                redisCliInstalled(),
                "redis-cli is not installed (apt-get install redis-tools): the redis-cli tests are skipped");
        node = KvsNode.start(NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(10_000)
                        .maxBytes(64 << 20)
                        .build())
                .build());
        try (Jedis j = new Jedis("127.0.0.1", node.port())) {
            for (int i = 0; i < 300; i++) {
                j.set("user:" + i, "x".repeat(i));
                KEYS.add("user:" + i);
            }
            j.set("big", "y".repeat(100_000));
            KEYS.add("big");
        }
    }

    @AfterAll
    static void stop() {
        if (node != null) node.close();
    }

    private static boolean redisCliInstalled() {
        try {
            Process p = new ProcessBuilder("redis-cli", "--version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private record Run(int exit, String out, String err) {}

    /** Runs redis-cli against the node with {@code args}; fails if it has not ended in 60 s. */
    private static Run cli(String... args) throws Exception {
        List<String> cmd =
                new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(node.port())));
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread errReader = pump(p.getErrorStream(), err);
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS))
                .as("redis-cli %s ended", cmd)
                .isTrue();
        errReader.join();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Thread pump(InputStream in, ByteArrayOutputStream to) {
        Thread t = new Thread(() -> {
            try {
                in.transferTo(to);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        t.start();
        return t;
    }

    @Test
    void scanListsEveryKeyAndFiltersByPattern() throws Exception {
        Run all = cli("--scan");
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(new HashSet<>(Arrays.asList(all.out().split("\n")))).isEqualTo(KEYS);
        Run some = cli("--scan", "--pattern", "user:1?");
        assertThat(some.out().split("\n"))
                .containsExactlyInAnyOrder(
                        "user:10", "user:11", "user:12", "user:13", "user:14", "user:15", "user:16", "user:17",
                        "user:18", "user:19");
    }

    @Test
    void bigkeysFindsTheBiggestString() throws Exception {
        Run r = cli("--bigkeys");
        System.out.println(r.out());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("Biggest string found").contains("'\"big\"' has 100000 bytes");
        assertThat(r.out()).contains("301 strings");
    }

    @Test
    void memkeysFindsTheBiggestString() throws Exception {
        Run r = cli("--memkeys");
        System.out.println(r.out());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        // MEMORY USAGE: key, value and a record's overhead
        assertThat(r.out()).contains("Biggest string found '\"big\"' has 100051 bytes");
        assertThat(r.out()).containsPattern("301 strings with [1-9][0-9]* bytes");
    }

    @Test
    void latencyPrintsSamplesUntilStopped() throws Exception {
        List<String> cmd = List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(node.port()), "--latency");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = pump(p.getInputStream(), out);
        try {
            // not a terminal: redis-cli prints "min max avg samples" lines
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString(StandardCharsets.UTF_8)
                            .lines()
                            .anyMatch(l -> l.matches("\\d+ \\d+ [\\d.]+ \\d+")));
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
            reader.join();
        }
        System.out.println(out.toString(StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("ERR");
    }

    @Test
    void infoSectionsAnswer() throws Exception {
        Run r = cli("INFO", "commandstats");
        assertThat(r.out()).contains("# Commandstats").contains("cmdstat_set:calls=");
        Run e = cli("INFO", "errorstats");
        assertThat(e.exit()).isZero();
        Run c = cli("INFO", "cpu");
        assertThat(c.out()).contains("used_cpu_user:");
    }
}
