package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.drill.ValueSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** The soak's verdict on synthetic samples, and how it tells a lost write from a kept one. */
class SoakReportTest {
    private static final long MIB = 1 << 20;
    private static final SoakReport.Writes WRITES = new SoakReport.Writes(1000, 10, Map.of(), 100, 0, 4, 2);
    private static final SoakLoad.Check NONE_LOST = new SoakLoad.Check(500, 0, List.of());

    /** 60 samples a second apart, the primary's figures from {@code primary}, the backup flat. */
    private static List<SoakReport.Sample> samples(IntFunction<SoakReport.Node> primary) {
        List<SoakReport.Sample> s = new ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            s.add(new SoakReport.Sample(i, false, primary.apply(i), flat(i), 3, 10, 10 * MIB));
        }
        return s;
    }

    /** Heap after GC in a sawtooth between 30 and 90 MiB, 40 fds, 30 threads: no trend. */
    private static SoakReport.Node flat(int i) {
        long heap = (30 + (i % 7) * 10) * MIB;
        return new SoakReport.Node(heap + 20 * MIB, heap, 300 * MIB, 40 + i % 3, 30 + i % 2, 3);
    }

    /** The verdict of a one-minute run whose minute acknowledged 500 small SETs. */
    private static Verdict verdict(
            List<SoakReport.Sample> samples, SoakReport.Writes writes, SoakLoad.Check primary, SoakLoad.Check backup) {
        return SoakReport.verdict(samples, minutes(500), 60, writes, primary, backup);
    }

    /** Minutes with these counts of acknowledged small SETs. */
    private static List<SoakReport.Minute> minutes(int... sets) {
        List<SoakReport.Minute> m = new ArrayList<>();
        for (int i = 0; i < sets.length; i++) m.add(new SoakReport.Minute(i, sets[i], 1.0, 2.0, 3.0));
        return m;
    }

    private static Verdict.Check check(Verdict v, String prefix) {
        return v.checks().stream()
                .filter(c -> c.bound().startsWith(prefix))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void flatFiguresAndNoLossPass() {
        Verdict v = verdict(samples(SoakReportTest::flat), WRITES, NONE_LOST, NONE_LOST);
        assertThat(v.pass()).as(v.render()).isTrue();
        assertThat(v.checks()).hasSize(10);
        // the heap's troughs: 30 MiB in both thirds; limit 30 * 1.25 + 32
        assertThat(check(v, "primary heap after GC").measured()).isEqualTo(30.0);
        assertThat(check(v, "primary heap after GC").limit()).isEqualTo(69.5);
    }

    @Test
    void aHeapWhoseTroughsRiseFails() {
        // 2 MiB more after every sample: the last third's trough is 80 MiB above the first's
        Verdict v = verdict(
                samples(i -> {
                    SoakReport.Node f = flat(i);
                    return new SoakReport.Node(
                            f.heapUsedBytes(), f.heapAfterGcBytes() + i * 2 * MIB, 0, f.fds(), f.threads(), 3);
                }),
                WRITES,
                NONE_LOST,
                NONE_LOST);
        assertThat(v.pass()).isFalse();
        assertThat(check(v, "primary heap after GC").ok()).isFalse();
        assertThat(check(v, "backup heap after GC").ok()).isTrue();
        assertThat(check(v, "primary open fds").ok()).isTrue();
    }

    @Test
    void aHighHeapPeakAloneIsNoLeak() {
        // one sample per third at 400 MiB (a collection that left much behind); the troughs stay put
        Verdict v = verdict(
                samples(i -> {
                    SoakReport.Node f = flat(i);
                    long heap = i % 20 == 10 ? 400 * MIB : f.heapAfterGcBytes();
                    return new SoakReport.Node(f.heapUsedBytes(), heap, 0, f.fds(), f.threads(), 3);
                }),
                WRITES,
                NONE_LOST,
                NONE_LOST);
        assertThat(v.pass()).as(v.render()).isTrue();
    }

    @Test
    void leakingFileDescriptorsFail() {
        // one more socket every sample: the median climbs by 40 from the first third to the last
        Verdict v = verdict(
                samples(i -> {
                    SoakReport.Node f = flat(i);
                    return new SoakReport.Node(f.heapUsedBytes(), f.heapAfterGcBytes(), 0, 40 + i, f.threads(), 3);
                }),
                WRITES,
                NONE_LOST,
                NONE_LOST);
        assertThat(check(v, "primary open fds").ok()).isFalse();
        assertThat(check(v, "primary open fds").measured()).isEqualTo(90.0);
        assertThat(check(v, "primary open fds").limit()).isEqualTo(Math.floor(50 * 1.1 + 16));
        assertThat(v.pass()).isFalse();
    }

    @Test
    void fdsWithinTheToleranceStillPass() {
        Verdict v = verdict(
                samples(i -> {
                    SoakReport.Node f = flat(i);
                    return new SoakReport.Node(
                            f.heapUsedBytes(), f.heapAfterGcBytes(), 0, i > 40 ? 55 : 40, f.threads(), 3);
                }),
                WRITES,
                NONE_LOST,
                NONE_LOST);
        assertThat(check(v, "primary open fds").ok()).isTrue();
    }

    @Test
    void growingThreadsFail() {
        Verdict v = verdict(
                samples(i -> {
                    SoakReport.Node f = flat(i);
                    return new SoakReport.Node(f.heapUsedBytes(), f.heapAfterGcBytes(), 0, f.fds(), 30 + i / 3, 3);
                }),
                WRITES,
                NONE_LOST,
                NONE_LOST);
        assertThat(check(v, "primary threads").ok()).isFalse();
        assertThat(v.pass()).isFalse();
    }

    @Test
    void oneLostWriteFailsWhateverTheFigures() {
        SoakLoad.Check oneLost = new SoakLoad.Check(500, 1, List.of("k: no complete value"));
        Verdict v = verdict(samples(SoakReportTest::flat), WRITES, NONE_LOST, oneLost);
        assertThat(v.pass()).isFalse();
        assertThat(check(v, "acknowledged writes lost on the backup").ok()).isFalse();
        assertThat(check(v, "acknowledged writes lost on the primary").ok()).isTrue();
        SoakReport.Writes staleRead = new SoakReport.Writes(1000, 10, Map.of(), 100, 1, 4, 2);
        assertThat(verdict(samples(SoakReportTest::flat), staleRead, NONE_LOST, NONE_LOST)
                        .pass())
                .isFalse();
    }

    @Test
    void unknownFiguresAndTooFewSamplesAreNotMet() {
        // the primary's /status never answered: its heap is unknown (-1) in every sample
        Verdict v = verdict(samples(i -> new SoakReport.Node(-1, -1, -1, 40, 30, -1)), WRITES, NONE_LOST, NONE_LOST);
        assertThat(check(v, "primary heap after GC").ok()).isFalse();
        assertThat(check(v, "primary heap after GC").measured()).isNull();
        assertThat(check(v, "primary open fds").ok()).isTrue();
        // three samples: one per third, not enough for a trend
        Verdict few = verdict(samples(SoakReportTest::flat).subList(0, 3), WRITES, NONE_LOST, NONE_LOST);
        assertThat(few.pass()).isFalse();
        // no write acknowledged at all: nothing was soaked
        SoakReport.Writes none = new SoakReport.Writes(0, 0, Map.of("connection", 9L), 0, 0, 0, 0);
        Verdict nothing = SoakReport.verdict(samples(SoakReportTest::flat), minutes(), 60, none, NONE_LOST, NONE_LOST);
        assertThat(check(nothing, "small SETs acknowledged").ok()).isFalse();
        assertThat(nothing.pass()).isFalse();
    }

    @Test
    void everyWholeMinuteMustAcknowledgeMoreThanOneSmallSet() {
        List<SoakReport.Sample> s = samples(SoakReportTest::flat);
        // 3.5 minutes: minutes 1..3 are judged, the last half minute is not
        Verdict steady = SoakReport.verdict(s, minutes(900, 880, 910, 0), 210, WRITES, NONE_LOST, NONE_LOST);
        assertThat(steady.pass()).as(steady.render()).isTrue();
        assertThat(check(steady, "small SETs acknowledged").bound())
                .isEqualTo("small SETs acknowledged in each minute 1..3 >= 2");
        assertThat(check(steady, "small SETs acknowledged").measured()).isEqualTo(880.0);

        // the load stalled in the middle minute
        Verdict stalled = SoakReport.verdict(s, minutes(900, 0, 910), 180, WRITES, NONE_LOST, NONE_LOST);
        assertThat(stalled.pass()).isFalse();
        assertThat(stalled.render()).contains("NOT MET  small SETs acknowledged in each minute 1..3 >= 2: 0 (limit 2)");

        // the load stopped after the first minute: the later minutes were never recorded
        Verdict stopped = SoakReport.verdict(s, minutes(900), 180, WRITES, NONE_LOST, NONE_LOST);
        assertThat(check(stopped, "small SETs acknowledged").ok()).isFalse();

        // one acknowledged write, then failures only: not a soak, even in a short run
        Verdict one = SoakReport.verdict(s, minutes(1), 45, WRITES, NONE_LOST, NONE_LOST);
        assertThat(one.pass()).isFalse();
        assertThat(one.render()).contains("NOT MET  small SETs acknowledged in each minute 1 >= 2: 1 (limit 2)");
        assertThat(SoakReport.verdict(s, minutes(2), 45, WRITES, NONE_LOST, NONE_LOST)
                        .pass())
                .isTrue();
    }

    @Test
    void thirdsAreCutByTheLastSamplesTime() {
        List<SoakReport.Sample> s = samples(SoakReportTest::flat);
        long[] first = SoakReport.thirdValues(s, true, SoakReport.Figure.THREADS, 0);
        long[] middle = SoakReport.thirdValues(s, true, SoakReport.Figure.THREADS, 1);
        long[] last = SoakReport.thirdValues(s, true, SoakReport.Figure.THREADS, 2);
        // seconds 1..19 | 20..39 | 40..60
        assertThat(first).hasSize(19);
        assertThat(middle).hasSize(20);
        assertThat(last).hasSize(21);
        assertThat(SoakReport.median(new long[] {5, 1, 3, 2})).isEqualTo(2);
    }

    @Test
    void aNodesValueIsCheckedAgainstTheAcknowledgedAndAttemptedWrites() {
        String key = "soak-k-3";
        byte[] v7 = ValueSource.value(key, 7, 100);
        assertThat(SoakLoad.seq(key, v7)).isEqualTo(7);
        // acknowledged #7, attempted #7: kept
        assertThat(SoakLoad.problem(key, v7, 7, 7, 100)).isNull();
        // acknowledged #5, #7 attempted and not answered: the newer attempt is no loss
        assertThat(SoakLoad.problem(key, v7, 5, 7, 100)).isNull();
        // acknowledged #9: #7 is an older value, a lost write
        assertThat(SoakLoad.problem(key, v7, 9, 9, 100)).contains("older than the newest acknowledged #9");
        assertThat(SoakLoad.problem(key, null, 9, 9, 100)).contains("no complete value");
        assertThat(SoakLoad.problem(key, v7, 3, 5, 100)).contains("never attempted");
        byte[] corrupt = v7.clone();
        corrupt[50] ^= 1;
        assertThat(SoakLoad.problem(key, corrupt, 7, 7, 100)).contains("corrupted");
        byte[] other = ValueSource.value("soak-k-4", 7, 100);
        assertThat(SoakLoad.problem(key, other, 7, 7, 100)).contains("no write of this key");
        assertThat(SoakLoad.seq(key, (key + "#|x").getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(-1);
    }
}
