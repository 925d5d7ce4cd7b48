package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ReplicationSquatters}: its bounds, its report, its options and how it reads a node's log. */
class ReplicationSquattersTest {
    private static final ReplicationSquatters.Settings SETTINGS =
            new ReplicationSquatters.Settings(16, 16, 500, 3, 1000);

    private static ReplicationSquatters.Result result(long warnLines, Double... restream) {
        return new ReplicationSquatters.Result(
                SETTINGS, Arrays.asList(restream), 20, 48, 10_000, warnLines, 10_040, 40);
    }

    @Test
    void streamingAgainWithin3sAndAFewWarnLinesASecondMeetTheBounds() {
        List<Verdict.Check> checks = result(12, 600.0, 1450.5, 900.0).checks();

        assertThat(checks).extracting(Verdict.Check::ok).containsExactly(true, true);
        assertThat(checks.get(0).measured()).isEqualTo(1450.5);
        assertThat(checks.get(1).measured()).isEqualTo(0.6);
    }

    @Test
    void aSlowReturnOrNoneOrAFloodOfWarnLinesIsNotMet() {
        assertThat(result(0, 600.0, 3100.0).checks().get(0).ok()).isFalse();
        assertThat(result(0, 600.0, null).checks().get(0).ok()).isFalse();
        assertThat(result(0, 600.0, null).checks().get(0).measured()).isNull();
        assertThat(result(963_000, 600.0).checks().get(1).ok()).isFalse();
    }

    @Test
    void renderShowsEachReturnAndTheLogLines() {
        assertThat(result(12, 600.4, null).render())
                .contains("16 squatters from 16 sources", "600, never", "refused 10040, closed 40", "12 (0.60/s)");
    }

    @Test
    void onlyWarnLinesOfTheNodesLogPatternCount() {
        assertThat(
                        ReplicationSquatters.isWarn(
                                "2026-11-28T09:40:01.123Z WARN  [nioEventLoopGroup-3-1] d.k.r.b.RealReplicationServer - refused"))
                .isTrue();
        assertThat(ReplicationSquatters.isWarn("2026-11-28T09:40:01.123Z INFO  [main] x - WARN in the message"))
                .isFalse();
        assertThat(ReplicationSquatters.isWarn("WARN")).isFalse();
    }

    @Test
    void optionsOutOfRangeAreRefusedQuotingTheValue() {
        ReplicationSquatters.Options o = new ReplicationSquatters.Options();
        assertThat(o.settings()).isEqualTo(SETTINGS);
        o.sources = 0;
        assertThatThrownBy(o::settings).hasMessage("--repl-sources is not in 1..96: 0");
        o.sources = 4;
        o.drops = 0;
        assertThatThrownBy(o::settings).hasMessage("--repl-drops is not in 1..20: 0");
    }
}
