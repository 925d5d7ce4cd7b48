package dev.kvs.replication.primary;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A deterministic simulation of one FIFO bottleneck driving a {@link FlowController}: a sender that
 * sends value frames whenever the controller allows, a wire of {@code rate} bytes/s with one-way
 * {@code delay} each way, receipts coming back unqueued, an optional competing bulk flow that keeps a
 * standing queue, a receiver that reads late (its event loop scheduled late: the frames wait after the
 * bottleneck, not in it), and the clock offset of the backup. Time advances in fixed steps; nothing
 * sleeps.
 *
 * <p>Every millisecond it records the wait a key packet sent at that moment would have in the queue
 * (the bytes ahead of it divided by the rate): what the flow control is there to keep small.
 */
final class SimulatedLink {
    static final long MS = 1_000_000L;
    static final long SECOND = 1_000_000_000L;
    private static final long STEP = 50_000; // 50 us

    private record Receipt(long at, int stream, int bytes, long sentAt, long receivedAt) {}

    final FlowController controller;
    private final int streams;
    private final PriorityQueue<Receipt> receipts = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
    private final List<Long> keyWaits = new ArrayList<>();
    private long now;
    private long wireFreeAt;
    private long rate;
    private long delay;
    private long clockOffset = 123_456_789_000L;
    private long competitorQueue;
    private long lateBy;
    private long lateJitter;
    private Random lateRandom;
    private long lastReadAt;
    private long delivered;
    private long nextSample;
    private int nextStream;

    SimulatedLink(FlowController controller, int streams, long bytesPerSecond, long oneWayDelayNanos) {
        this.controller = controller;
        this.streams = streams;
        this.rate = bytesPerSecond;
        this.delay = oneWayDelayNanos;
    }

    /** From now on a competing flow keeps this much queue (in time) at the bottleneck; 0 for none. */
    void competitor(long standingQueueNanos) {
        competitorQueue = standingQueueNanos;
    }

    /**
     * From now on the receiver reads each frame {@code by} (plus or minus a uniform {@code jitter},
     * drawn from {@code random}) after it arrived, in arrival order: the frames wait in its socket, not
     * at the bottleneck, and carry their read time as the receive time. 0 for none.
     */
    void lateReads(long by, long jitter, Random random) {
        lateBy = by;
        lateJitter = jitter;
        lateRandom = random;
    }

    /** A route change: a new one-way delay for frames entering the wire from now on. */
    void delay(long oneWayDelayNanos) {
        delay = oneWayDelayNanos;
    }

    long now() {
        return now;
    }

    /** Value bytes that reached the backup so far. */
    long delivered() {
        return delivered;
    }

    /** Runs for {@code duration} of simulated time with a sender that always has values to send. */
    void run(long duration) {
        long end = now + duration;
        while (now < end) {
            step();
            now += STEP;
        }
    }

    private void step() {
        while (!receipts.isEmpty() && receipts.peek().at <= now) {
            Receipt r = receipts.poll();
            delivered += r.bytes;
            controller.received(r.stream, r.bytes, r.sentAt, r.receivedAt, now);
        }
        if (competitorQueue > 0 && wireFreeAt - now < competitorQueue) wireFreeAt = now + competitorQueue;
        for (int sends = 0; sends < 64; sends++) {
            int bytes = controller.quantum();
            if (controller.sendAt(bytes, now) > now) break;
            int stream = nextStream++ % streams;
            controller.sent(stream, bytes, now);
            long start = Math.max(wireFreeAt, now);
            wireFreeAt = start + bytes * SECOND / rate;
            long arrival = wireFreeAt + delay;
            long late = lateBy;
            if (lateJitter > 0) late += (long) ((lateRandom.nextDouble() * 2 - 1) * lateJitter);
            long read = Math.max(lastReadAt, arrival + Math.max(0, late));
            lastReadAt = read;
            receipts.add(new Receipt(read + delay, stream, bytes, now, read + clockOffset));
        }
        if (now >= nextSample) {
            keyWaits.add(Math.max(0, wireFreeAt - now));
            nextSample = now + MS;
        }
    }

    /** Forgets the key waits recorded so far (after a warm-up). */
    void resetSamples() {
        keyWaits.clear();
    }

    /** The {@code p}-quantile (0..1) of the key waits recorded since the last reset, in nanoseconds. */
    long keyWait(double p) {
        List<Long> sorted = new ArrayList<>(keyWaits);
        Collections.sort(sorted);
        if (sorted.isEmpty()) return 0;
        return sorted.get((int) Math.min(sorted.size() - 1, Math.floor(p * sorted.size())));
    }
}
