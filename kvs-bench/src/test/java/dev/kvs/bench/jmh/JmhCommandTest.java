package dev.kvs.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.wan.WanLinkStats;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

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
                            "dev.kvs.bench.jmh.StoreBenchmark",
                            "put",
                            "get",
                            "dev.kvs.bench.jmh.FrameCodecBenchmark",
                            "dev.kvs.bench.jmh.WanLinkBenchmark");
        }
    }

    @Test
    void theLinkVerdictComparesTheMedianWithThePromise() {
        assertThat(WanLinkBenchmark.verdict("to target", new WanLinkStats.Lateness(10, 200, 900, 4000)))
                .isEqualTo(
                        "link lateness to target: 10 chunks, p50 200 us, p99 900 us, max 4000 us: PASS (p50 <= 200 us)");
        assertThat(WanLinkBenchmark.verdict("to client", new WanLinkStats.Lateness(10, 201, 300, 400)))
                .endsWith(": FAIL (p50 <= 200 us)");
    }

    @Test
    void forksGetThisJvmsModuleFlags() {
        // surefire runs tests with the flags Chronicle Map needs (the parent pom's argLine)
        assertThat(Arrays.asList(JmhCommand.moduleFlags()))
                .anyMatch(f -> f.startsWith("--add-opens=java.base/java.lang"))
                .anyMatch(f -> f.startsWith("-Dchronicle.analytics.disable"))
                .noneMatch(f -> f.startsWith("-Xmx"));
    }
}
