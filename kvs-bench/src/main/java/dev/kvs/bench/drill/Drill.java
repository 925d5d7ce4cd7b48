package dev.kvs.bench.drill;

import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.client.ReplicationMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A drill over one or more modes, each with fresh node processes, in one run directory; what {@code
 * kvs drill} and {@code kvs demo} run. Every process it starts is killed when it returns, and by a
 * shutdown hook if the JVM is stopped first (Ctrl-C).
 *
 * @param modes modes to run, in order
 * @param disaster what happens to the main DC
 * @param seed chooses when the disaster strikes: uniformly in 50%..90% of the duration
 * @param load the load's shape
 * @param delay one-way WAN delay
 * @param bandwidthBitsPerSecond WAN bandwidth per direction, 0 for unlimited
 * @param runDir where logs, configs and ack files go (created if absent)
 * @param netns whether each DC runs in its own network namespace ({@link NetnsNetwork}, root only)
 *     rather than on loopback
 * @param tls whether every port speaks TLS (a fresh CA per mode, mutual TLS on replication, TLS-only
 *     client and admin ports, the drill's clients over TLS)
 */
record Drill(
        List<ReplicationMode> modes,
        Disaster disaster,
        long seed,
        DrillRun.LoadShape load,
        Duration delay,
        long bandwidthBitsPerSecond,
        Path runDir,
        boolean netns,
        boolean tls) {

    /** How long a node may take to start (two JVMs starting at once on a loaded 2-core machine). */
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    Drill {
        modes = List.copyOf(modes);
    }

    /** A drill on loopback. */
    Drill(
            List<ReplicationMode> modes,
            Disaster disaster,
            long seed,
            DrillRun.LoadShape load,
            Duration delay,
            long bandwidthBitsPerSecond,
            Path runDir) {
        this(modes, disaster, seed, load, delay, bandwidthBitsPerSecond, runDir, false, false);
    }

    /** When the disaster strikes, into the load: the same for every mode of a run. */
    Duration disasterAt() {
        double fraction = 0.5 + 0.4 * new Random(seed).nextDouble();
        return Duration.ofMillis(Math.round(load.duration().toMillis() * fraction));
    }

    /** Runs every mode and returns the report; {@code err} gets progress and where the logs are. */
    DrillReport run(String command, PrintWriter err, boolean terminal) throws InterruptedException {
        try {
            Files.createDirectories(runDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + runDir + ": " + e.getMessage(), e);
        }
        JavaCommand java = JavaCommand.current();
        List<ModeResult> results = new ArrayList<>();
        NetnsNetwork.Wan wan = null;
        try (QuietLogs quiet = new QuietLogs();
                ChildProcesses children = new ChildProcesses()) {
            NetnsNetwork net = null;
            if (netns) {
                net = NetnsNetwork.open(err);
                // after the processes are killed, on close and in the shutdown hook (Ctrl-C)
                children.onClose(net::close);
            }
            for (ReplicationMode m : modes) {
                DrillRun.Settings s = new DrillRun.Settings(
                        m, disaster, disasterAt(), load, delay, bandwidthBitsPerSecond, START_TIMEOUT, tls);
                Path dir = runDir.resolve(m.label());
                if (net == null) {
                    results.add(DrillRun.run(s, dir, java, children, null, null, err, terminal));
                    continue;
                }
                try {
                    wan = net.build(delay, bandwidthBitsPerSecond);
                    results.add(DrillRun.run(s, dir, java, children, net, wan, err, terminal));
                } finally {
                    net.tearDown();
                }
            }
        }
        return new DrillReport(
                command,
                disaster.label(),
                seed,
                load.clients(),
                (long) load.valueSize(),
                load.duration().toMillis() / 1000.0,
                delay.toNanos() / 1e6,
                bandwidthBitsPerSecond / 1e6,
                runDir.toString(),
                netns ? "netns" : "loopback",
                wan == NetnsNetwork.Wan.NETEM ? "netem" : "wanlink",
                OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(),
                results,
                DrillReport.ok(results));
    }

    /** A new run directory under the system's temporary directory. */
    static Path newRunDir() {
        try {
            return Files.createTempDirectory("kvs-drill-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
        }
    }
}
