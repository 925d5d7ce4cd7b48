package dev.kvs.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.NodeStartException;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.NodeConfigLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class ServerCommandTest {
    @TempDir
    Path dir;

    private final StubNode node = new StubNode();
    private final AtomicReference<NodeConfig> started = new AtomicReference<>();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void withoutFlagsTheDefaultsStart() {
        assertThat(run()).isZero();
        assertThat(started.get()).isEqualTo(NodeConfig.builder().build());
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void flagsOverrideTheConfigFile() throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, """
                name: from-file
                cluster: file-cluster
                port: 7000
                mode: sync
                store:
                  maxEntries: 50
                  maxKeyBytes: 1KiB
                """);

        assertThat(run("--config", file.toString(), "--port", "7001", "--max-bytes", "2GiB"))
                .isZero();

        NodeConfig c = started.get();
        assertThat(c.port()).isEqualTo(7001);
        assertThat(c.name()).isEqualTo("from-file");
        assertThat(c.cluster()).isEqualTo("file-cluster");
        assertThat(c.mode()).isEqualTo(ReplicationMode.SYNC);
        assertThat(c.store().maxEntries()).isEqualTo(50);
        assertThat(c.store().maxKeyBytes()).isEqualTo(1024);
        assertThat(c.store().maxBytes()).isEqualTo(2L << 30);
    }

    @Test
    void everyFlagSetsItsField() throws Exception {
        assertThat(run(
                        "--name=b1",
                        "--cluster=c1",
                        "--role=BACKUP",
                        "--bind=0.0.0.0",
                        "--repl-bind=127.0.0.1",
                        "--admin-bind=127.0.0.2",
                        "--port=1",
                        "--repl-port=2",
                        "--admin-port=3",
                        "--peer=p:4",
                        "--mode=async",
                        "--data-dir=" + dir,
                        "--requirepass=pw",
                        "--max-bulk-bytes=1MiB",
                        "--max-entries=99",
                        "--max-bytes=10MB",
                        "--cluster-secret-file=" + secretFile(),
                        "--insecure-replication",
                        "--protected-mode=off"))
                .isZero();

        NodeConfig c = started.get();
        assertThat(c)
                .isEqualTo(NodeConfig.builder()
                        .name("b1")
                        .cluster("c1")
                        .role(Role.BACKUP)
                        .bind("0.0.0.0")
                        .replBind("127.0.0.1")
                        .adminBind("127.0.0.2")
                        .port(1)
                        .replPort(2)
                        .adminPort(3)
                        .peer("p:4")
                        .mode(ReplicationMode.ASYNC)
                        .requirepass("pw")
                        .clusterSecret("a-secret-of-sixteen+")
                        .insecureReplication(true)
                        .maxBulkBytes(1 << 20)
                        .protectedMode(false)
                        .store(new StoreConfig(
                                99,
                                10_000_000,
                                StoreConfig.DEFAULT_MAX_KEY_BYTES,
                                StoreConfig.DEFAULT_MAX_VALUE_BYTES,
                                Optional.of(dir)))
                        .build());
    }

    @Test
    void flowControlFlagOverridesTheConfigFileAndKeepsItsOtherSettings() throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, """
                replication:
                  valueStreams: 3
                  flowControl:
                    enabled: true
                    targetMs: 2.5
                    dscp: true
                """);

        assertThat(run("--config", file.toString(), "--flow-control", "off"))
                .as("%s", err)
                .isZero();

        NodeConfig c = started.get();
        assertThat(c.replication().flowControl())
                .isEqualTo(FlowControlConfig.builder()
                        .enabled(false)
                        .target(Duration.ofNanos(2_500_000))
                        .dscp(true)
                        .build());
        assertThat(c.replication().valueStreams()).isEqualTo(3);
        assertThat(c.replication().toString().replace("enabled=false", "enabled=true"))
                .as("only enabled changes")
                .isEqualTo(NodeConfigLoader.load(file).replication().toString());
    }

    @Test
    void flowControlFlagTurnsItOnOverTheConfigFile() throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, "replication:\n  flowControl:\n    enabled: false\n");

        assertThat(run("--config", file.toString(), "--flow-control", "ON"))
                .as("%s", err)
                .isZero();

        assertThat(started.get().replication().flowControl().enabled()).isTrue();
    }

    @Test
    void withoutTheFlowControlFlagTheConfigFileDecides() throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, "replication:\n  flowControl:\n    enabled: false\n");

        assertThat(run("--config", file.toString())).isZero();

        assertThat(started.get().replication().flowControl().enabled()).isFalse();
    }

    @Test
    void badFlowControlValueIsQuoted() {
        assertThat(run("--flow-control", "maybe")).isEqualTo(2);
        assertOneLineError("kvs-test server: Invalid value for option '--flow-control': not on or off: maybe;"
                + " see 'kvs-test server --help'");
    }

    @Test
    void printsOneLineSayingWhereItListens() {
        run("--name", "n1", "--bind", "127.0.0.1");
        assertThat(out.toString())
                .isEqualTo("kvs node 'n1' (primary, cluster 'kvs', mode id-first) listening on 127.0.0.1:"
                        + " clients 16380, replication 17380, admin http://127.0.0.1:18380/status"
                        + System.lineSeparator());
    }

    @Test
    void blocksUntilTheNodeStopsThenExitsZero() {
        node.blockUntilClosed = true;
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(this::run);
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() != null);
        assertThat(exit).isNotDone();

        node.close();

        assertThat(exit).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(0);
    }

    @Test
    void badFlagValueExitsWithCode2AndOneLine() {
        assertThat(run("--port", "abc")).isEqualTo(2);
        assertOneLineError("kvs-test server: Invalid value for option '--port': 'abc' is not an int;"
                + " see 'kvs-test server --help'");
        assertThat(started.get()).isNull();
    }

    @Test
    void aNegativeWarmUpExitsWithCode2AndStartsNothing() {
        assertThat(run("--warm-up", "-1")).isEqualTo(2);
        assertOneLineError("kvs-test server: config error: --warm-up < 0: -1");
        assertThat(started.get()).isNull();
    }

    @Test
    void outOfRangePortExitsWithCode2NamingTheField() {
        assertThat(run("--port", "70000")).isEqualTo(2);
        assertOneLineError("kvs-test server: config error: port is not in 0..65535: 70000");
    }

    @Test
    void aLoopbackPrimaryWhosePeerIsRemoteRefusesToStartWithoutASecret() {
        assertThat(run("--peer", "10.20.30.40:7380")).isEqualTo(2);
        assertOneLineError("kvs-test server: config error: peer 10.20.30.40:7380 is not a loopback address, and"
                + " replication has no clusterSecret and no tls: this node would send its writes to whoever"
                + " answers at that address, unauthenticated and in clear. Set the same clusterSecret (or"
                + " clusterSecretFile) on both nodes, or tls, or insecureReplication: true to accept that");
        assertThat(started.get()).isNull();

        assertThat(run("--peer", "10.20.30.40:7380", "--insecure-replication")).isZero();
        assertThat(started.get().peer()).hasValue("10.20.30.40:7380");
    }

    @Test
    void badRoleModeAndSizeAreQuoted() {
        assertThat(run("--role", "leader")).isEqualTo(2);
        assertThat(run("--mode", "fast")).isEqualTo(2);
        assertThat(run("--max-bytes", "12XB")).isEqualTo(2);
        assertThat(run("--peer", "nohost")).isEqualTo(2);
        assertThat(err.toString())
                .contains("role is not primary|backup: leader")
                .contains("mode is not id-first|id-first-after-reply|sync|async: fast")
                .contains("not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): 12XB")
                .contains("peer is not HOST:PORT: nohost");
        assertThat(err.toString().lines()).hasSize(4);
    }

    @Test
    void theTokenEnvironmentVariableSetsTheAdminTokenOverTheConfigFile() throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, "admin:\n  token: from-the-file-0123456789\n  openReads: false\n");

        assertThat(runWithEnv(
                        Map.of(ServerCommand.ADMIN_TOKEN_ENV, "from-the-environment-0123"),
                        "--config",
                        file.toString()))
                .isZero();

        assertThat(started.get().admin().token()).hasValue("from-the-environment-0123");
        assertThat(started.get().admin().openReads()).isFalse();
    }

    @Test
    void zookeeperAndShardJoinTheClusterWithCredentialsFromTheEnvironment() {
        assertThat(runWithEnv(
                        Map.of(CoordinationConfig.CREDENTIALS_ENV, "kvs:s3cret"),
                        "--zookeeper",
                        "zk1:2181,zk2:2181",
                        "--shard",
                        "shard-0"))
                .isZero();
        CoordinationConfig c = started.get().coordination().orElseThrow();
        assertThat(c.zookeeper()).isEqualTo("zk1:2181,zk2:2181");
        assertThat(c.shard()).isEqualTo("shard-0");
        assertThat(c.sessionTimeout()).isEqualTo(CoordinationConfig.DEFAULT_SESSION_TIMEOUT);
        assertThat(c.credentials()).hasValue("kvs:s3cret");
        assertThat(started.get().toString()).doesNotContain("s3cret");
    }

    @Test
    void dcNamesTheNodesDatacenterAndNeedsZookeeper() {
        assertThat(run("--zookeeper", "zk1:2181", "--shard", "shard-0", "--dc", "east"))
                .isZero();
        assertThat(started.get().coordination().orElseThrow().dc()).isEqualTo("east");
        started.set(null);
        assertThat(run("--dc", "east")).isEqualTo(2);
        assertThat(err.toString()).contains("--dc east needs --zookeeper");
        assertThat(run("--zookeeper", "zk1:2181", "--shard", "s", "--dc", "a/b"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("coordination.dc must be 0-64 of [A-Za-z0-9_.-]: a/b");
        assertThat(started.get()).isNull();
    }

    @Test
    void aShardWithoutZookeeperOrABadEnsembleExitsWithCode2QuotingTheValue() {
        assertThat(run("--shard", "shard-0")).isEqualTo(2);
        assertThat(err.toString()).contains("--shard shard-0 needs --zookeeper");
        assertThat(run("--zookeeper", "zk1:2181,zk2", "--shard", "s")).isEqualTo(2);
        assertThat(err.toString()).contains("coordination.zookeeper is not HOST:PORT: zk2");
        assertThat(run("--zookeeper", "zk1:2181")).isEqualTo(2);
        assertThat(err.toString()).contains("--zookeeper zk1:2181 needs --shard");
        assertThat(started.get()).isNull();
    }

    @Test
    void anEmptyTokenEnvironmentVariableIsUnset() {
        assertThat(runWithEnv(Map.of(ServerCommand.ADMIN_TOKEN_ENV, ""))).isZero();
        assertThat(started.get().admin().token()).isEmpty();
    }

    @Test
    void aBadTokenInTheEnvironmentExitsWithCode2NamingTheVariableNotTheToken() {
        assertThat(runWithEnv(Map.of(ServerCommand.ADMIN_TOKEN_ENV, "tooshort")))
                .isEqualTo(2);
        assertOneLineError("kvs-test server: config error: " + ServerCommand.ADMIN_TOKEN_ENV
                + ": admin.token is shorter than 16 characters (8); make one with e.g. openssl rand -hex 32");
        assertThat(started.get()).isNull();
    }

    @Test
    void unknownOptionExitsWithCode2() {
        assertThat(run("--prot", "1")).isEqualTo(2);
        assertThat(err.toString()).startsWith("kvs-test server: Unknown option");
    }

    @Test
    void badConfigFileExitsWithCode2AndTheLoaderMessage() throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "prot: 1\n");

        assertThat(run("--config", file.toString())).isEqualTo(2);

        assertThat(err.toString()).startsWith("kvs-test server: config error: unknown field 'prot' in " + file);
        assertThat(err.toString().lines()).hasSize(1);
    }

    @Test
    void nodeThatCannotStartExitsWithCode1AndOneLine() {
        int exit = execute(config -> {
            throw new NodeStartException("cannot start node 'kvs-1': port 6380 in use", null);
        });
        assertThat(exit).isEqualTo(1);
        assertOneLineError("kvs-test server: cannot start node 'kvs-1': port 6380 in use");
    }

    @Test
    void helpExplainsEveryOption() {
        assertThat(run("--help")).isZero();
        String help = out.toString();
        List<String> expected = List.of(
                "--config",
                "--name",
                "--cluster",
                "--role",
                "--bind",
                "--port",
                "--repl-port",
                "--admin-port",
                "--peer",
                "--mode",
                "--data-dir",
                "--requirepass",
                "--max-bulk-bytes",
                "--max-entries",
                "--max-bytes",
                "--flow-control",
                "--protected-mode",
                "--help",
                "--version");
        assertThat(help).contains(expected);
        for (OptionSpec option :
                new CommandLine(new ServerCommand()).getCommandSpec().options()) {
            assertThat(help).contains(option.longestName());
            assertThat(String.join(" ", option.description()))
                    .as(option.longestName())
                    .isNotBlank();
        }
        assertThat(help.replaceAll("\\s+", " "))
                .contains("default: 6380")
                .contains("default: 7380")
                .contains("default: 8380")
                .contains("id-first-after-reply")
                .contains("Exit codes");
        assertThat(started.get()).isNull();
    }

    private void assertOneLineError(String line) {
        assertThat(err.toString()).isEqualTo(line + System.lineSeparator());
    }

    private int run(String... args) {
        return runWithEnv(Map.of(), args);
    }

    /** Runs with {@code env} as the only environment variables. */
    private int runWithEnv(Map<String, String> env, String... args) {
        return execute(
                config -> {
                    started.set(config);
                    return node;
                },
                env,
                args);
    }

    private int execute(ServerCommand.NodeStarter starter, String... args) {
        return execute(starter, Map.of(), args);
    }

    /** Runs {@code kvs-test server ARGS}: the server command under a parent, as under KvsCli. */
    private int execute(ServerCommand.NodeStarter starter, Map<String, String> env, String... args) {
        CommandLine cl = CliErrorHandler.install(
                new CommandLine(new Parent()).addSubcommand(new ServerCommand(starter, env::get)));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] all = new String[args.length + 1];
        all[0] = "server";
        System.arraycopy(args, 0, all, 1, args.length);
        return cl.execute(all);
    }

    @CommandLine.Command(name = "kvs-test")
    static final class Parent {}

    /** A node that reports fixed ports and, if asked, blocks in awaitTermination until closed. */
    static final class StubNode implements ServerCommand.RunningNode {
        volatile boolean blockUntilClosed;
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public int port() {
            return 16380;
        }

        @Override
        public int replPort() {
            return 17380;
        }

        @Override
        public int adminPort() {
            return 18380;
        }

        @Override
        public void awaitTermination() throws InterruptedException {
            if (blockUntilClosed && !closed.await(30, TimeUnit.SECONDS)) throw new AssertionError("never closed");
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    private Path secretFile() throws java.io.IOException {
        Path f = dir.resolve("cluster-secret");
        java.nio.file.Files.writeString(f, "a-secret-of-sixteen+\n");
        return f;
    }
}
