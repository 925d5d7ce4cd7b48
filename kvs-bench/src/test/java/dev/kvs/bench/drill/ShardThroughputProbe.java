package dev.kvs.bench.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.NodeAccess;
import dev.kvs.bench.shards.LocalCluster;
import dev.kvs.client.ReplicationMode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the sharded drill's throughput goes (issue #34: 1,390 writes/s on 3 shards against 10,000 on 1):
 * the drill's own {@link LoadGenerator} (id-first, 256-byte values, 16 writes in flight per client)
 * against a {@link LocalCluster}, with the CPU each process used over the run (this JVM, every node
 * JVM, and the nodes' threads by name, the JIT compilers among them) read from {@code /proc}, and
 * whether the primaries' leases held. Rows: each layout idle (what its processes cost with no load),
 * then 1 shard with the SDK in cluster mode, in pair mode on the same nodes, and in cluster mode again;
 * 3 shards with 1, 4 and 12 clients and 4 again; a fresh 3-shard cluster at the default 6 s session.
 * A measurement, not a check: it runs only with {@code -Dkvs.probe=true} (about 6 minutes), prints a
 * Markdown table, and asserts only that each loaded row acknowledged writes. BENCHMARKS.md ("Sharded
 * drill") has its results.
 */
@EnabledIfSystemProperty(named = "kvs.probe", matches = "true")
class ShardThroughputProbe {
    private static final Duration RUN = Duration.ofSeconds(10);
    private static final int PIPELINE = 16;
    private static final long TICKS = 100; // USER_HZ, /proc's clock ticks per second on Linux

    @Test
    void throughputAndCpuPerLayout(@TempDir Path dir) throws Exception {
        List<String> rows = new ArrayList<>();
        try (QuietLogs quiet = new QuietLogs()) {
            try (ChildProcesses children = new ChildProcesses();
                    LocalCluster one = start(1, dir.resolve("one"), children)) {
                rows.add(row(one, "1 shard, idle", 0, true, dir));
                rows.add(row(one, "1 shard, cluster mode", 4, true, dir));
                rows.add(row(one, "1 shard, pair mode", 4, false, dir));
                rows.add(row(one, "1 shard, cluster mode (again)", 4, true, dir));
            }
            try (ChildProcesses children = new ChildProcesses();
                    LocalCluster three = start(3, dir.resolve("three"), children)) {
                rows.add(row(three, "3 shards, idle", 0, true, dir));
                rows.add(row(three, "3 shards, cluster mode", 1, true, dir));
                rows.add(row(three, "3 shards, cluster mode", 4, true, dir));
                rows.add(row(three, "3 shards, cluster mode", 12, true, dir));
                rows.add(row(three, "3 shards, cluster mode (again)", 4, true, dir));
            }
            try (ChildProcesses children = new ChildProcesses();
                    LocalCluster three = start(3, dir.resolve("three-6s"), children, Duration.ofSeconds(6))) {
                rows.add(row(three, "3 shards, cluster mode, 6 s session", 4, true, dir));
            }
        }
        System.out.println(
                "| layout | clients x in flight | acked writes/s | p50 ms | p99 ms | failed | CPU of this JVM"
                        + " (cores) | CPU of the node JVMs (cores) | of which JIT compiler threads | busiest node (cores) | primary lease samples not held |"
                        + " failed lease renewals, revocations |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        rows.forEach(System.out::println);
    }

    private static LocalCluster start(int shards, Path dir, ChildProcesses children) throws Exception {
        return start(shards, dir, children, Duration.ofSeconds(2));
    }

    private static LocalCluster start(int shards, Path dir, ChildProcesses children, Duration session)
            throws Exception {
        Files.createDirectories(dir);
        return LocalCluster.start(
                new LocalCluster.Settings(
                        "probe",
                        shards,
                        LocalCluster.freeBasePort(shards),
                        Duration.ofMillis(1),
                        session,
                        "256m",
                        Duration.ofSeconds(120)),
                dir,
                JavaCommand.current(),
                children);
    }

    private static String row(LocalCluster cluster, String layout, int clients, boolean clusterMode, Path dir)
            throws Exception {
        List<String> endpoints = new ArrayList<>();
        for (LocalCluster.Node n : cluster.nodes())
            endpoints.add(n.ports().host() + ":" + n.ports().client());
        if (!clusterMode) endpoints = endpoints.subList(0, 2); // shard-0's primary, then its backup
        Path acks = dir.resolve("acks-" + System.nanoTime() + ".tsv");
        LoadResult r;
        long[] leaseBefore = leaseCounts(cluster);
        LeaseSampler sampler = new LeaseSampler(cluster);
        sampler.start();
        java.util.Map<String, Long> threadsBefore = threadCpu(cluster);
        long[] nodesBefore = nodeCpu(cluster);
        long selfBefore = selfCpuNanos();
        long wallBefore = System.nanoTime();
        if (clients == 0) {
            Thread.sleep(RUN.toMillis()); // idle: what the processes cost with no load
            r = new LoadResult("id-first", 0, 256, 0, 0, 0, java.util.Map.of(), RUN.toSeconds(), 0, 0);
        } else
            try (AckLog.Writer w = new AckLog.Writer(acks, "id-first")) {
                LoadGenerator gen = new LoadGenerator(
                        new LoadGenerator.Settings(
                                endpoints,
                                ReplicationMode.ID_FIRST,
                                clients,
                                256,
                                PIPELINE,
                                Duration.ofSeconds(8),
                                "probe-" + Long.toHexString(System.nanoTime()),
                                NodeAccess.PLAIN,
                                clusterMode,
                                null),
                        w);
                gen.start();
                Thread.sleep(RUN.toMillis()); // the run's length, not a synchronisation
                r = gen.stop(Duration.ofSeconds(5));
            }
        double wall = (System.nanoTime() - wallBefore) / 1e9;
        long[] nodesAfter = nodeCpu(cluster);
        java.util.Map<String, Long> threadsAfter = threadCpu(cluster);
        sampler.stop();
        long[] leaseAfter = leaseCounts(cluster);
        double self = (selfCpuNanos() - selfBefore) / 1e9 / wall;
        double nodes = 0;
        double busiest = 0;
        for (int i = 0; i < nodesAfter.length; i++) {
            double cores = (nodesAfter[i] - nodesBefore[i]) / (double) TICKS / wall;
            nodes += cores;
            busiest = Math.max(busiest, cores);
        }
        if (clients > 0) assertThat(r.acked()).as(layout).isPositive();
        java.util.Map<String, Long> threadTicks = new java.util.TreeMap<>();
        threadsAfter.forEach((t, v) ->
                threadTicks.merge(t.replaceAll("[0-9]+", "#"), v - threadsBefore.getOrDefault(t, 0L), Long::sum));
        double compiler = threadTicks.entrySet().stream()
                        .filter(e -> e.getKey().contains("CompilerThre"))
                        .mapToLong(java.util.Map.Entry::getValue)
                        .sum()
                / (double) TICKS
                / wall;
        StringBuilder top = new StringBuilder();
        threadTicks.entrySet().stream()
                .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(8)
                .forEach(e -> top.append(
                        String.format(Locale.ROOT, " %s %.2f;", e.getKey(), e.getValue() / (double) TICKS / wall)));
        System.out.println(
                "node threads (cores, summed over nodes, by role/name) of " + layout + " " + clients + ":" + top);
        return String.format(
                Locale.ROOT,
                "| %s | %d x %d | %,.0f | %.1f | %.1f | %,d %s | %.2f | %.2f | %.2f | %.2f | %d of %d | %d, %d |",
                layout,
                clients,
                PIPELINE,
                r.writesPerSecond(),
                r.p50Micros() / 1000.0,
                r.p99Micros() / 1000.0,
                r.failed(),
                r.failures(),
                self,
                nodes,
                compiler,
                busiest,
                sampler.notHeld,
                sampler.samples,
                leaseAfter[0] - leaseBefore[0],
                leaseAfter[1] - leaseBefore[1]);
    }

    /** The primaries' failed lease renewals and revocations so far, summed (from their {@code /status}). */
    private static long[] leaseCounts(LocalCluster cluster) {
        long[] c = new long[2];
        for (LocalCluster.Node n : cluster.nodes()) {
            if (!n.role().equals("primary")) continue;
            JsonNode lease = cluster.admin(n, "/status").path("coordination").path("lease");
            c[0] += lease.path("failedRenewals").asLong();
            c[1] += lease.path("revocations").asLong();
        }
        return c;
    }

    /** Asks each primary every 100 ms whether its lease holds, counting the answers. */
    private static final class LeaseSampler {
        private final LocalCluster cluster;
        private final Thread thread;
        private volatile boolean stopping;
        volatile int samples;
        volatile int notHeld;

        LeaseSampler(LocalCluster cluster) {
            this.cluster = cluster;
            this.thread = new Thread(this::run, "lease-sampler");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            stopping = true;
            thread.join();
        }

        private void run() {
            while (!stopping) {
                for (LocalCluster.Node n : cluster.nodes()) {
                    if (!n.role().equals("primary")) continue;
                    boolean held = cluster.admin(n, "/status")
                            .path("coordination")
                            .path("lease")
                            .path("held")
                            .asBoolean();
                    samples++;
                    if (!held) notHeld++;
                }
                LockSupport.parkNanos(100_000_000L); // the sampling period
            }
        }
    }

    /** Each node thread's CPU ticks so far, keyed by role, pid, tid and name ({@code /proc/PID/task}). */
    private static java.util.Map<String, Long> threadCpu(LocalCluster cluster) throws IOException {
        java.util.Map<String, Long> out = new java.util.HashMap<>();
        for (LocalCluster.Node n : cluster.nodes()) {
            Path tasks = Path.of("/proc/" + n.process().pid() + "/task");
            try (var dirs = Files.list(tasks)) {
                for (Path t : dirs.toList()) {
                    try {
                        String stat = Files.readString(t.resolve("stat"));
                        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        out.put(
                                n.role() + " " + name + " @" + t.getFileName() + "/"
                                        + n.process().pid(),
                                Long.parseLong(f[11]) + Long.parseLong(f[12]));
                    } catch (IOException gone) {
                        // the thread ended
                    }
                }
            }
        }
        return out;
    }

    private static long selfCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Each node process's user + system CPU so far, in clock ticks (from {@code /proc/PID/stat}). */
    private static long[] nodeCpu(LocalCluster cluster) throws IOException {
        List<LocalCluster.Node> nodes = cluster.nodes();
        long[] ticks = new long[nodes.size()];
        for (int i = 0; i < ticks.length; i++) {
            String stat =
                    Files.readString(Path.of("/proc/" + nodes.get(i).process().pid() + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks[i] = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
        }
        return ticks;
    }
}
