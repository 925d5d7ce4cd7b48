package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.kvs.bench.drill.ValueSource;
import dev.kvs.bench.latency.SoakTrends.Figure;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The soak's verdict on synthetic samples, and how it tells a lost write from a kept one. */
class SoakReportTest {
    private static final long MIB = 1 << 20;
    /** Half an hour, a sample every 5 s, a full GC every minute, trends after 60 s; maxEntries 20,000. */
    private static final SoakReport.Settings SETTINGS = settings(1800, 5, 60);

    private static final SoakReport.Writes WRITES =
            new SoakReport.Writes(1000, 10, Map.of(), 100, 0, 4, 2, 30_000, 30_000, Map.of());
    private static final SoakLoad.Check NONE_LOST = new SoakLoad.Check(500, 0, List.of());
    private static final SoakChurn.Check NONE_BACK = new SoakChurn.Check(4096, 4000, 0, List.of());
    private static final SoakReport.Checks ALL_KEPT = new SoakReport.Checks(NONE_LOST, NONE_LOST, NONE_BACK, NONE_BACK);

    /** maxEntries 20,000, maxBytes 128 MiB, -Xmx512m, trends after 60 s. */
    private static SoakReport.Settings settings(double duration, double sampleSeconds, double fullGcEvery) {
        return new SoakReport.Settings(
                duration,
                sampleSeconds,
                5,
                100,
                "id-first",
                "on",
                2,
                100,
                1,
                1 << 20,
                500,
                60,
                5,
                "512m",
                1,
                1,
                200,
                20_000,
                1024,
                128 << 20,
                60,
                fullGcEvery);
    }

    /**
     * The figures of a healthy node at {@code t} seconds: about 5,000 entries of which a few dozen
     * tombstones, 64 MiB off-heap, the heap after a young GC climbing between full GCs (old garbage)
     * and 30 MiB after a full one, 700 MiB RSS, 40 fds, 30 threads, each with a little jitter.
     */
    private static SoakReport.Node healthy(int i, boolean afterFullGc) {
        long tombstones = (i * 7L) % 60;
        long entries = 5000 + (i * 13L) % 90;
        long heap = afterFullGc ? 30 * MIB + (i % 3) * MIB / 2 : (40 + (i % 12) * 8) * MIB;
        return new SoakReport.Node(
                heap + 20 * MIB,
                heap,
                (700 + i % 3) * MIB,
                40 + i % 3,
                30 + i % 2,
                3,
                entries,
                tombstones,
                entries - tombstones,
                64 * MIB);
    }

    /** {@code n} figures with {@code f} raised by {@code perHour} (in its unit) an hour. */
    private static SoakReport.Node growing(SoakReport.Node n, Figure f, double perHour, double seconds) {
        long add = Math.round(perHour * seconds / 3600 * (f.unit.isEmpty() ? 1 : MIB));
        long entries = n.entries() + (f == Figure.ENTRIES || f == Figure.TOMBSTONES ? add : 0);
        long tombstones = n.tombstones() + (f == Figure.TOMBSTONES ? add : 0);
        return new SoakReport.Node(
                n.heapUsedBytes(),
                n.heapAfterGcBytes() + (f == Figure.HEAP_AFTER_GC ? add : 0),
                n.rssBytes() + (f == Figure.RSS ? add : 0),
                n.fds() + (f == Figure.FDS ? add : 0),
                n.threads() + (f == Figure.THREADS ? add : 0),
                n.connections(),
                entries,
                tombstones,
                entries - tombstones,
                n.offHeapBytes() + (f == Figure.OFF_HEAP ? add : 0));
    }

    /** A sample every {@code sampleSeconds} of {@code settings}' run, the backup's figures healthy. */
    private static List<SoakReport.Sample> samples(
            SoakReport.Settings settings, Function<SoakReport.Sample, SoakReport.Node> primary) {
        List<SoakReport.Sample> out = new ArrayList<>();
        int perGc = (int) Math.round(settings.fullGcEverySeconds() / settings.sampleSeconds());
        int n = (int) (settings.durationSeconds() / settings.sampleSeconds());
        for (int i = 1; i <= n; i++) {
            boolean gc = perGc > 0 && i % perGc == 0;
            SoakReport.Sample s = new SoakReport.Sample(
                    i * settings.sampleSeconds(), false, gc, healthy(i, gc), healthy(i + 5, gc), 3, 10, 10 * MIB, 40);
            out.add(new SoakReport.Sample(
                    s.seconds(),
                    s.linkCut(),
                    s.afterFullGc(),
                    primary.apply(s),
                    s.backup(),
                    s.unackedKeys(),
                    s.pendingValues(),
                    s.pendingValueBytes(),
                    s.oldestPendingValueMillis()));
        }
        return out;
    }

    private static List<SoakReport.Sample> healthySamples() {
        return samples(SETTINGS, SoakReport.Sample::primary);
    }

    private static Verdict verdict(List<SoakReport.Sample> samples) {
        return verdict(SETTINGS, samples, WRITES, ALL_KEPT);
    }

    private static Verdict verdict(
            SoakReport.Settings settings,
            List<SoakReport.Sample> samples,
            SoakReport.Writes writes,
            SoakReport.Checks checks) {
        int minutes = (int) (settings.durationSeconds() / 60);
        int[] sets = new int[minutes];
        Arrays.fill(sets, 500);
        return SoakReport.verdict(settings, samples, SoakTrends.of(settings, samples), minutes(sets), writes, checks);
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
        Verdict v = verdict(healthySamples());
        assertThat(v.pass()).as(v.render()).isTrue();
        // 7 figures x 2 nodes, 2 store slacks, 2 lost, stale reads, 2 came back, churn, minutes
        assertThat(v.checks()).hasSize(23);
        // entries' budget: maxEntries / 10 a day
        assertThat(check(v, "primary entries flat").limit()).isEqualTo(2000.0);
        assertThat(check(v, "primary tombstones flat").limit()).isEqualTo(1024.0);
        // heap after the forced full GCs only: 30 MiB and a little; a quarter of -Xmx a day
        assertThat(check(v, "primary heap after GC flat").limit()).isEqualTo(128.0);
        SoakTrends.Trend heap = SoakTrends.trend(SETTINGS, healthySamples(), true, Figure.HEAP_AFTER_GC);
        assertThat(heap.mean()).isBetween(30.0, 30.5);
        assertThat(heap.samples()).isEqualTo(30); // minutes 1..30
        assertThat(check(v, "primary entries - keys").measured()).isEqualTo(59.0);
    }

    @ParameterizedTest
    @EnumSource(Figure.class)
    void aFigureGrowingBeyondItsBudgetFails(Figure f) {
        // three times the budget a day (the budgets of a healthy node: entries 2,000, tombstones 1,024,
        // off-heap 6.4 MiB, heap 128 MiB, RSS 350 MiB, fds 26, threads 15.5); tombstones, which are
        // entries too, one and a half times, below the entries' budget
        double perHour = switch (f) {
            case ENTRIES -> 250;
            case TOMBSTONES -> 64;
            case OFF_HEAP -> 0.8;
            case HEAP_AFTER_GC -> 16;
            case RSS -> 44;
            case FDS -> 3.25;
            case THREADS -> 2;
        };
        Verdict v = verdict(samples(SETTINGS, s -> growing(s.primary(), f, perHour, s.seconds())));
        assertThat(v.pass()).isFalse();
        assertThat(check(v, "primary " + f.label + " flat").ok()).as(v.render()).isFalse();
        assertThat(v.checks().stream().filter(c -> !c.ok()).toList()).hasSize(1);
        // the same figure at a tenth of its budget a day is flat
        Verdict slow = verdict(samples(SETTINGS, s -> growing(s.primary(), f, perHour / 30, s.seconds())));
        assertThat(slow.pass()).as(slow.render()).isTrue();
    }

    @Test
    void aBackupFillingWithTombstonesFailsAsBeforeTheyWereCollected() {
        // the build before tombstone collection: 100 deletes a second leave a tombstone each on the
        // backup until the store is full (20,000 entries, 5,000 of them keys), the primary flat
        SoakReport.Settings tenMinutes = settings(600, 5, 60);
        List<SoakReport.Sample> s = new ArrayList<>();
        for (SoakReport.Sample h : samples(tenMinutes, SoakReport.Sample::primary)) {
            long tombstones = Math.min(15_000, Math.round(100 * h.seconds()));
            SoakReport.Node b = h.backup();
            SoakReport.Node full = new SoakReport.Node(
                    b.heapUsedBytes(),
                    b.heapAfterGcBytes(),
                    b.rssBytes(),
                    b.fds(),
                    b.threads(),
                    b.connections(),
                    b.keys() + tombstones,
                    tombstones,
                    b.keys(),
                    b.offHeapBytes());
            s.add(new SoakReport.Sample(h.seconds(), false, h.afterFullGc(), h.primary(), full, 3, 10, 10 * MIB, 40));
        }
        // every value after the store filled was refused there: the backup lost acknowledged writes
        SoakReport.Checks lost = new SoakReport.Checks(
                NONE_LOST, new SoakLoad.Check(500, 212, List.of("k: no complete value")), NONE_BACK, NONE_BACK);
        Verdict v = verdict(tenMinutes, s, WRITES, lost);
        assertThat(v.pass()).isFalse();
        assertThat(check(v, "backup entries - keys").measured()).isEqualTo(15_000.0);
        assertThat(check(v, "backup entries - keys").ok()).isFalse();
        assertThat(check(v, "backup entries flat").ok()).isFalse();
        assertThat(check(v, "backup tombstones flat").ok()).isFalse();
        assertThat(check(v, "acknowledged writes lost on the backup").ok()).isFalse();
        assertThat(check(v, "primary entries - keys").ok()).isTrue();
        assertThat(check(v, "primary entries flat").ok()).isTrue();
    }

    @Test
    void aShortRunsNoiseIsNoTrendButAFillingStoreIs() {
        // three minutes, a sample every 2 s, a full GC every 20 s, 60 s warm-up: entries jump by up to
        // 300 from one sample to the next, around a flat mean
        SoakReport.Settings shortRun = settings(180, 2, 20);
        Function<SoakReport.Sample, SoakReport.Node> noisy = s -> {
            long jitter = ((Math.round(s.seconds()) * 7919) % 13 - 6) * 50;
            return growing(s.primary(), Figure.ENTRIES, jitter * 3600 / s.seconds(), s.seconds());
        };
        Verdict v = verdict(shortRun, samples(shortRun, noisy), WRITES, ALL_KEPT);
        SoakTrends.Trend t = SoakTrends.trend(shortRun, samples(shortRun, noisy), true, Figure.ENTRIES);
        assertThat(t.errorPerHour()).isGreaterThan(100.0);
        assertThat(check(v, "primary entries flat").ok()).as(v.render()).isTrue();
        // the same noise on a store filling at 100 entries a second
        Verdict filling = verdict(
                shortRun,
                samples(shortRun, s -> growing(noisy.apply(s), Figure.ENTRIES, 360_000, s.seconds())),
                WRITES,
                ALL_KEPT);
        assertThat(check(filling, "primary entries flat").ok()).isFalse();
    }

    @Test
    void samplesInTheWarmUpOrDuringACutAreNotJudged() {
        // 3 fds in the warm-up, 1,000 during the cuts of the second half (10 s a minute) and the 15 s
        // after each: judged, they would make a rising line
        List<SoakReport.Sample> s = new ArrayList<>();
        for (SoakReport.Sample h : healthySamples()) {
            double inMinute = h.seconds() % 60;
            boolean cut = h.seconds() > 900 && inMinute >= 50;
            boolean afterCut = h.seconds() >= 960 && inMinute <= 10;
            long fds = h.seconds() < SETTINGS.warmUpSeconds()
                    ? 3
                    : cut || afterCut ? 1000 : h.primary().fds();
            SoakReport.Node p =
                    growing(h.primary(), Figure.FDS, (fds - h.primary().fds()) * 3600 / h.seconds(), h.seconds());
            s.add(new SoakReport.Sample(h.seconds(), cut, h.afterFullGc(), p, h.backup(), 3, 10, 10 * MIB, 40));
        }
        Verdict v = verdict(s);
        assertThat(check(v, "primary open fds flat").ok()).as(v.render()).isTrue();
        // every other sample after the warm-up is judged
        long others = s.stream()
                .filter(x -> x.seconds() >= 60 && x.primary().fds() < 100)
                .count();
        assertThat(others).isEqualTo(349 - 15 * 2 - 14 * 3 - 1);
        assertThat(SoakTrends.judged(SETTINGS, s, false))
                .hasSize((int) others)
                .allMatch(x -> x.primary().fds() < 100);
    }

    @Test
    void aHeapClimbingBetweenFullGcsIsNoLeakButRisingAfterThemIs() {
        // after young GCs the heap climbs by 40 MiB an hour (old garbage, no mixed collection all run);
        // what each forced full GC leaves stays at 30 MiB
        List<SoakReport.Sample> garbage = samples(SETTINGS, x -> {
            SoakReport.Node n = x.primary();
            return x.afterFullGc() ? n : growing(n, Figure.HEAP_AFTER_GC, 40, x.seconds());
        });
        assertThat(check(verdict(garbage), "primary heap after GC flat").ok()).isTrue();
        // the same heap, no full GC forced: every sample is judged, and the climb fails
        SoakReport.Settings noGc = settings(1800, 5, 0);
        List<SoakReport.Sample> climbing =
                samples(noGc, x -> growing(x.primary(), Figure.HEAP_AFTER_GC, 40, x.seconds()));
        assertThat(check(verdict(noGc, climbing, WRITES, ALL_KEPT), "primary heap after GC flat")
                        .ok())
                .isFalse();
        // a leak shows after the full GCs too
        List<SoakReport.Sample> leak =
                samples(SETTINGS, x -> growing(x.primary(), Figure.HEAP_AFTER_GC, 40, x.seconds()));
        assertThat(check(verdict(leak), "primary heap after GC flat").ok()).isFalse();
    }

    @Test
    void unknownFiguresAndTooFewSamplesAreNotMet() {
        // the primary's /status never answered: its store and heap are unknown (-1) in every sample
        Verdict v = verdict(samples(SETTINGS, x -> new SoakReport.Node(-1, -1, -1, 40, 30, -1, -1, -1, -1, -1)));
        assertThat(check(v, "primary heap after GC flat").ok()).isFalse();
        assertThat(check(v, "primary heap after GC flat").measured()).isNull();
        assertThat(check(v, "primary entries - keys").ok()).isFalse();
        assertThat(check(v, "primary open fds flat").ok()).isTrue();
        // nine samples after the warm-up: too few for a trend
        List<SoakReport.Sample> few = healthySamples().subList(0, 20);
        assertThat(SoakTrends.judged(SETTINGS, few, false)).hasSize(9);
        assertThat(check(verdict(few), "primary open fds flat").ok()).isFalse();
    }

    @Test
    void aStoreHoldingMoreThanItsKeysAndReserveOnceFails() {
        List<SoakReport.Sample> s = healthySamples();
        List<SoakReport.Sample> once = new ArrayList<>(s);
        SoakReport.Sample h = s.get(100);
        once.set(
                100,
                new SoakReport.Sample(
                        h.seconds(),
                        false,
                        h.afterFullGc(),
                        growing(h.primary(), Figure.TOMBSTONES, 1000 * 3600 / h.seconds(), h.seconds()),
                        h.backup(),
                        3,
                        10,
                        10 * MIB,
                        40));
        Verdict v = verdict(once);
        assertThat(check(v, "primary entries - keys").ok()).isFalse();
        assertThat(check(v, "primary entries - keys").measured()).isEqualTo(1000.0 + (101 * 7) % 60);
        assertThat(check(v, "backup entries - keys").ok()).isTrue();
    }

    @Test
    void aDeletedKeyLiveAgainOrTooLittleChurnFails() {
        SoakChurn.Check back = new SoakChurn.Check(4096, 4000, 1, List.of("churn-d0-17: deleted, holds a value again"));
        Verdict v = verdict(
                SETTINGS, healthySamples(), WRITES, new SoakReport.Checks(NONE_LOST, NONE_LOST, NONE_BACK, back));
        assertThat(v.pass()).isFalse();
        assertThat(check(v, "deleted or expired keys live again on the backup").ok())
                .isFalse();
        assertThat(check(v, "deleted or expired keys live again on the primary").ok())
                .isTrue();
        // 39,999 churned keys for a store of 20,000 entries: not cycled twice
        SoakReport.Writes little = new SoakReport.Writes(1000, 10, Map.of(), 100, 0, 4, 2, 20_000, 19_999, Map.of());
        Verdict small = verdict(SETTINGS, healthySamples(), little, ALL_KEPT);
        assertThat(small.pass()).isFalse();
        assertThat(small.render()).contains("NOT MET  deleted and expiring keys written >= 2 x maxEntries: 39999");
    }

    @Test
    void aDeletedOrExpiredKeyIsBackOnlyIfItHoldsALiveValue() {
        long now = 1_000_000;
        byte[] v = {1};
        assertThat(SoakChurn.cameBack(null, true, now)).isNull();
        assertThat(SoakChurn.cameBack(new SoakChurn.Held(null, 0), true, now)).isNull(); // a tombstone
        assertThat(SoakChurn.cameBack(new SoakChurn.Held(v, 0), true, now)).contains("deleted, holds a value");
        assertThat(SoakChurn.cameBack(new SoakChurn.Held(v, now - 1), false, now))
                .isNull(); // not yet removed
        assertThat(SoakChurn.cameBack(new SoakChurn.Held(v, 0), false, now)).contains("without expiry");
        assertThat(SoakChurn.cameBack(new SoakChurn.Held(v, now + 5000), false, now))
                .contains("expiring at 1005000");
    }

    @Test
    void aLineThroughPointsHasTheLeastSquaresSlopeAndItsError() {
        SoakTrends.Line exact = SoakTrends.Line.fit(new double[] {0, 1, 2, 3}, new double[] {3, 5, 7, 9});
        assertThat(exact.slope()).isEqualTo(2.0);
        assertThat(exact.error()).isEqualTo(0.0);
        assertThat(exact.mean()).isEqualTo(6.0);
        // slope 4 / 5, residuals -0.3, 0.9, -0.9, 0.3: error sqrt(1.8 / 2 / 5)
        SoakTrends.Line noisy = SoakTrends.Line.fit(new double[] {0, 1, 2, 3}, new double[] {1, 3, 2, 4});
        assertThat(noisy.slope()).isCloseTo(0.8, offset(1e-12));
        assertThat(noisy.error()).isCloseTo(Math.sqrt(0.18), offset(1e-12));
        assertThat(SoakTrends.Line.fit(new double[] {1}, new double[] {1})).isNull();
        assertThat(SoakTrends.Line.fit(new double[] {2, 2}, new double[] {1, 5}))
                .isNull();
        assertThat(SoakTrends.heapMaxBytes(SETTINGS)).isEqualTo(512 * MIB);
    }

    @Test
    void oneLostWriteFailsWhateverTheFigures() {
        SoakLoad.Check oneLost = new SoakLoad.Check(500, 1, List.of("k: no complete value"));
        Verdict v = verdict(
                SETTINGS, healthySamples(), WRITES, new SoakReport.Checks(NONE_LOST, oneLost, NONE_BACK, NONE_BACK));
        assertThat(v.pass()).isFalse();
        assertThat(check(v, "acknowledged writes lost on the backup").ok()).isFalse();
        assertThat(check(v, "acknowledged writes lost on the primary").ok()).isTrue();
        SoakReport.Writes staleRead = new SoakReport.Writes(1000, 10, Map.of(), 100, 1, 4, 2, 30_000, 30_000, Map.of());
        assertThat(verdict(SETTINGS, healthySamples(), staleRead, ALL_KEPT).pass())
                .isFalse();
    }

    @Test
    void everyWholeMinuteMustAcknowledgeMoreThanOneSmallSet() {
        List<SoakReport.Sample> s = healthySamples();
        List<SoakTrends.Trend> t = SoakTrends.of(SETTINGS, s);
        SoakReport.Settings run = settings(210, 5, 60);
        // 3.5 minutes: minutes 1..3 are judged, the last half minute is not
        Verdict steady = SoakReport.verdict(run, s, t, minutes(900, 880, 910, 0), WRITES, ALL_KEPT);
        assertThat(steady.pass()).as(steady.render()).isTrue();
        assertThat(check(steady, "small SETs acknowledged").bound())
                .isEqualTo("small SETs acknowledged in each minute 1..3 >= 2");
        assertThat(check(steady, "small SETs acknowledged").measured()).isEqualTo(880.0);

        // the load stalled in the middle minute
        Verdict stalled = SoakReport.verdict(settings(180, 5, 60), s, t, minutes(900, 0, 910), WRITES, ALL_KEPT);
        assertThat(stalled.pass()).isFalse();
        assertThat(stalled.render()).contains("NOT MET  small SETs acknowledged in each minute 1..3 >= 2: 0 (limit 2)");

        // the load stopped after the first minute: the later minutes were never recorded
        Verdict stopped = SoakReport.verdict(settings(180, 5, 60), s, t, minutes(900), WRITES, ALL_KEPT);
        assertThat(check(stopped, "small SETs acknowledged").ok()).isFalse();

        // one acknowledged write, then failures only: not a soak, even in a short run
        Verdict one = SoakReport.verdict(settings(45, 5, 60), s, t, minutes(1), WRITES, ALL_KEPT);
        assertThat(one.pass()).isFalse();
        assertThat(one.render()).contains("NOT MET  small SETs acknowledged in each minute 1 >= 2: 1 (limit 2)");
        assertThat(SoakReport.verdict(settings(45, 5, 60), s, t, minutes(2), WRITES, ALL_KEPT)
                        .pass())
                .isTrue();
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
