package dev.kvs.bench.drill;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.client.ReplicationMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One drill in one mode: start two DCs, write at full speed, strike with the disaster in the middle of
 * the load, stop the load, promote the backup (declaring unfinished keys lost), and classify every
 * acknowledged write by reading it back from the new primary. The load and the check are those of
 * {@code kvs drill load} and {@code kvs drill verify}, joined by the same ack file.
 */
final class DrillRun {
    /** How long writes still in flight at the end of the load may take to be answered. */
    static final Duration DRAIN = Duration.ofSeconds(5);
    /** How long one write may wait for its answer (above the nodes' 3 s write timeout). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(8);

    /**
     * One drill's settings.
     *
     * @param mode the replication mode
     * @param disaster what happens to the main DC
     * @param disasterAt when, into the load
     * @param load clients, value size, duration and pipeline
     * @param delay one-way WAN delay
     * @param bandwidthBitsPerSecond WAN bandwidth, 0 for unlimited
     * @param startTimeout how long the nodes may take to start
     * @param tls whether the nodes use a fresh CA's certificates for mutual TLS on replication and
     *     TLS-only client and admin ports, and the drill's clients connect with TLS
     */
    record Settings(
            ReplicationMode mode,
            Disaster disaster,
            Duration disasterAt,
            LoadShape load,
            Duration delay,
            long bandwidthBitsPerSecond,
            Duration startTimeout,
            boolean tls) {}

    /**
     * The load's shape.
     *
     * @param clients clients
     * @param valueSize bytes per value
     * @param duration how long to write
     * @param pipeline writes in flight per client
     */
    record LoadShape(int clients, int valueSize, Duration duration, int pipeline) {}

    private DrillRun() {}

    /**
     * Runs the drill in {@code dir} (logs, configs, ack file) and returns its line of the report. With
     * {@code net} (built, emulating the WAN with {@code wan}) the nodes run in its namespaces, else on
     * loopback.
     */
    static ModeResult run(
            Settings s,
            Path dir,
            JavaCommand java,
            ChildProcesses children,
            NetnsNetwork net,
            NetnsNetwork.Wan wan,
            PrintWriter err,
            boolean terminal)
            throws InterruptedException {
        String mode = s.mode().label();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
        if (net == null) {
            err.printf("%s: starting dc-main and dc-backup (logs in %s)%n", mode, dir);
        } else {
            NetnsPlan p = net.plan();
            err.printf(
                    "%s: starting dc-main in %s (%s) and dc-backup in %s (%s), joined by veth %s-%s, WAN by %s"
                            + " (logs in %s)%n",
                    mode,
                    p.mainNamespace(),
                    p.mainAddress(),
                    p.backupNamespace(),
                    p.backupAddress(),
                    p.mainLink(),
                    p.backupLink(),
                    wan == NetnsNetwork.Wan.NETEM ? "tc netem" : "kvs wan in " + p.backupNamespace(),
                    dir);
        }
        err.flush();
        DrillCluster.Settings cs =
                new DrillCluster.Settings(s.mode(), s.delay(), s.bandwidthBitsPerSecond(), s.startTimeout(), s.tls());
        try (DrillCluster cluster = net == null
                ? DrillCluster.start(cs, dir, java, children)
                : DrillCluster.startInNamespaces(cs, dir, java, children, net, wan)) {
            Path ackFile = dir.resolve("acked.tsv");
            LoadResult load;
            double[] disasterAt = {-1};
            try (AckLog.Writer acks = new AckLog.Writer(ackFile, mode)) {
                LoadGenerator gen = new LoadGenerator(
                        new LoadGenerator.Settings(
                                List.of(cluster.primaryEndpoint()),
                                s.mode(),
                                s.load().clients(),
                                s.load().valueSize(),
                                s.load().pipeline(),
                                REQUEST_TIMEOUT,
                                "drill-" + mode + "-" + Long.toHexString(System.nanoTime() & 0xffffff),
                                cluster.access()),
                        acks);
                double seconds = s.load().duration().toMillis() / 1000.0;
                gen.start();
                try (ProgressLine p = gen.showProgress(
                        err,
                        terminal,
                        String.format(Locale.ROOT, "%-20s", mode),
                        seconds,
                        () -> disasterAt[0] < 0
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        "  %s at %.1f s",
                                        s.disaster().label(),
                                        disasterAt[0]))) {
                    sleepUntil(gen, s.disasterAt().toMillis() / 1000.0);
                    awaitFirstAck(gen, s.startTimeout());
                    double at = gen.elapsedSeconds();
                    cluster.disaster(s.disaster());
                    disasterAt[0] = at;
                    sleepUntil(gen, seconds);
                    load = gen.stop(DRAIN);
                }
                acks.summary(load);
            }
            JsonNode promoted = cluster.promote();
            long declaredLost = promoted.path("manifest").path("lostCount").asLong();
            err.printf(
                    "%s: dc-backup promoted (epoch %s); reading back %,d acknowledged writes%n",
                    mode, promoted.path("epoch").asText(), load.acked());
            err.flush();
            Classification c = VerifyCommand.verify(
                    List.of(cluster.backupEndpoint()), AckLog.read(ackFile).writes(), cluster.access());
            err.printf("%s: %s%n", mode, declaredLost(declaredLost, c.errorDetect()));
            err.flush();
            return ModeResult.of(mode, load, c, disasterAt[0]);
        }
    }

    /**
     * Reconciles the promoted backup's count with the table: the backup declares lost every key still
     * in its unfinished queue, including writes whose key packet it acknowledged but whose reply never
     * reached the client (the primary died first, or {@code sync} was waiting for the value); the table
     * counts only acknowledged writes. Each drill write has its own key, so keys and writes compare.
     *
     * @param declared the backup's {@code lostCount} at promotion
     * @param fencedAcked acknowledged writes read back fenced (error-detect)
     */
    static String declaredLost(long declared, long fencedAcked) {
        if (declared == 0 && fencedAcked == 0) {
            return "0 keys declared lost by the promoted backup (its unfinished-key queue was empty)";
        }
        if (declared >= fencedAcked) {
            return String.format(
                    Locale.ROOT,
                    "%,d keys declared lost by the promoted backup (its unfinished keys: %,d acknowledged"
                            + " writes fenced + %,d never acknowledged to a client)",
                    declared,
                    fencedAcked,
                    declared - fencedAcked);
        }
        return String.format(
                Locale.ROOT,
                "%,d keys declared lost by the promoted backup; %,d acknowledged writes read back fenced",
                declared,
                fencedAcked);
    }

    /**
     * Holds the disaster back until the load has had a write acknowledged: a disaster before any
     * acknowledgement tests nothing (on a starved machine the seeded moment can come before the first
     * one). Gives up after {@code timeout} with a message saying so.
     */
    private static void awaitFirstAck(LoadGenerator gen, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (gen.acked() == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(String.format(
                        Locale.ROOT,
                        "no write was acknowledged in %.1f s of load (+%d s waiting); the disaster would test nothing",
                        gen.elapsedSeconds(),
                        timeout.toSeconds()));
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    /** Waits until the load has run {@code seconds}; the drill's own schedule, not a synchronisation. */
    private static void sleepUntil(LoadGenerator gen, double seconds) throws InterruptedException {
        long ms = Math.round((seconds - gen.elapsedSeconds()) * 1000);
        if (ms > 0) TimeUnit.MILLISECONDS.sleep(ms);
    }
}
