package dev.kvs.bench.jmh.wan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.wan.WanLinkStats;
import org.junit.jupiter.api.Test;

/** The verdict {@link WanLinkBenchmark} prints on the link's lateness at tear-down. */
class WanLinkBenchmarkTest {
    @Test
    void theLinkVerdictComparesTheMedianWithThePromise() {
        assertThat(WanLinkBenchmark.verdict("to target", new WanLinkStats.Lateness(10, 200, 900, 4000)))
                .isEqualTo(
                        "link lateness to target: 10 chunks, p50 200 us, p99 900 us, max 4000 us: PASS (p50 <= 200 us)");
        assertThat(WanLinkBenchmark.verdict("to client", new WanLinkStats.Lateness(10, 201, 300, 400)))
                .endsWith(": FAIL (p50 <= 200 us)");
    }
}
