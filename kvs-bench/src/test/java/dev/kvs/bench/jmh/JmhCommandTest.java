package dev.kvs.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cli.InProcessKvs;
import dev.kvs.bench.jmh.core.FlushBenchmark;
import dev.kvs.bench.jmh.core.StoreBenchmark;
import dev.kvs.bench.jmh.replication.FrameCodecBenchmark;
import dev.kvs.bench.jmh.server.RequestPathBenchmark;
import dev.kvs.bench.jmh.server.RespCodecBenchmark;
import dev.kvs.bench.jmh.wan.WanLinkBenchmark;
import java.io.File;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/** The JMH suite is compiled into the jar (its benchmark list) and forks get the module flags. */
class JmhCommandTest {
    @Test
    void theAnnotationProcessorListedEveryBenchmark() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
            assertThat(in)
                    .as("META-INF/BenchmarkList from JMH's annotation processor")
                    .isNotNull();
            String list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(list)
                    .contains(
                            "dev.kvs.bench.jmh.core.StoreBenchmark",
                            "put",
                            "get",
                            "dev.kvs.bench.jmh.replication.FrameCodecBenchmark",
                            "dev.kvs.bench.jmh.server.RespCodecBenchmark",
                            "decodeSet",
                            "encodeGetReply",
                            "dev.kvs.bench.jmh.server.RequestPathBenchmark",
                            "pipelinedRead",
                            "dev.kvs.bench.jmh.wan.WanLinkBenchmark",
                            "dev.kvs.bench.jmh.ReplicationLatencyBenchmark",
                            "timeToConsistencyProtection",
                            "timeToValueOnBackup",
                            "dev.kvs.bench.jmh.RedisWaitBenchmark",
                            "setThenWait");
        }
    }

    @Test
    void everyBenchmarkClassSetsItsOwnShortDefault() throws Exception {
        // the default preset sets no iterations: without these a class would get JMH's 5 forks x 10 x 10 s
        for (Class<?> c : new Class<?>[] {
            StoreBenchmark.class,
            FrameCodecBenchmark.class,
            RespCodecBenchmark.class,
            RequestPathBenchmark.class,
            WanLinkBenchmark.class,
            ReplicationLatencyBenchmark.class,
            RedisWaitBenchmark.class,
            FlushBenchmark.class
        }) {
            assertThat(c.getAnnotation(Fork.class)).as(c.getSimpleName()).isNotNull();
            assertThat(c.getAnnotation(Fork.class).value())
                    .as(c.getSimpleName())
                    .isEqualTo(1);
            assertThat(c.getAnnotation(Warmup.class)).as(c.getSimpleName()).isNotNull();
            assertThat(c.getAnnotation(Measurement.class)).as(c.getSimpleName()).isNotNull();
        }
        try (InputStream in = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
            String list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(list.split("\\s+"))
                    .filteredOn(w -> w.startsWith("dev.kvs.bench.jmh.") && w.endsWith("Benchmark"))
                    .allMatch(w -> w.equals("dev.kvs.bench.jmh.core.StoreBenchmark")
                            || w.equals("dev.kvs.bench.jmh.replication.FrameCodecBenchmark")
                            || w.equals("dev.kvs.bench.jmh.server.RespCodecBenchmark")
                            || w.equals("dev.kvs.bench.jmh.server.RequestPathBenchmark")
                            || w.equals("dev.kvs.bench.jmh.wan.WanLinkBenchmark")
                            || w.equals("dev.kvs.bench.jmh.ReplicationLatencyBenchmark")
                            || w.equals("dev.kvs.bench.jmh.RedisWaitBenchmark")
                            || w.equals("dev.kvs.bench.jmh.core.FlushBenchmark"));
        }
    }

    @Test
    void redisServerIsLookedUpOnThePath(@TempDir Path dir) throws Exception {
        assertThat(RedisServer.onPath(dir.toString())).isEmpty();
        assertThat(RedisServer.onPath(null)).isEmpty();
        Path exe = Files.createFile(dir.resolve("redis-server"));
        assertThat(RedisServer.onPath(dir.toString())).as("not executable").isEmpty();
        assertThat(exe.toFile().setExecutable(true)).isTrue();
        assertThat(RedisServer.onPath("/nonexistent" + File.pathSeparator + dir))
                .contains(exe);
        assertThat(RedisServer.NOT_INSTALLED).contains("apt-get install -y redis-server");
    }

    @Test
    void withoutRedisServerTheBaselineIsLeftOutWithTheInstallCommand() {
        StringWriter err = new StringWriter();
        ChainedOptionsBuilder absent = new OptionsBuilder().include("RedisWait");
        assertThat(JmhCommand.leaveOutRedisIfAbsent(absent, false, new PrintWriter(err, true)))
                .isTrue();
        assertThat(absent.build().getExcludes()).containsExactly(JmhCommand.REDIS_BENCHMARK);
        assertThat(err.toString())
                .contains("skipping RedisWaitBenchmark: redis-server is not on PATH")
                .contains("apt-get install -y redis-server");
        assertThat("dev.kvs.bench.jmh.RedisWaitBenchmark.setThenWait").containsPattern(JmhCommand.REDIS_BENCHMARK);
        assertThat("dev.kvs.bench.jmh.ReplicationLatencyBenchmark.timeToValueOnBackup")
                .doesNotContainPattern(JmhCommand.REDIS_BENCHMARK);

        ChainedOptionsBuilder present = new OptionsBuilder();
        assertThat(JmhCommand.leaveOutRedisIfAbsent(present, true, new PrintWriter(err)))
                .isFalse();
        assertThat(present.build().getExcludes()).isEmpty();
    }

    @Test
    void aFilterMatchingNothingSaysSo() {
        InProcessKvs kvs = new InProcessKvs();
        assertThat(kvs.run("bench", "jmh", "NoSuchBenchmark", "--json", "target/no-such.json"))
                .isEqualTo(1);
        assertThat(kvs.err()).contains("kvs bench jmh: no benchmark matches [NoSuchBenchmark]");
        assertThat(JmhCommand.noMatch(new RunnerException(new NoBenchmarksException())))
                .isTrue();
        assertThat(JmhCommand.describe(new NoBenchmarksException())).isEqualTo("NoBenchmarksException");
        assertThat(JmhCommand.describe(new RunnerException("boom"))).isEqualTo("boom");
    }

    @Test
    void aParamWithoutAValueIsAUsageError() {
        InProcessKvs kvs = new InProcessKvs();
        assertThat(kvs.run("bench", "jmh", "-p", "valueSize")).isEqualTo(2);
        assertThat(kvs.err()).contains("--param wants NAME=V1[,V2...], not valueSize");
    }

    @Test
    void forksGetThisJvmsModuleFlags() {
        // surefire runs tests with the flags Chronicle Map needs (the parent pom's argLine)
        assertThat(Arrays.asList(JmhCommand.moduleFlags()))
                .anyMatch(f -> f.startsWith("--add-opens=java.base/java.lang"))
                .anyMatch(f -> f.startsWith("-Dchronicle.analytics.disable"))
                .noneMatch(f -> f.startsWith("-Xmx"));
    }

    @Test
    void stagesAreSwitchedOnInTheForksOnlyWhenAskedFor() {
        assertThat(Arrays.asList(JmhCommand.forkFlags(true)))
                .contains("-Dkvs.stages=true")
                .containsAll(Arrays.asList(JmhCommand.moduleFlags()));
        assertThat(Arrays.asList(JmhCommand.forkFlags(false))).noneMatch(f -> f.contains("kvs.stages"));
    }
}
