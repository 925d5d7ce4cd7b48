package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code kvs bench abuse} measured, as printed and as written by {@code --json}, and its verdict
 * ({@link #verdict}): issue 12's three resource bounds.
 *
 * @param benchmark {@code abuse}
 * @param settings what ran
 * @param bulkHeaders unauthenticated connections each announcing a 64 MiB bulk string
 * @param outputBuffer one client pipelining GETs of a large value without reading its replies
 * @param idleSockets silent unauthenticated sockets, then an authenticated client
 * @param replicationSquatters idle and slow connections held on the backup's replication port during
 *     link drops (issue 32); null if not run
 * @param adminPort issue 32's attack on the admin port ({@link AdminAbuse}); null if not run
 * @param clientMemory clients at the pre-auth caps against {@code maxClientMemory}, or null if not run
 * @param verdict the bounds
 * @param provenance where and on what it ran
 */
record AbuseReport(
        String benchmark,
        Settings settings,
        Scenario bulkHeaders,
        Scenario outputBuffer,
        Scenario idleSockets,
        ReplicationSquatters.Result replicationSquatters,
        AdminAbuse.Result adminPort,
        ClientMemoryAttack.Result clientMemory,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** Bulk headers: the primary's used heap may grow by less than this many bytes (50 MB). */
    static final long BULK_HEADER_GROWTH_LIMIT = 50_000_000L;
    /** Output buffer: the primary's used heap must stay below this many bytes (100 MB). */
    static final long OUTPUT_BUFFER_HEAP_LIMIT = 100_000_000L;

    /**
     * What ran.
     *
     * @param connections unauthenticated connections sending a 64 MiB bulk header
     * @param gets pipelined GETs of the output-buffer client
     * @param valueSize bytes of the value those GETs read
     * @param idleSockets silent unauthenticated sockets
     * @param holdSeconds how long the output-buffer client is held (not reading) and sampled
     * @param authTimeoutSeconds the node's {@code authTimeoutSeconds}
     * @param nodeHeap the nodes' {@code -Xmx}
     * @param sampleMillis time between two samples of the primary's heap
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @param memoryClients unauthenticated clients at Redis's pre-auth caps ({@link ClientMemoryAttack}); 0: none
     */
    record Settings(
            int connections,
            int gets,
            long valueSize,
            int idleSockets,
            double holdSeconds,
            int authTimeoutSeconds,
            String nodeHeap,
            long sampleMillis,
            String flowControl,
            int memoryClients) {}

    /**
     * One attack on the primary.
     *
     * @param connections connections the attack opened
     * @param closedByNode of those, the ones the node closed before the bench did
     * @param heapBeforeBytes the primary's used heap just before the attack (after a forced GC if {@code
     *     gcForced}); -1 if it could not be read
     * @param heapPeakBytes the highest used heap sampled during the attack (at least the before value)
     * @param heapAfterBytes used heap after the attack's connections were closed (after a forced GC if
     *     {@code gcForced})
     * @param samples heap samples taken during the attack
     * @param gcForced whether {@code jcmd PID GC.run} ran before the before and after readings
     * @param authMillis idle sockets only: time from connecting to {@code +PONG} for the authenticated
     *     client, null if it did not get in (otherwise null)
     * @param outcome what happened, in words
     */
    record Scenario(
            int connections,
            int closedByNode,
            long heapBeforeBytes,
            long heapPeakBytes,
            long heapAfterBytes,
            int samples,
            boolean gcForced,
            Double authMillis,
            String outcome) {
        /** Peak minus before, -1 if either is unknown. */
        long growthBytes() {
            return heapBeforeBytes < 0 || heapPeakBytes < 0 ? -1 : heapPeakBytes - heapBeforeBytes;
        }
    }

    /**
     * The bounds (issue 12): bulk headers grow the primary's used heap (peak - before) by less than
     * 50 MB; the output-buffer attack keeps its used heap (peak) below 100 MB; the authenticated client
     * gets {@code +PONG} within {@code authTimeoutSeconds} of connecting with the idle sockets open. A
     * figure that could not be measured is not met.
     */
    /** The bounds below and those of the admin port's attack ({@link AdminAbuse.Result#checks}). */
    static Verdict verdict(Settings s, Scenario bulk, Scenario output, Scenario idle, AdminAbuse.Result admin) {
        List<Verdict.Check> checks = new ArrayList<>(
                verdict(s, bulk, output, idle, (ClientMemoryAttack.Result) null).checks());
        checks.addAll(admin.checks());
        return Verdict.of(checks);
    }

    /** The bounds below and, if it ran, those of the client-memory attack. */
    static Verdict verdict(
            Settings s, Scenario bulk, Scenario output, Scenario idle, ClientMemoryAttack.Result memory) {
        List<Verdict.Check> checks = new ArrayList<>();
        long growth = bulk.growthBytes();
        checks.add(below(
                s.connections() + " bulk headers: heap peak - before < 50 MB",
                growth < 0 ? null : mb(growth),
                mb(BULK_HEADER_GROWTH_LIMIT),
                "MB"));
        checks.add(below(
                s.gets() + " unread GETs of " + Report.bytes(s.valueSize()) + ": heap peak < 100 MB",
                output.heapPeakBytes() < 0 ? null : mb(output.heapPeakBytes()),
                mb(OUTPUT_BUFFER_HEAP_LIMIT),
                "MB"));
        checks.add(below(
                s.idleSockets() + " idle sockets: authenticated PONG < authTimeoutSeconds",
                idle.authMillis(),
                s.authTimeoutSeconds() * 1000.0,
                "ms"));
        if (memory != null) checks.addAll(memory.checks());
        return Verdict.of(checks);
    }

    /** A check that {@code measured < limit}; not met if either is null. */
    private static Verdict.Check below(String bound, Double measured, Double limit, String unit) {
        return new Verdict.Check(bound, measured, limit, unit, measured != null && limit != null && measured < limit);
    }

    private static double mb(long bytes) {
        return Math.round(bytes / 1e5) / 10.0;
    }

    private static String mbText(long bytes) {
        return bytes < 0 ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1e6);
    }

    @Override
    public String render() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {
            "scenario", "conns", "closed by node", "heap before MB", "peak MB", "after MB", "samples", "outcome"
        });
        row(rows, settings.connections() + " x 64 MiB bulk header, no AUTH", bulkHeaders);
        row(
                rows,
                "SET + " + settings.gets() + " x GET " + Report.bytes(settings.valueSize()) + ", unread",
                outputBuffer);
        row(rows, settings.idleSockets() + " idle sockets + AUTH client", idleSockets);
        return "primary's used heap (GET /status memory.heapUsedBytes; before/after after jcmd GC.run), sampled every "
                + settings.sampleMillis() + " ms\n" + Report.columns(rows) + "\n"
                + (replicationSquatters == null ? "" : replicationSquatters.render() + "\n")
                + (adminPort == null ? "" : adminPort.render() + "\n")
                + (clientMemory == null ? "" : clientMemory.render() + "\n") + verdict.render();
    }

    private static void row(List<String[]> rows, String name, Scenario s) {
        rows.add(new String[] {
            name,
            Integer.toString(s.connections()),
            Integer.toString(s.closedByNode()),
            mbText(s.heapBeforeBytes()),
            mbText(s.heapPeakBytes()),
            mbText(s.heapAfterBytes()),
            Integer.toString(s.samples()),
            s.outcome()
        });
    }
}
