package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.kvs.bench.cluster.LinkSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code kvs bench id-first-overhead} measured, as printed and as written by {@code --json}.
 *
 * @param benchmark {@code id-first-overhead}
 * @param settings what ran
 * @param linkRoundTrip {@code PING}s to the backup through a link with the replication link's
 *     settings: the link's own round trip
 * @param sizes per value size, the SETs in {@code async} and in {@code id-first}
 * @param verdict the acceptance bounds
 * @param provenance where and on what it ran: {@code runDir}, {@code date}, {@code java} and {@code
 *     cores} in the JSON
 */
record IdFirstOverheadReport(
        String benchmark,
        Settings settings,
        PhaseStats linkRoundTrip,
        List<SizeResult> sizes,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** The most an id-first SET may cost over an async one, in link round trips. */
    static final double MAX_OVERHEAD_ROUND_TRIPS = 1.2;

    /**
     * The least an id-first SET may take, in link round trips: it waits for the backup's
     * acknowledgement of its key packet, one round trip (less a little: the round trip is measured
     * with {@code PING}s through an identical link, whose timing varies).
     */
    static final double MIN_ID_FIRST_ROUND_TRIPS = 0.8;

    IdFirstOverheadReport {
        sizes = List.copyOf(sizes);
    }

    /** Values over 1 MiB are warmed up with at most this many SETs per mode: each takes the link 80 ms or more. */
    static final int LARGE_WARM_UP = 5;

    /**
     * What ran.
     *
     * @param delayMs one-way WAN delay
     * @param bandwidthMbit WAN bandwidth each way
     * @param bufferBytes the link's queue per direction
     * @param queueing {@code fifo} or {@code fair}
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @param valueSizes the value sizes, in the order run
     * @param count SETs measured per size and mode
     * @param largeCount SETs measured per mode for values over 1 MiB
     * @param warmUp SETs sent before each measurement, not measured (at most {@link #LARGE_WARM_UP} for values over
     *     1 MiB)
     * @param pings {@code PING}s measuring the link's round trip
     * @param maxValueLagMs the primary's {@code replication.maxValueLagMs}: 0 (off) by default here. The
     *     bench offers large values faster than the link on purpose (its async writes of 10 MiB queue
     *     about 300 MB, three seconds of a 1 Gbit/s link), where the bound's projection holds writes by
     *     design; this measures the key path, {@code kvs bench value-lag} the bound
     */
    record Settings(
            double delayMs,
            double bandwidthMbit,
            long bufferBytes,
            String queueing,
            String flowControl,
            List<Long> valueSizes,
            int count,
            int largeCount,
            int warmUp,
            int pings,
            long maxValueLagMs,
            String clusterSecret) {
        Settings {
            valueSizes = List.copyOf(valueSizes);
        }

        /** SETs measured per mode for values of {@code size} bytes. */
        int countFor(long size) {
            return size > 1 << 20 ? largeCount : count;
        }

        /** Unmeasured SETs per mode before values of {@code size} bytes are measured. */
        int warmUpFor(long size) {
            return size > 1 << 20 ? Math.min(warmUp, LARGE_WARM_UP) : warmUp;
        }
    }

    /**
     * One value size.
     *
     * @param valueSize bytes per value
     * @param async the SETs with the connection in {@code async}: the cost of a write without waiting
     *     for the backup
     * @param idFirst the SETs in {@code id-first}
     * @param overheadMs id-first p50 minus async p50, or null if either has no successful SET
     * @param overheadRoundTrips {@code overheadMs} over the link's round trip (p50), or null
     */
    record SizeResult(
            long valueSize, PhaseStats async, PhaseStats idFirst, Double overheadMs, Double overheadRoundTrips) {
        static SizeResult of(long valueSize, PhaseStats async, PhaseStats idFirst, Double roundTripMs) {
            Double overhead = async.p50Ms() == null || idFirst.p50Ms() == null ? null : idFirst.p50Ms() - async.p50Ms();
            Double rtts = overhead == null || roundTripMs == null || roundTripMs <= 0 ? null : overhead / roundTripMs;
            return new SizeResult(valueSize, async, idFirst, overhead, rtts);
        }
    }

    /**
     * For every size, id-first p50 - async p50 at most 1.2 link round trips, and id-first p50 at least
     * 0.8 of one (an id-first SET waits for its key packet's acknowledgement: one answered sooner did
     * not wait, as an async one); and no SET failed.
     *
     * @param roundTripMs the link's round trip (p50), or null if no {@code PING} came back (not met)
     */
    static Verdict verdict(List<SizeResult> sizes, Double roundTripMs) {
        List<Verdict.Check> checks = new ArrayList<>();
        long failed = 0;
        for (SizeResult s : sizes) {
            String size = Report.bytes(s.valueSize());
            checks.add(Verdict.Check.atMost(
                    size + ": (id-first p50 - async p50) / RTT <= " + Report.number(MAX_OVERHEAD_ROUND_TRIPS),
                    s.overheadRoundTrips(),
                    MAX_OVERHEAD_ROUND_TRIPS,
                    ""));
            checks.add(Verdict.Check.atLeast(
                    size + ": id-first p50 >= " + Report.number(MIN_ID_FIRST_ROUND_TRIPS) + " RTT",
                    s.idFirst().p50Ms(),
                    roundTripMs == null || roundTripMs <= 0 ? null : MIN_ID_FIRST_ROUND_TRIPS * roundTripMs,
                    "ms"));
            failed += s.async().failed() + s.idFirst().failed();
        }
        checks.add(Verdict.Check.atMost("SETs failed = 0", (double) failed, 0.0, ""));
        return Verdict.of(checks);
    }

    /** How a report names its {@code --cluster-secret}: on, the nodes MAC every replication frame. */
    static String clusterSecret(String onOff) {
        return onOff.equals("on") ? "on (a MAC on every replication frame)" : "off (no MAC)";
    }

    /** One line saying what runs. */
    static String describe(Settings s, LinkSettings link) {
        List<String> sizes = s.valueSizes().stream().map(Report::bytes).toList();
        return String.format(
                Locale.ROOT,
                "WAN %s; one client, SETs one at a time of %s (%d each, %d over 1 MiB), alternately in async and in"
                        + " id-first; the link's round trip from %d PINGs through an identical link; flow control %s;"
                        + " maxValueLagMs %s; cluster secret %s",
                Report.link(link),
                String.join(", ", sizes),
                s.count(),
                s.largeCount(),
                s.pings(),
                s.flowControl(),
                s.maxValueLagMs() == 0 ? "0 (off)" : s.maxValueLagMs(),
                clusterSecret(s.clusterSecret()));
    }

    /** The results as text: the link's round trip, one line per size, the verdict. */
    @Override
    public String render() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "link round trip: p50 %s ms, p99 %s ms (%d PINGs to dc-backup through a link with the same"
                        + " settings)%n%n",
                Report.ms(linkRoundTrip.p50Ms()),
                Report.ms(linkRoundTrip.p99Ms()),
                linkRoundTrip.ok()));
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "value size", "SETs", "failed", "async p50 ms", "id-first p50 ms", "id-first p99 ms", "overhead ms", "/ RTT"
        });
        for (SizeResult s : sizes) {
            rows.add(new String[] {
                Report.bytes(s.valueSize()),
                Long.toString(s.idFirst().sent()),
                (s.async().failed() + s.idFirst().failed())
                        + KeysUnderLoadReport.failures(merged(s.async(), s.idFirst())),
                Report.ms(s.async().p50Ms()),
                Report.ms(s.idFirst().p50Ms()),
                Report.ms(s.idFirst().p99Ms()),
                Report.ms(s.overheadMs()),
                s.overheadRoundTrips() == null ? "-" : String.format(Locale.ROOT, "%.2f", s.overheadRoundTrips())
            });
        }
        b.append(Report.columns(rows));
        b.append('\n');
        b.append(verdict.render());
        return b.toString();
    }

    private static java.util.Map<String, Long> merged(PhaseStats a, PhaseStats b) {
        java.util.Map<String, Long> m = new java.util.TreeMap<>(a.failures());
        b.failures().forEach((k, v) -> m.merge(k, v, Long::sum));
        return m;
    }
}
