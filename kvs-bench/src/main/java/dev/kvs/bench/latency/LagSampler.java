package dev.kvs.bench.latency;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads the primary's value lag ({@code GET /status}: the age of the oldest value the backup has not
 * acknowledged) every {@code period} on a thread of its own, and keeps the largest. The lag grows by a
 * millisecond per millisecond between two acknowledgements, so the largest sample is at most a period
 * below the largest lag.
 */
final class LagSampler {
    /**
     * What the samples showed.
     *
     * @param samples samples read
     * @param failed samples that could not be read (the admin port did not answer)
     * @param maxLagMillis the largest lag read
     * @param maxAtSeconds when it was read, in seconds since the sampling began
     * @param meanLagMillis the mean of the samples
     * @param periodMillis time between two samples
     */
    record Result(
            long samples,
            long failed,
            long maxLagMillis,
            double maxAtSeconds,
            double meanLagMillis,
            long periodMillis) {}

    private final BenchCluster cluster;
    private final Duration period;
    private final Thread thread;
    private volatile boolean stopping;
    private long start;
    private long samples;
    private long failed;
    private long max = -1;
    private long maxAt;
    private double sum;

    LagSampler(BenchCluster cluster, Duration period) {
        this.cluster = cluster;
        this.period = period;
        this.thread = new Thread(this::run, "kvs-bench-lag-sampler");
        thread.setDaemon(true);
    }

    void start() {
        start = System.nanoTime();
        thread.start();
    }

    /** The largest lag read so far, in ms; -1 before the first sample. */
    synchronized long maxLagMillis() {
        return max;
    }

    /** Stops sampling and returns what the samples showed. */
    Result stop() throws InterruptedException {
        stopping = true;
        thread.join(20_000); // a sample under way ends within the admin client's timeout
        synchronized (this) {
            return new Result(
                    samples, failed, max, (maxAt - start) / 1e9, samples == 0 ? 0 : sum / samples, period.toMillis());
        }
    }

    private void run() {
        long next = System.nanoTime();
        while (!stopping) {
            try {
                long lag = cluster.primaryReplication().oldestPendingValueMillis();
                long now = System.nanoTime();
                synchronized (this) {
                    samples++;
                    sum += lag;
                    if (lag > max) {
                        max = lag;
                        maxAt = now;
                    }
                }
            } catch (UncheckedIOException | IllegalStateException e) {
                synchronized (this) {
                    failed++;
                }
            }
            next += period.toNanos();
            try {
                // the sampler's own schedule, not a synchronisation
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
