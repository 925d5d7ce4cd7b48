package dev.kvs.bench.drill;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.NodeAccess;
import dev.kvs.client.Acknowledgements;
import dev.kvs.client.KvsClient;
import dev.kvs.client.ReplicationMode;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Writes at full speed through the Java SDK: each client is one {@link KvsClient} with its own
 * connection and mode, fed by one thread that keeps up to {@code pipeline} writes in flight. Every
 * write has a new key and a value derived from (key, attempt); each acknowledged one goes to the
 * {@link AckLog.Writer} at once. A failed write (the primary died, the link was cut, a timeout) is
 * counted and never retried, so what is in the ack log is exactly what the store promised.
 *
 * <p>Use: {@link #start()}, then {@link #stop(Duration)} from any thread, which returns the result.
 */
final class LoadGenerator {
    /** How long a failing client pauses before its next write, so a dead primary is not hammered. */
    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * What to run.
     *
     * @param endpoints {@code host:port} each, in order of preference
     * @param mode the mode every client's connection asks for
     * @param clients clients, one connection and one thread each
     * @param valueSize bytes per value
     * @param pipeline writes in flight per client
     * @param requestTimeout how long one write may wait for its answer
     * @param keyPrefix prefix of every key, unique per run so runs never share keys
     * @param access TLS and login for secured nodes ({@link NodeAccess#PLAIN} for none)
     * @param cluster whether {@code endpoints} are a sharded cluster's seeds (the SDK's cluster mode)
     *     rather than a pair
     * @param acknowledgements hears which node acknowledged each write, or null
     */
    record Settings(
            List<String> endpoints,
            ReplicationMode mode,
            int clients,
            int valueSize,
            int pipeline,
            Duration requestTimeout,
            String keyPrefix,
            NodeAccess access,
            boolean cluster,
            Acknowledgements acknowledgements) {
        /** A pair's load. */
        Settings(
                List<String> endpoints,
                ReplicationMode mode,
                int clients,
                int valueSize,
                int pipeline,
                Duration requestTimeout,
                String keyPrefix,
                NodeAccess access) {
            this(endpoints, mode, clients, valueSize, pipeline, requestTimeout, keyPrefix, access, false, null);
        }

        Settings {
            endpoints = List.copyOf(endpoints);
            Objects.requireNonNull(access, "access");
            if (endpoints.isEmpty()) throw new IllegalArgumentException("endpoints is empty");
            if (clients < 1) throw new IllegalArgumentException("clients < 1: " + clients);
            if (valueSize < 0) throw new IllegalArgumentException("valueSize < 0: " + valueSize);
            if (pipeline < 1) throw new IllegalArgumentException("pipeline < 1: " + pipeline);
        }
    }

    private final Settings settings;
    private final AckLog.Writer acks;
    private final Recorder latency = new Recorder(3);
    private final Histogram latencyTotal = new Histogram(3);
    private final LongAdder attempted = new LongAdder();
    private final LongAdder acked = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final List<Worker> workers = new ArrayList<>();
    private volatile boolean stopping;
    private long startNanos;

    LoadGenerator(Settings settings, AckLog.Writer acks) {
        this.settings = settings;
        this.acks = acks;
    }

    /** How long the clients may take to connect before the load starts regardless. */
    private static final Duration CONNECT_WAIT = Duration.ofSeconds(30);

    /**
     * Opens the clients, connects each with a {@code PING} (so TLS handshakes and logins are not part of
     * the load's time; a client that cannot connect is left to fail its writes, which are counted), and
     * starts writing.
     */
    void start() throws InterruptedException {
        List<CompletableFuture<String>> pings = new ArrayList<>();
        for (int i = 0; i < settings.clients(); i++) {
            Worker w = new Worker(i);
            workers.add(w);
            pings.add(w.client.pingAsync());
        }
        try {
            CompletableFuture.allOf(pings.toArray(new CompletableFuture<?>[0]))
                    .get(CONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the writes will fail the same way, and are counted
        }
        startNanos = System.nanoTime();
        for (Worker w : workers) w.thread.start();
    }

    long acked() {
        return acked.sum();
    }

    long failed() {
        return failed.sum();
    }

    /** Seconds since {@link #start()}. */
    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /**
     * Shows on {@code err} how far the load has got of its {@code seconds}, until closed: {@code LABEL
     * [####......]  2.5/10.0 s  acked 1,234  493 w/s  failed 0}, then {@code note} (e.g. when the
     * disaster struck; may return ""). A plain line every second where {@code err} is not a terminal.
     */
    ProgressLine showProgress(PrintWriter err, boolean terminal, String label, double seconds, Supplier<String> note) {
        return new ProgressLine(err, terminal, Duration.ofSeconds(1), () -> {
            double t = Math.min(elapsedSeconds(), seconds);
            long n = acked();
            return String.format(
                    Locale.ROOT,
                    "%s %s %4.1f/%.1f s  acked %,d  %,.0f w/s  failed %,d%s",
                    label,
                    ProgressLine.bar(t, seconds),
                    t,
                    seconds,
                    n,
                    t > 0 ? n / t : 0.0,
                    failed(),
                    note.get());
        });
    }

    /**
     * Stops issuing writes, waits up to {@code drain} for the writes in flight to be answered, closes
     * the clients (failing what is still in flight) and returns what the run did.
     */
    LoadResult stop(Duration drain) throws InterruptedException {
        stopping = true;
        double elapsed = elapsedSeconds();
        long deadline = System.nanoTime() + drain.toNanos();
        for (Worker w : workers) {
            w.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            w.drained = w.inFlight.tryAcquire(
                    settings.pipeline(), Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        for (Worker w : workers) {
            w.thread.interrupt();
            w.client.close();
        }
        for (Worker w : workers) {
            w.thread.join(5_000);
            // closing failed what was still in flight; wait for those callbacks before summing up
            if (!w.drained) w.inFlight.tryAcquire(settings.pipeline(), 5, TimeUnit.SECONDS);
        }
        Map<String, Long> byKind = new TreeMap<>();
        failures.forEach((k, v) -> byKind.put(k, v.sum()));
        Histogram h = latencyHistogram();
        return new LoadResult(
                settings.mode().label(),
                settings.clients(),
                settings.valueSize(),
                attempted.sum(),
                acked.sum(),
                failed.sum(),
                byKind,
                elapsed,
                h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50),
                h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99));
    }

    private synchronized Histogram latencyHistogram() {
        latencyTotal.add(latency.getIntervalHistogram());
        return latencyTotal.copy();
    }

    private void failed(Throwable t) {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        failed.increment();
        failures.computeIfAbsent(cause.getClass().getSimpleName(), k -> new LongAdder())
                .increment();
    }

    /** One client: a connection and the thread that feeds it. */
    private final class Worker {
        final KvsClient client;
        final Semaphore inFlight;
        final Thread thread;
        volatile boolean lastFailed;
        boolean drained;

        Worker(int index) {
            KvsClient.Builder b = settings.access().applyTo(KvsClient.builder());
            if (settings.cluster()) b.cluster(settings.endpoints());
            else b.endpoints(settings.endpoints());
            if (settings.acknowledgements() != null) b.acknowledgements(settings.acknowledgements());
            client = b.mode(settings.mode())
                    .requestTimeout(settings.requestTimeout())
                    .connectTimeout(Duration.ofSeconds(1))
                    .unfinishedRetryDeadline(Duration.ZERO)
                    .maxPending(settings.pipeline() + 16)
                    .eventLoopThreads(1)
                    .clientName("kvs-drill-" + index)
                    .build();
            inFlight = new Semaphore(settings.pipeline());
            thread = new Thread(() -> run(index), "kvs-drill-load-" + index);
            thread.setDaemon(true);
        }

        private void run(int index) {
            String prefix = settings.keyPrefix() + "-c" + index + "-";
            try {
                for (long n = 0; !stopping; n++) {
                    inFlight.acquire();
                    if (stopping) {
                        inFlight.release();
                        return;
                    }
                    if (lastFailed) {
                        lastFailed = false;
                        LockSupport.parkNanos(ERROR_PAUSE_NANOS);
                    }
                    String key = prefix + n;
                    byte[] value = ValueSource.value(key, 0, settings.valueSize());
                    long sent = System.nanoTime();
                    attempted.increment();
                    client.putAsync(key.getBytes(StandardCharsets.US_ASCII), value)
                            .whenComplete((ok, error) -> {
                                try {
                                    if (error == null) {
                                        latency.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
                                        acks.append(AckedWrite.of(key, value));
                                        acked.increment();
                                    } else {
                                        lastFailed = true;
                                        failed(error);
                                    }
                                } finally {
                                    inFlight.release();
                                }
                            });
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
