package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.NodeIds;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.EmbeddedZooKeeper;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.cli.CliErrorHandler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code kvs cluster init} and {@code show} against a real ZooKeeper server ({@link EmbeddedZooKeeper}). */
class ClusterInitCommandTest {
    private static final String CREDENTIALS = "ops:s3cret";

    @TempDir
    Path dir;

    private EmbeddedZooKeeper zookeeper;
    private Path credentialsFile;

    @BeforeEach
    void start() throws Exception {
        zookeeper = EmbeddedZooKeeper.start(
                dir.resolve("zk"), LocalPorts.freeBlock(1).zookeeper(), LocalCluster.TICK_MS);
        credentialsFile = Files.writeString(dir.resolve("credentials"), CREDENTIALS + "\n");
    }

    @AfterEach
    void stop() {
        if (zookeeper != null) zookeeper.close();
    }

    /** Exit code, stdout and stderr of {@code kvs cluster ARGS}. */
    private record Run(int code, String out, String err) {}

    private Run kvsCluster(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = CliErrorHandler.install(new CommandLine(new ClusterCommand()))
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private ClusterMapStore.Versioned readBack(String cluster) throws Exception {
        try (CuratorFramework zk = ZkClients.start(
                new ZkClients.Settings(zookeeper.connectString(), Duration.ofSeconds(6), Optional.of(CREDENTIALS)))) {
            assertThat(zk.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
            return new ClusterMapStore(zk, new ZkPaths(cluster)).read().orElseThrow();
        }
    }

    private String[] init(String cluster, String... layout) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "init",
                "--zookeeper",
                zookeeper.connectString(),
                "--cluster",
                cluster,
                "--credentials-file",
                credentialsFile.toString()));
        args.addAll(List.of(layout));
        return args.toArray(String[]::new);
    }

    @Test
    void initWritesTheMapByNodeIdAndASecondInitIsRefused() throws Exception {
        Run first = kvsCluster(init("prod", "--shard", "s0=dc1-a,dc2-a", "--shard", "s1=dc1-b,dc2-b"));
        assertThat(first.code()).as(first.err()).isZero();
        assertThat(first.out())
                .contains("2 shards, 16384 slots covered, map version 0")
                .contains("dc1-a", NodeIds.of("prod", "dc1-a"), "0-8191", "8192-16383");

        ClusterMapStore.Versioned stored = readBack("prod");
        ClusterMap expected = new ClusterMap(List.of(
                new Shard(
                        "s0",
                        List.of(new SlotRange(0, 8191)),
                        List.of(NodeIds.of("prod", "dc1-a"), NodeIds.of("prod", "dc2-a")),
                        NodeIds.of("prod", "dc1-a"),
                        1),
                new Shard(
                        "s1",
                        List.of(new SlotRange(8192, 16383)),
                        List.of(NodeIds.of("prod", "dc1-b"), NodeIds.of("prod", "dc2-b")),
                        NodeIds.of("prod", "dc1-b"),
                        1)));
        assertThat(stored.map()).isEqualTo(expected);

        Run second = kvsCluster(init("prod", "--shards", "3"));
        assertThat(second.code()).isEqualTo(CliErrorHandler.FAILURE);
        assertThat(second.err())
                .contains("cluster init: cluster 'prod' already has a map (/kvs/prod/map, version 0): init never"
                        + " replaces one");
        assertThat(readBack("prod")).isEqualTo(stored);

        Run show = kvsCluster(
                "show",
                "--zookeeper",
                zookeeper.connectString(),
                "--cluster",
                "prod",
                "--credentials-file",
                credentialsFile.toString());
        assertThat(show.code()).as(show.err()).isZero();
        assertThat(show.out()).contains(NodeIds.of("prod", "dc2-b"), "8192-16383", "primary", "backup");
    }

    @Test
    void shardsCountSplitsAsRedisCliDoesWithTheLaunchersNames() throws Exception {
        Run run = kvsCluster(init("three", "--shards", "3"));
        assertThat(run.code()).as(run.err()).isZero();
        ClusterMap map = readBack("three").map();
        assertThat(map.shards())
                .extracting(s -> s.slots().get(0).toString())
                .containsExactly("0-5460", "5461-10921", "10922-16383");
        assertThat(map.shard("shard-2").orElseThrow().primary()).isEqualTo(NodeIds.of("three", "shard-2-a"));
    }

    @Test
    void badLayoutsAndOtherCredentialsAreRefusedClearly() throws Exception {
        Run bad = kvsCluster(init("c", "--shard", "s0"));
        assertThat(bad.code()).isEqualTo(CliErrorHandler.USAGE);
        assertThat(bad.err()).contains("--shard is not ID=PRIMARY,BACKUP (e.g. shard-0=dc1-a,dc2-a): s0");

        Run twice = kvsCluster(init("c", "--shard", "s0=a,b", "--shard", "s1=b,c"));
        assertThat(twice.code()).isEqualTo(CliErrorHandler.USAGE);
        assertThat(twice.err()).contains("node name used twice: b");

        Run both = kvsCluster(init("c", "--shards", "2", "--shard", "s0=a,b"));
        assertThat(both.code()).isEqualTo(CliErrorHandler.USAGE);
        assertThat(both.err()).contains("mutually exclusive");

        Run noPort = kvsCluster("init", "--zookeeper", "zk-without-port", "--cluster", "c", "--shards", "1");
        assertThat(noPort.code()).isEqualTo(CliErrorHandler.USAGE);
        assertThat(noPort.err()).contains("--zookeeper is not HOST:PORT: zk-without-port");

        assertThat(kvsCluster(init("owned", "--shards", "1")).code()).isZero();
        Path other = Files.writeString(dir.resolve("other"), "intruder:guess");
        Run show = kvsCluster(
                "show",
                "--zookeeper",
                zookeeper.connectString(),
                "--cluster",
                "owned",
                "--credentials-file",
                other.toString());
        assertThat(show.code()).isEqualTo(CliErrorHandler.FAILURE);
        assertThat(show.err()).contains("NoAuth").contains("belong to other credentials");
    }
}
