package dev.kvs.bench.drill;

import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.NodeAccess;
import dev.kvs.bench.shards.LocalCluster;
import dev.kvs.client.Acknowledgements;
import dev.kvs.client.KvsClient;
import dev.kvs.client.ReplicationMode;
import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One sharded drill in one mode: a whole cluster on this machine ({@link LocalCluster}: ZooKeeper, N
 * shards x 2 DCs), loaded by the SDK in cluster mode, one disaster struck mid-load (on one shard, or on a
 * whole DC: {@link Disaster#isolatesDc()}, held for {@value #HOLD_SESSIONS} session timeouts then healed
 * with the load still running), no admin call (the nodes' coordinator promotes), then every acknowledged
 * write read back through a cluster-mode client and classified per shard. Each write's acknowledging
 * node and its send and answer times are heard from the SDK ({@link Acknowledgements}) on this JVM's
 * monotonic clock, for the failover times and the {@link Overlaps overlap check}.
 */
final class ShardDrill {
    private static final Duration DRAIN = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(8);
    /** How long a DC stays isolated, in session timeouts: the "no promotion over 3 session timeouts". */
    static final int HOLD_SESSIONS = 3;
    /** The load runs at least this long after a heal, to see writes resume. */
    private static final Duration AFTER_HEAL = Duration.ofSeconds(5);

    /**
     * @param mode the nodes' and clients' replication mode
     * @param disaster what strikes shard {@code struck}
     * @param shards how many shards
     * @param struck the shard struck, 0-based
     * @param disasterAt when, into the load
     * @param load the load's shape
     * @param sessionTimeout the nodes' ZooKeeper session timeout
     * @param startTimeout how long the cluster may take to start
     */
    record Settings(
            ReplicationMode mode,
            Disaster disaster,
            int shards,
            int struck,
            Duration disasterAt,
            DrillRun.LoadShape load,
            Duration sessionTimeout,
            Duration startTimeout) {}

    /**
     * One shard's line.
     *
     * @param shard its id
     * @param outcome its acknowledged writes, classified
     * @param epochBefore its epoch in the map before the disaster
     * @param epochAfter after the drill
     * @param primaryBefore the node the map named primary before
     * @param primaryAfter after
     * @param gapMs last acknowledgement by the old primary to the first by another node, ms; null if none
     * @param disasterToNewMs the disaster to the first acknowledgement by another node, ms; null if none
     * @param disasterToPromotedMs while a DC is isolated: the disaster to when the shard's DC-b node first
     *     reported itself primary, ms; null if it did not (or no DC was isolated)
     * @param healToAckMs the heal to the first acknowledgement answered after it, ms; null if no heal or none
     * @param oldPrimaryRole the role the old primary's {@code /status} reports at the end ({@code dead} if
     *     its process is gone)
     * @param overlap the overlap check of its acknowledgements
     */
    record ShardLine(
            String shard,
            Classification outcome,
            long epochBefore,
            long epochAfter,
            String primaryBefore,
            String primaryAfter,
            Double gapMs,
            Double disasterToNewMs,
            Double disasterToPromotedMs,
            Double healToAckMs,
            String oldPrimaryRole,
            Overlaps.Result overlap) {}

    /** A run: the load and each shard's line; {@code healAtSeconds} is null if nothing was healed. */
    record Result(
            String mode,
            String disaster,
            String struck,
            double disasterAtSeconds,
            Double healAtSeconds,
            LoadResult load,
            List<ShardLine> lines) {
        long dataLoss() {
            return lines.stream().mapToLong(l -> l.outcome().dataLoss()).sum();
        }

        long definiteOverlaps() {
            return lines.stream().mapToLong(l -> l.overlap().definite()).sum();
        }
    }

    private ShardDrill() {}

    static Result run(Settings s, Path dir, JavaCommand java, ChildProcesses children, PrintWriter err)
            throws InterruptedException {
        String mode = s.mode().label();
        LocalCluster.Settings cs = new LocalCluster.Settings(
                "drill",
                s.shards(),
                LocalCluster.freeBasePort(s.shards()),
                Duration.ofMillis(1),
                s.sessionTimeout(),
                "256m",
                s.startTimeout(),
                mode);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
        err.printf("%s: starting ZooKeeper and %d shards x 2 DCs (logs in %s)%n", mode, s.shards(), dir);
        err.flush();
        try (LocalCluster cluster = LocalCluster.start(cs, dir, java, children)) {
            ClusterMap before = cluster.currentMap();
            Map<String, String> nameByEndpoint = new HashMap<>();
            Map<String, String> nameById = new HashMap<>();
            List<String> seeds = new ArrayList<>();
            for (LocalCluster.Node n : cluster.nodes()) {
                String endpoint = n.ports().host() + ":" + n.ports().client();
                nameByEndpoint.put(endpoint, n.name());
                nameById.put(n.id(), n.name());
                seeds.add(endpoint);
            }
            Map<String, Overlaps.Ack> heard = new ConcurrentHashMap<>();
            Acknowledgements listener = (keys, node, sent, answered) -> heard.put(
                    new String(keys.get(0), StandardCharsets.US_ASCII),
                    new Overlaps.Ack(nameByEndpoint.getOrDefault(node, node), sent, answered));
            Path ackFile = dir.resolve("acked.tsv");
            LoadResult load;
            long disasterNanos;
            double disasterAt;
            long healNanos = 0;
            Double healAt = null;
            Map<String, Double> promoted = Map.of();
            try (AckLog.Writer acks = new AckLog.Writer(ackFile, mode)) {
                LoadGenerator gen = new LoadGenerator(
                        new LoadGenerator.Settings(
                                seeds,
                                s.mode(),
                                s.load().clients(),
                                s.load().valueSize(),
                                s.load().pipeline(),
                                REQUEST_TIMEOUT,
                                "drill-" + mode + "-" + Long.toHexString(System.nanoTime() & 0xffffff),
                                NodeAccess.PLAIN,
                                true,
                                listener),
                        acks);
                double seconds = s.load().duration().toMillis() / 1000.0;
                gen.start();
                sleepUntil(gen, s.disasterAt().toMillis() / 1000.0);
                disasterAt = gen.elapsedSeconds();
                disasterNanos = System.nanoTime();
                strike(cluster, s);
                err.printf(
                        "%s: %s on %s at %.1f s (acked so far %,d)%n",
                        mode, s.disaster().label(), target(s), disasterAt, gen.acked());
                err.flush();
                if (s.disaster().isolatesDc()) {
                    promoted = watchPromotions(
                            cluster,
                            disasterNanos,
                            disasterNanos + HOLD_SESSIONS * s.sessionTimeout().toNanos());
                    healAt = gen.elapsedSeconds();
                    healNanos = System.nanoTime();
                    cluster.healDc(isolatedDc(s.disaster()));
                    err.printf("%s: healed at %.1f s (acked so far %,d)%n", mode, healAt, gen.acked());
                    err.flush();
                    seconds = Math.max(seconds, healAt + AFTER_HEAL.toMillis() / 1000.0);
                }
                sleepUntil(gen, seconds);
                load = gen.stop(DRAIN);
                acks.summary(load);
            }
            if (s.disaster() == Disaster.KILL_PRIMARY)
                awaitPromotion(cluster, before, "shard-" + s.struck(), s.sessionTimeout());
            if (s.disaster() == Disaster.ISOLATE_DC) {
                for (Shard shard : before.shards()) awaitPromotion(cluster, before, shard.id(), s.sessionTimeout());
                awaitBackups(cluster, isolatedDc(s.disaster()), s.sessionTimeout());
            }
            ClusterMap after = cluster.currentMap();
            List<AckedWrite> writes = AckLog.read(ackFile).writes();
            err.printf("%s: reading back %,d acknowledged writes through a cluster-mode client%n", mode, writes.size());
            err.flush();
            List<String> liveSeeds = new ArrayList<>();
            for (LocalCluster.Node n : cluster.nodes()) {
                if (n.process().isAlive())
                    liveSeeds.add(n.ports().host() + ":" + n.ports().client());
            }
            List<ShardLine> lines = new ArrayList<>();
            try (QuietLogs quiet = new QuietLogs();
                    KvsClient reader = KvsClient.builder()
                            .cluster(liveSeeds)
                            .unfinishedRetryDeadline(Duration.ZERO)
                            .requestTimeout(Duration.ofSeconds(10))
                            .maxPending(VerifyCommand.WINDOW + 16)
                            .clientName("kvs-drill-verify")
                            .build()) {
                Verifier verifier = new Verifier(reader::getAsync, VerifyCommand.WINDOW, Duration.ofSeconds(15));
                for (Shard shard : before.shards()) {
                    List<AckedWrite> mine = new ArrayList<>();
                    List<Overlaps.Ack> attributed = new ArrayList<>();
                    for (AckedWrite w : writes) {
                        if (!before.shardOf(HashSlots.slot(w.key().getBytes(StandardCharsets.US_ASCII)))
                                .id()
                                .equals(shard.id())) continue;
                        mine.add(w);
                        Overlaps.Ack a = heard.get(w.key());
                        if (a != null) attributed.add(a);
                    }
                    Shard now = after.shard(shard.id()).orElseThrow();
                    String oldPrimary = nameById.get(shard.primary());
                    LocalCluster.Node old = cluster.nodes().stream()
                            .filter(n -> n.name().equals(oldPrimary))
                            .findFirst()
                            .orElseThrow();
                    lines.add(new ShardLine(
                            shard.id(),
                            verifier.verify(mine),
                            shard.epoch(),
                            now.epoch(),
                            oldPrimary,
                            nameById.get(now.primary()),
                            gapMs(attributed, oldPrimary),
                            firstOtherMs(attributed, oldPrimary, disasterNanos),
                            promoted.get(shard.id()),
                            healAt == null ? null : firstAfterMs(attributed, healNanos),
                            role(cluster, old),
                            Overlaps.check(attributed)));
                }
            }
            return new Result(mode, s.disaster().label(), target(s), disasterAt, healAt, load, lines);
        }
    }

    private static void strike(LocalCluster cluster, Settings s) {
        switch (s.disaster()) {
            case KILL_PRIMARY -> cluster.nodes().get(2 * s.struck()).process().kill();
            case CUT_LINK -> cluster.cutLink(s.struck());
            case ISOLATE_DC, ISOLATE_BACKUP_DC -> cluster.isolateDc(isolatedDc(s.disaster()));
        }
    }

    /** What the disaster strikes: {@code shard-N}, or {@code dc-a} / {@code dc-b}. */
    private static String target(Settings s) {
        return s.disaster().isolatesDc() ? "dc-" + isolatedDc(s.disaster()) : "shard-" + s.struck();
    }

    /** DC a holds the primaries when the cluster starts, DC b the backups ({@link LocalCluster#DCS}). */
    private static String isolatedDc(Disaster d) {
        return d == Disaster.ISOLATE_DC ? LocalCluster.DCS.get(0) : LocalCluster.DCS.get(1);
    }

    /**
     * Waits (polling their {@code /status}, the only view from outside) until every node of DC {@code dc}
     * reports itself a backup, as the old primaries must once healed and following the map; gives up
     * after 10 session timeouts, leaving the table to show the role they had.
     */
    private static void awaitBackups(LocalCluster cluster, String dc, Duration session) throws InterruptedException {
        long deadline = System.nanoTime() + 10 * session.toNanos();
        for (LocalCluster.Node n : cluster.nodes()) {
            if (!n.dc().equals(dc)) continue;
            while (!role(cluster, n).equals("backup") && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    /**
     * Until {@code untilNanos}, watches every DC-b node's {@code /status} (each 100 ms: the drill's own
     * schedule, the admin port being the only view from outside) and returns, per shard, how long after
     * {@code disasterNanos} its DC-b node first reported itself primary; shards whose node never did are
     * absent.
     */
    private static Map<String, Double> watchPromotions(LocalCluster cluster, long disasterNanos, long untilNanos)
            throws InterruptedException {
        Map<String, Double> promoted = new HashMap<>();
        List<LocalCluster.Node> watched = cluster.nodes().stream()
                .filter(n -> n.dc().equals(LocalCluster.DCS.get(1)))
                .toList();
        while (System.nanoTime() < untilNanos) {
            for (LocalCluster.Node n : watched) {
                if (!promoted.containsKey(n.shard()) && role(cluster, n).equals("primary")) {
                    promoted.put(n.shard(), (System.nanoTime() - disasterNanos) / 1e6);
                }
            }
            long left = untilNanos - System.nanoTime();
            if (left > 0) TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
        }
        return promoted;
    }

    /** The role {@code node}'s {@code /status} reports now; {@code dead} or {@code unreachable} if none. */
    private static String role(LocalCluster cluster, LocalCluster.Node node) {
        if (!node.process().isAlive()) return "dead";
        try {
            return cluster.admin(node, "/status").path("role").asText("?");
        } catch (RuntimeException e) {
            return "unreachable";
        }
    }

    /** The heal to the first acknowledgement answered after it, ms; null if none. */
    static Double firstAfterMs(List<Overlaps.Ack> acks, long healNanos) {
        long first = acks.stream()
                .mapToLong(Overlaps.Ack::answeredNanos)
                .filter(t -> t >= healNanos)
                .min()
                .orElse(Long.MAX_VALUE);
        return first == Long.MAX_VALUE ? null : (first - healNanos) / 1e6;
    }

    /** Waits (polling the map, the drill's own schedule) until the struck shard's epoch moved, or gives up. */
    private static void awaitPromotion(LocalCluster cluster, ClusterMap before, String shard, Duration session)
            throws InterruptedException {
        long epoch = before.shard(shard).orElseThrow().epoch();
        long deadline = System.nanoTime() + session.toNanos() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (cluster.currentMap().shard(shard).orElseThrow().epoch() != epoch) return;
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    /** The old primary's last acknowledgement to the first by another node, ms; null if either is missing. */
    static Double gapMs(List<Overlaps.Ack> acks, String oldPrimary) {
        long lastOld = Long.MIN_VALUE;
        long firstNew = Long.MAX_VALUE;
        for (Overlaps.Ack a : acks) {
            if (a.node().equals(oldPrimary)) lastOld = Math.max(lastOld, a.answeredNanos());
            else firstNew = Math.min(firstNew, a.answeredNanos());
        }
        if (lastOld == Long.MIN_VALUE || firstNew == Long.MAX_VALUE) return null;
        return (firstNew - lastOld) / 1e6;
    }

    private static Double firstOtherMs(List<Overlaps.Ack> acks, String oldPrimary, long disasterNanos) {
        long firstNew = acks.stream()
                .filter(a -> !a.node().equals(oldPrimary))
                .mapToLong(Overlaps.Ack::answeredNanos)
                .min()
                .orElse(Long.MAX_VALUE);
        return firstNew == Long.MAX_VALUE ? null : (firstNew - disasterNanos) / 1e6;
    }

    private static void sleepUntil(LoadGenerator gen, double seconds) throws InterruptedException {
        long ms = Math.round((seconds - gen.elapsedSeconds()) * 1000);
        if (ms > 0) TimeUnit.MILLISECONDS.sleep(ms);
    }
}
