package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link AdminAbuse}'s bounds and the figure it reads from {@code /metrics}; the attack runs in {@code ./kvs bench abuse}. */
class AdminAbuseTest {
    static AdminAbuse.Result result(long directBefore, long directPeak, Double pingP99, int valuesReplicated) {
        return new AdminAbuse.Result(
                2200,
                2200,
                20_000,
                20_000,
                19_900,
                directBefore,
                directPeak,
                50,
                4000,
                0,
                pingP99,
                valuesReplicated,
                valuesReplicated == 2 ? 120.0 : null,
                0);
    }

    @Test
    void everyBoundMet() {
        assertThat(result(40L << 20, 104L << 20, 50.0, 2).checks()).allMatch(Verdict.Check::ok);
    }

    @Test
    void eachBoundMissed() {
        assertThat(result(40L << 20, (104L << 20) + 1, 3.0, 2).checks())
                .extracting(Verdict.Check::ok)
                .containsExactly(false, true, true, true);
        assertThat(result(1, 1, 50.1, 2).checks())
                .extracting(Verdict.Check::ok)
                .containsExactly(true, true, false, true);
        assertThat(result(1, 1, 3.0, 1).checks())
                .extracting(Verdict.Check::ok)
                .containsExactly(true, true, true, false);
        AdminAbuse.Result oom = new AdminAbuse.Result(1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1.0, 2, 1.0, 104);
        assertThat(oom.checks()).extracting(Verdict.Check::ok).containsExactly(true, false, true, true);
    }

    @Test
    void unmeasuredFiguresAreNotMet() {
        assertThat(result(-1, 5, null, 2).checks())
                .extracting(Verdict.Check::ok)
                .containsExactly(false, true, false, true);
    }

    @Test
    void theDirectBufferPoolIsReadFromPrometheusText() {
        String metrics = "# HELP jvm_buffer_memory_used_bytes An estimate\n"
                + "jvm_buffer_memory_used_bytes{id=\"mapped\"} 0.0\n"
                + "jvm_buffer_memory_used_bytes{id=\"direct\"} 3.3554432E7\n"
                + "jvm_buffer_count_buffers{id=\"direct\"} 12.0\n";
        assertThat(AdminAbuse.parseDirect(metrics)).isEqualTo(33_554_432L);
        assertThat(AdminAbuse.parseDirect("nothing here")).isEqualTo(-1);
    }
}
