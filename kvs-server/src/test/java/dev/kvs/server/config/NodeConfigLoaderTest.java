package dev.kvs.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.FlowControlConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NodeConfigLoaderTest {
    @TempDir
    Path dir;

    @Test
    void loadsEveryField() throws IOException {
        Path file = write("""
                cluster: orders
                name: dc2-a
                role: backup
                bind: 0.0.0.0
                port: 16380
                replPort: 17380
                adminPort: 0
                peer: dc1.example.com:7380
                mode: id-first-after-reply
                requirepass: s3cret
                maxBulkBytes: 16MiB
                maxMultibulkLength: 4096
                maxClients: 200
                timeoutSeconds: 300
                authTimeoutSeconds: 5
                clientOutputBufferLimit: 32MiB
                clientOutputBufferLimitPubsub: 4mb 1mb 30
                bulkPreallocBytes: 8MiB
                maxClientMemory: 10%
                protectedMode: false
                ioThreads: 4
                ioPackConnections: 3
                clusterSecret: sixteen-bytes-or-more
                dataDir: /var/lib/kvs
                store:
                  maxEntries: 5000
                  maxBytes: 2GiB
                  maxKeyBytes: 1KiB
                  maxValueBytes: 10MB
                """);

        NodeConfig c = NodeConfigLoader.load(file);

        assertThat(c.cluster()).isEqualTo("orders");
        assertThat(c.name()).isEqualTo("dc2-a");
        assertThat(c.role()).isEqualTo(Role.BACKUP);
        assertThat(c.bind()).isEqualTo("0.0.0.0");
        assertThat(c.port()).isEqualTo(16380);
        assertThat(c.replPort()).isEqualTo(17380);
        assertThat(c.adminPort()).isZero();
        assertThat(c.peer()).hasValue("dc1.example.com:7380");
        assertThat(c.mode()).isEqualTo(ReplicationMode.ID_FIRST_AFTER_REPLY);
        assertThat(c.requirepass()).hasValue("s3cret");
        assertThat(c.maxBulkBytes()).isEqualTo(16 << 20);
        assertThat(c.maxMultibulkLength()).isEqualTo(4096);
        assertThat(c.maxClients()).isEqualTo(200);
        assertThat(c.timeoutSeconds()).isEqualTo(300);
        assertThat(c.authTimeoutSeconds()).isEqualTo(5);
        assertThat(c.clientOutputBufferLimit()).isEqualTo(32L << 20);
        assertThat(c.clientOutputBufferLimitPubsub()).isEqualTo("4mb 1mb 30");
        assertThat(c.bulkPreallocBytes()).isEqualTo(8L << 20);
        assertThat(c.maxClientMemory()).isEqualTo(Runtime.getRuntime().maxMemory() / 100 * 10);
        assertThat(c.protectedMode()).isFalse();
        assertThat(c.ioThreads()).isEqualTo(4);
        assertThat(c.ioPackConnections()).isEqualTo(3);
        assertThat(c.clusterSecret()).hasValue("sixteen-bytes-or-more");
        assertThat(c.store())
                .isEqualTo(new StoreConfig(5000, 2L << 30, 1024, 10_000_000, Optional.of(Path.of("/var/lib/kvs"))));
    }

    @Test
    void aReplicatingNodeOnANonLoopbackAddressNeedsAClusterSecretOrToBeToldInsecure() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("role: backup\nbind: 0.0.0.0\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "the replication port binds 0.0.0.0, not a loopback address, and replication has no clusterSecret");
        assertThat(NodeConfigLoader.parse("role: backup\nbind: 0.0.0.0\ninsecureReplication: true\n", "x")
                        .insecureReplication())
                .isTrue();
        // a lone primary does not replicate; loopback is only reachable from this machine
        assertThat(NodeConfigLoader.parse("bind: 0.0.0.0\n", "x").clusterSecret())
                .isEmpty();
        assertThat(NodeConfigLoader.parse("role: backup\n", "x").clusterSecret())
                .isEmpty();
    }

    @Test
    void aNodeWhosePeerIsNotLoopbackNeedsAClusterSecretOrToBeToldInsecure() {
        // bound to loopback, so its replication port is not reachable; its writes would still leave the machine
        assertThatThrownBy(() -> NodeConfigLoader.parse("peer: 10.1.2.3:7380\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("peer 10.1.2.3:7380 is not a loopback address, and replication has no"
                        + " clusterSecret and no tls: this node would send its writes to whoever answers at that"
                        + " address");
        // a backup dials its peer once promoted; a name counts as remote, whatever it resolves to now
        assertThatThrownBy(() -> NodeConfigLoader.parse("role: backup\npeer: localhost.example:7380\n", "x"))
                .hasMessageContaining("peer localhost.example:7380 is not a loopback address");
        assertThatThrownBy(() -> NodeConfigLoader.parse("peer: '[2001:db8::1]:7380'\n", "x"))
                .hasMessageContaining("peer [2001:db8::1]:7380 is not a loopback address");
        for (String loopback : List.of("127.0.0.1:7380", "127.3.2.1:7380", "localhost:7380", "[::1]:7380")) {
            assertThat(NodeConfigLoader.parse("peer: '" + loopback + "'\n", "x").peer())
                    .hasValue(loopback);
        }
        // a secret, tls or insecureReplication lets it start
        assertThat(NodeConfigLoader.parse("peer: 10.1.2.3:7380\nclusterSecret: sixteen-bytes-or-more\n", "x")
                        .peer())
                .hasValue("10.1.2.3:7380");
        assertThat(NodeConfigLoader.parse("peer: 10.1.2.3:7380\ninsecureReplication: true\n", "x")
                        .insecureReplication())
                .isTrue();
    }

    @Test
    void theClusterSecretIsReadFromAFileAndMustBeLongEnough() throws IOException {
        Path secret = dir.resolve("secret");
        Files.writeString(secret, "  from-a-file-0123456789\n");

        NodeConfig c = NodeConfigLoader.parse("role: backup\nbind: 0.0.0.0\nclusterSecretFile: " + secret + "\n", "x");

        assertThat(c.clusterSecret()).hasValue("from-a-file-0123456789");
        assertThat(c.replicationSecret()).isPresent();
        assertThat(c.replicationSecret().get().toString()).doesNotContain("from-a-file");
        assertThatThrownBy(() -> NodeConfigLoader.parse("clusterSecret: short\n", "x"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 16 bytes");
        assertThatThrownBy(() -> NodeConfigLoader.parse(
                        "clusterSecret: sixteen-bytes-or-more\nclusterSecretFile: " + secret + "\n", "x"))
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> NodeConfigLoader.parse("clusterSecretFile: " + dir.resolve("absent") + "\n", "x"))
                .hasMessageContaining("cannot read clusterSecretFile");
    }

    @Test
    void theReplicationAndAdminPortsMayHaveTheirOwnAddresses() {
        NodeConfig c = NodeConfigLoader.parse(
                "role: backup\nbind: 0.0.0.0\nreplBind: 127.0.0.1\nadminBind: 127.0.0.2\n", "kvs.yaml");

        assertThat(c.bind()).isEqualTo("0.0.0.0");
        assertThat(c.replicationBind()).isEqualTo("127.0.0.1");
        assertThat(c.adminBindAddress()).isEqualTo("127.0.0.2");
        // the replication port is on loopback: no secret needed although clients come from anywhere
        assertThat(c.clusterSecret()).isEmpty();
        assertThat(NodeConfigLoader.parse("bind: 10.1.2.3\n", "x").adminBindAddress())
                .isEqualTo("10.1.2.3");
        assertThatThrownBy(() -> NodeConfigLoader.parse("role: backup\nreplBind: 0.0.0.0\n", "x"))
                .hasMessageContaining("the replication port binds 0.0.0.0");
    }

    @Test
    void fieldsLeftOutKeepTheirDefaults() {
        NodeConfig c = NodeConfigLoader.parse("name: solo\nstore:\n  maxEntries: 10\n", "kvs.yaml");

        NodeConfig defaults = NodeConfig.builder().build();
        assertThat(c)
                .isEqualTo(defaults.toBuilder()
                        .name("solo")
                        .store(StoreConfig.builder().maxEntries(10).build())
                        .build());
    }

    @Test
    void blankFileGivesTheDefaults() throws IOException {
        assertThat(NodeConfigLoader.load(write("# nothing set\n")))
                .isEqualTo(NodeConfig.builder().build());
        assertThat(NodeConfigLoader.parse("", "kvs.yaml"))
                .isEqualTo(NodeConfig.builder().build());
    }

    @Test
    void theExampleConfigLoadsAndDocumentsTheDefaults() {
        // Surefire runs in the module directory; the example lives at the repository root.
        Path example = Path.of("..", "config", "kvs.example.yaml");
        assertThat(example).exists();
        assertThat(NodeConfigLoader.load(example))
                .isEqualTo(NodeConfig.builder().build());
    }

    @Test
    void theExampleUsersSectionLoadsOnceUncommented() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("..", "config", "kvs.example.yaml"));
        int start = lines.indexOf("# users:");
        assertThat(start).isPositive();
        StringBuilder yaml = new StringBuilder();
        for (int i = start; i < lines.size() && lines.get(i).startsWith("# "); i++) {
            yaml.append(lines.get(i).substring(2)).append('\n');
        }
        NodeConfig c = NodeConfigLoader.parse(yaml.toString(), "kvs.example.yaml");
        assertThat(c.users())
                .extracting(UserConfig::name, UserConfig::role)
                .containsExactly(
                        tuple("app", UserConfig.Role.READWRITE),
                        tuple("dashboard", UserConfig.Role.READONLY),
                        tuple("ops", UserConfig.Role.ADMIN));
    }

    @Test
    void byteSizesAcceptNumbersAndStrings() {
        NodeConfig c = NodeConfigLoader.parse(
                "maxBulkBytes: 1048576\nstore: {maxBytes: '10 MB', maxKeyBytes: 512, maxValueBytes: 1.5KiB}", "x");
        assertThat(c.maxBulkBytes()).isEqualTo(1 << 20);
        assertThat(c.store().maxBytes()).isEqualTo(10_000_000);
        assertThat(c.store().maxKeyBytes()).isEqualTo(512);
        assertThat(c.store().maxValueBytes()).isEqualTo(1536);
    }

    @Test
    void quotedNumbersAreAccepted() {
        assertThat(NodeConfigLoader.parse("port: '6390'", "x").port()).isEqualTo(6390);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", textBlock = """
            port: 70000 => port is not in 0..65535: 70000
            port: -1 => port is not in 0..65535: -1
            port: abc => port is not an integer: abc
            port: 1.5 => port is not an integer: 1.5
            port: 99999999999 => port is out of range: 99999999999
            port: 99999999999999999999 => port is out of range: 99999999999999999999
            replPort: 65536 => replPort is not in 0..65535: 65536
            adminPort: [1] => adminPort is not an integer: a list
            cluster: [a, b] => cluster is not a string: a list
            name: '' => name is empty: ""
            bind: ' ' => bind is empty: " "
            role: leader => role is not primary|backup: leader
            mode: fast => mode is not id-first|id-first-after-reply|sync|async: fast
            peer: nohost => peer is not HOST:PORT: nohost
            peer: 'host:0' => peer port is not in 1..65535: host:0
            requirepass: '' => requirepass is empty: ""
            maxBulkBytes: 12XB => maxBulkBytes is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): 12XB
            maxBulkBytes: 4GiB => maxBulkBytes is larger than 2147483647 bytes: 4GiB (4294967296)
            maxBulkBytes: 0 => maxBulkBytes <= 0: 0
            maxBulkBytes: -3 => maxBulkBytes is negative: -3
            maxBulkBytes: {a: 1} => maxBulkBytes is not a byte size (e.g. 64MiB): {a=1}
            maxMultibulkLength: 0 => maxMultibulkLength <= 0: 0
            maxClients: 0 => maxClients <= 0: 0
            timeoutSeconds: -1 => timeoutSeconds < 0: -1
            authTimeoutSeconds: -5 => authTimeoutSeconds < 0: -5
            clientOutputBufferLimit: 1000 => clientOutputBufferLimit is neither 0 (no limit) nor at least 1MiB: 1000
            clientOutputBufferLimit: lots => clientOutputBufferLimit is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): lots
            clientOutputBufferLimitPubsub: 32mb => clientOutputBufferLimitPubsub is not '<hard> <soft> <seconds>' (e.g. '32mb 8mb 60'): 32mb
            clientOutputBufferLimitPubsub: 1x 2 3 => clientOutputBufferLimitPubsub is not '<hard> <soft> <seconds>' (e.g. '32mb 8mb 60'): 1x 2 3
            bulkPreallocBytes: lots => bulkPreallocBytes is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): lots
            maxClientMemory: 101% => maxClientMemory is not a byte size or a percentage of the heap from 0% to 100%: 101%
            maxClientMemory: '-5%' => maxClientMemory is not a byte size or a percentage of the heap from 0% to 100%: -5%
            maxClientMemory: lots => maxClientMemory is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): lots
            maxClientMemory: -1 => maxClientMemory is negative: -1
            protectedMode: maybe => protectedMode is not true or false: maybe
            ioThreads: -1 => ioThreads < 0: -1
            ioPackConnections: 0 => ioPackConnections < 1: 0
            ioPackConnections: few => ioPackConnections is not an integer: few
            dataDir: "a\\0b" => dataDir is not a valid path: a\\u0000b
            store: 5 => store is not a mapping of field: value: 5
            store: {maxEntries: 0} => store.maxEntries <= 0: 0
            store: {maxEntries: many} => store.maxEntries is not an integer: many
            store: {maxBytes: lots} => store.maxBytes is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): lots
            store: {maxBytes: 0} => store.maxBytes <= 0: 0
            store: {maxKeyBytes: 3GiB} => store.maxKeyBytes is larger than 2147483647 bytes: 3GiB (3221225472)
            store: {maxValueBytes: -5} => store.maxValueBytes is negative: -5
            replication: {maxValueLagMs: -1} => replication.maxValueLagMs < 0: -1 (0: off)
            replication: {maxValueLagMs: soon} => replication.maxValueLagMs is not an integer: soon
            """)
    void badFieldsAreNamedWithTheirValue(String yaml, String message) {
        String expected = "config error: " + message.replace("\\u0000", "\u0000");
        assertThatThrownBy(() -> NodeConfigLoader.parse(yaml, "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(expected);
    }

    @Test
    void replicationSectionSetsTheReplicatorLimits() {
        NodeConfig c = NodeConfigLoader.parse(
                "replication:\n  maxUnackedKeys: 10\n  valueBatchBytes: 64KiB\n  valueStreams: 3\n"
                        + "  valueRateBytesPerSecond: 1MiB\n  writeTimeoutMs: 250\n",
                "kvs.yaml");
        assertThat(c.replication().maxUnackedKeys()).isEqualTo(10);
        assertThat(c.replication().valueBatchBytes()).isEqualTo(64 * 1024);
        assertThat(c.replication().valueStreams()).isEqualTo(3);
        assertThat(c.replication().valueRateBytesPerSecond()).isEqualTo(1 << 20);
        assertThat(c.replication().writeTimeout()).isEqualTo(java.time.Duration.ofMillis(250));
    }

    @Test
    void maxValueLagMsBoundsTheLagInTimeAndZeroTurnsTheBoundOff() {
        assertThat(NodeConfigLoader.parse("replication:\n  maxValueLagMs: 2500\n", "kvs.yaml")
                        .replication()
                        .maxValueLag())
                .isEqualTo(Duration.ofMillis(2_500));
        assertThat(NodeConfigLoader.parse("replication:\n  maxValueLagMs: 0\n", "kvs.yaml")
                        .replication()
                        .maxValueLag())
                .isZero();
        assertThat(NodeConfigLoader.parse("replication: {}\n", "kvs.yaml")
                        .replication()
                        .maxValueLag())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void flowControlSectionSetsEveryFlowControlField() {
        NodeConfig c = NodeConfigLoader.parse("""
                replication:
                  valueStreams: 3
                  flowControl:
                    enabled: false
                    targetMs: 2.5
                    minRateBytesPerSecond: 128KiB
                    baseHistoryMinutes: 10
                    notSentLowWatermarkBytes: 16KiB
                    dscp: true
                """, "kvs.yaml");

        assertThat(c.replication().valueStreams()).isEqualTo(3);
        assertThat(c.replication().flowControl())
                .isEqualTo(new FlowControlConfig(
                        false, Duration.ofNanos(2_500_000), 128 * 1024, Duration.ofMinutes(10), 16 * 1024, true));
    }

    @Test
    void flowControlFieldsLeftOutKeepTheirDefaults() {
        NodeConfig c = NodeConfigLoader.parse("replication:\n  flowControl:\n    targetMs: 20\n", "kvs.yaml");

        FlowControlConfig f = c.replication().flowControl();
        FlowControlConfig defaults = FlowControlConfig.defaults();
        assertThat(f.target()).isEqualTo(Duration.ofMillis(20));
        assertThat(f.enabled()).isEqualTo(defaults.enabled()).isTrue();
        assertThat(f.minRateBytesPerSecond()).isEqualTo(defaults.minRateBytesPerSecond());
        assertThat(f.baseHistory()).isEqualTo(defaults.baseHistory());
        assertThat(f.notSentLowWatermarkBytes()).isEqualTo(defaults.notSentLowWatermarkBytes());
        assertThat(f.dscp()).isEqualTo(defaults.dscp());
        assertThat(NodeConfigLoader.parse("replication:\n  flowControl: {}\n", "kvs.yaml")
                        .replication()
                        .flowControl())
                .isEqualTo(defaults);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", textBlock = """
            enabled: maybe => replication.flowControl.enabled is not true or false: maybe
            targetMs: fast => replication.flowControl.targetMs is not a number: fast
            targetMs: 0.05 => replication.flowControl.targetMs is not in 0.1..10000: 0.05
            targetMs: 20000 => replication.flowControl.targetMs is not in 0.1..10000: 20000.0
            targetMs: 0 => replication.flowControl.targetMs is not in 0.1..10000: 0.0
            minRateBytesPerSecond: 0 => replication.flowControl.minRateBytesPerSecond <= 0: 0
            minRateBytesPerSecond: lots => replication.flowControl.minRateBytesPerSecond is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): lots
            baseHistoryMinutes: 0 => replication.flowControl.baseHistoryMinutes is not in 1..60: 0
            baseHistoryMinutes: 1.5 => replication.flowControl.baseHistoryMinutes is not an integer: 1.5
            notSentLowWatermarkBytes: 512 => replication.flowControl.notSentLowWatermarkBytes < 1024: 512
            notSentLowWatermarkBytes: 4GiB => replication.flowControl.notSentLowWatermarkBytes is larger than 2147483647 bytes: 4GiB (4294967296)
            dscp: [1] => replication.flowControl.dscp is not true or false: a list
            """)
    void badFlowControlFieldsAreNamedWithTheirValue(String field, String message) {
        assertThatThrownBy(
                        () -> NodeConfigLoader.parse("replication:\n  flowControl:\n    " + field + "\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config error: " + message);
    }

    @Test
    void listenerSectionSetsTheHandshakeSlotsAndTheAuthenticationDeadline() {
        NodeConfig c = NodeConfigLoader.parse("""
                replication:
                  listener:
                    authDeadlineMs: 1500
                    maxHandshakes: 32
                    maxHandshakesPerSource: 2
                    maxPeerHandshakes: 8
                """, "kvs.yaml");

        assertThat(c.replicationListener())
                .isEqualTo(BackupConfig.builder()
                        .authDeadline(Duration.ofMillis(1500))
                        .maxHandshakes(32)
                        .maxHandshakesPerSource(2)
                        .maxPeerHandshakes(8)
                        .build());
        assertThat(NodeConfigLoader.parse("replication: {}\n", "kvs.yaml").replicationListener())
                .isEqualTo(BackupConfig.defaults());
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", textBlock = """
            authDeadlineMs: 50 => replication.listener.authDeadlineMs is not in 100..60000: 50
            maxHandshakes: 0 => replication.listener.maxHandshakes <= 0: 0
            maxHandshakesPerSource: -1 => replication.listener.maxHandshakesPerSource <= 0: -1
            maxPeerHandshakes: 0 => replication.listener.maxPeerHandshakes <= 0: 0
            """)
    void badListenerFieldsAreNamedWithTheirValue(String field, String message) {
        assertThatThrownBy(() -> NodeConfigLoader.parse("replication:\n  listener:\n    " + field + "\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config error: " + message);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "port: ''",
                "port:",
                "maxClients: ''",
                "protectedMode: ''",
                "insecureReplication: ''",
                "cluster:",
                "role:",
                "maxBulkBytes:"
            })
    void aFieldLeftEmptyKeepsItsDefault(String yaml) {
        assertThat(NodeConfigLoader.parse(yaml + "\n", "kvs.yaml")).isEqualTo(NodeConfigLoader.parse("", "kvs.yaml"));
    }

    @Test
    void unknownFlowControlFieldIsNamedWithItsSection() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("replication:\n  flowControl:\n    target: 5\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config error: unknown field 'replication.flowControl.target' in kvs.yaml (known:"
                        + " baseHistoryMinutes, dscp, enabled, minRateBytesPerSecond, notSentLowWatermarkBytes,"
                        + " targetMs)");
    }

    @Test
    void failoverSectionSetsTheReadPolicyAndTimeouts() {
        NodeConfig c = NodeConfigLoader.parse(
                "failover:\n  readPolicy: reject\n  blockTimeoutMs: 250\n  lostAfterMs: 60000\n", "kvs.yaml");
        assertThat(c.failover().readPolicy()).isEqualTo(dev.kvs.server.config.FailoverConfig.ReadPolicy.REJECT);
        assertThat(c.failover().blockTimeout()).isEqualTo(java.time.Duration.ofMillis(250));
        assertThat(c.failover().lostAfter()).isEqualTo(java.time.Duration.ofMinutes(1));
        assertThatThrownBy(() -> NodeConfigLoader.parse("failover:\n  readPolicy: wait\n", "kvs.yaml"))
                .hasMessageContaining("failover.readPolicy is not block|reject: wait");
    }

    @Test
    void badReplicationFieldIsNamedWithItsSection() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("replication:\n  valueStreams: 0\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("replication.valueStreams <= 0: 0");
    }

    @Test
    void unknownFieldIsNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("prot: 6380", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "config error: unknown field 'prot' in kvs.yaml (known: admin, adminBind, adminPort, advertise,"
                                + " authTimeoutSeconds, bind, bulkPreallocBytes, clientOutputBufferLimit, clientOutputBufferLimitPubsub, cluster, clusterSecret, clusterSecretFile, coordination,"
                                + " dataDir, expiry, failover, insecureReplication, ioPackConnections, ioThreads, maxBulkBytes, maxClientMemory, maxClients,"
                                + " maxMultibulkLength, mode, name, notifyKeyspaceEvents, peer, port, protectedMode, replBind,"
                                + " replPort, replication,"
                                + " requirepass, role, store, timeoutSeconds, tls, users)");
    }

    @Test
    void notifyKeyspaceEventsTakesRedisLettersAndRefusesOthers() {
        assertThat(NodeConfigLoader.parse("name: n\n", "kvs.yaml").notifyKeyspaceEvents())
                .isEmpty();
        assertThat(NodeConfigLoader.parse("notifyKeyspaceEvents: KEA\n", "kvs.yaml")
                        .notifyKeyspaceEvents())
                .isEqualTo("KEA");
        assertThat(NodeConfigLoader.parse("notifyKeyspaceEvents: \"Ex$gm\"\n", "kvs.yaml")
                        .notifyKeyspaceEvents())
                .isEqualTo("Ex$gm");
        assertThatThrownBy(() -> NodeConfigLoader.parse("notifyKeyspaceEvents: KEAq\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("notifyKeyspaceEvents has a letter that is not one of Ag$lshzxeKEtmdn: \"KEAq\"");
    }

    @Test
    void theExpirySectionSetsActiveExpiryRoundsAndChecksThem() {
        NodeConfig c = NodeConfigLoader.parse("expiry:\n  activeIntervalMs: 250\n  maxKeysPerCycle: 20\n", "kvs.yaml");
        assertThat(c.expiry()).isEqualTo(new dev.kvs.server.config.ExpiryConfig(java.time.Duration.ofMillis(250), 20));
        assertThatThrownBy(() -> NodeConfigLoader.parse("expiry:\n  maxKeysPerCycle: 0\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expiry.maxKeysPerCycle not in 1..1000000: 0");
        assertThatThrownBy(() -> NodeConfigLoader.parse("expiry:\n  activeIntervalMs: 0\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("expiry.activeIntervalMs not in 1..60000: 0");
    }

    @Test
    void theAdminSectionSetsTheTokenAndOpenReads() {
        NodeConfig c =
                NodeConfigLoader.parse("admin:\n  token: 'Zm9vYmFyYmF6cXV4cXV1eA=='\n  openReads: false\n", "kvs.yaml");

        assertThat(c.admin().token()).hasValue("Zm9vYmFyYmF6cXV4cXV1eA==");
        assertThat(c.admin().openReads()).isFalse();
        assertThat(c.admin().toString()).doesNotContain("Zm9v");
        assertThat(NodeConfigLoader.parse("admin: {}", "kvs.yaml").admin()).isEqualTo(AdminConfig.defaults());
    }

    @Test
    void usersAreReadWithTheirPasswordsHashed() {
        String hash = UserConfig.sha256Hex("w-pass".getBytes(StandardCharsets.UTF_8));
        NodeConfig c = NodeConfigLoader.parse("""
                users:
                  - {name: reader, password: r-pass, role: readonly}
                  - name: writer
                    passwordSha256: %s
                    role: ReadWrite
                """.formatted(hash.toUpperCase(java.util.Locale.ROOT)), "kvs.yaml");

        assertThat(c.users())
                .extracting(UserConfig::name, UserConfig::role)
                .containsExactly(tuple("reader", UserConfig.Role.READONLY), tuple("writer", UserConfig.Role.READWRITE));
        assertThat(c.users().get(0).passwordSha256())
                .isEqualTo(UserConfig.sha256Hex("r-pass".getBytes(StandardCharsets.UTF_8)));
        assertThat(c.users().get(1).passwordSha256()).isEqualTo(hash);
        assertThat(c.toString()).doesNotContain("r-pass", hash);
        assertThat(c.clientAuthRequired()).isTrue();
        assertThat(NodeConfigLoader.parse("", "kvs.yaml").users()).isEmpty();
        assertThat(NodeConfigLoader.parse("", "kvs.yaml").clientAuthRequired()).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", textBlock = """
            users: [{name: a, role: admin}] => users[0] (a) needs password or passwordSha256, one of them
            users: [{name: a, password: p-secret, passwordSha256: abc, role: admin}] => needs password or passwordSha256
            users: [{name: a, passwordSha256: abc123, role: admin}] => users[0]: user a: passwordSha256 is not 64 hex
            users: [{name: a, password: p-secret}] => users[0].role is missing
            users: [{name: a, password: p-secret, role: root}] => users[0]: role is not admin, readwrite or readonly: root
            users: [{password: p-secret, role: admin}] => users[0].name is missing
            users: [{name: 'a b', password: p-secret, role: admin}] => users[0]: user name is not 1 to 64 characters
            users: [{name: a, password: '', role: admin}] => users[0]: user a: password is empty
            users: [{name: a, password: p-secret, role: admin}, {name: a, password: p-secret, role: readonly}] => user a is listed twice
            users: [{name: a, pasword: p-secret, role: admin}] => unknown field 'users[0].pasword' in kvs.yaml (known: name, password, passwordSha256, role)
            users: {name: a} => users is not a list
            {requirepass: p-secret, users: [{name: default, password: p-secret, role: admin}]} => a user named default and requirepass are both set
            """)
    void badUsersAreNamedAndNoPasswordIsQuoted(String yaml, String message) {
        assertThatThrownBy(() -> NodeConfigLoader.parse(yaml, "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("p-secret"));
    }

    @Test
    void theTlsSectionTurnsOnTlsForTheClientAndAdminPorts() throws IOException {
        String files = tlsFiles();
        NodeConfig c = NodeConfigLoader.parse(
                "tls:\n" + files + "  clients: true\n  admin: true\n  clientAuth: Require\n", "kvs.yaml");

        assertThat(c.tls()).isPresent();
        assertThat(c.tlsPorts()).isEqualTo(new TlsPortsConfig(true, true, TlsPortsConfig.ClientAuth.REQUIRE));
        assertThat(NodeConfigLoader.parse("tls:\n" + files, "kvs.yaml").tlsPorts())
                .as("left out: both ports plain")
                .isEqualTo(TlsPortsConfig.defaults());
        assertThat(NodeConfig.builder().build().tlsPorts()).isEqualTo(TlsPortsConfig.defaults());
    }

    @Test
    void badTlsPortSettingsAreNamed() throws IOException {
        String files = tlsFiles();
        assertThatThrownBy(() -> NodeConfigLoader.parse("tls:\n" + files + "  clientAuth: maybe\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageEndingWith("tls.clientAuth is not none, optional or require: maybe");
        assertThatThrownBy(() -> NodeConfigLoader.parse("tls:\n" + files + "  clientAuth: require\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("neither tls.clients nor tls.admin is true");
        assertThatThrownBy(() -> NodeConfigLoader.parse("tls:\n  clients: true\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageEndingWith("tls needs certFile, keyFile and caFile");
        assertThatThrownBy(() -> NodeConfigLoader.parse("tls:\n" + files + "  admin: yes please\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tls.admin is not true or false");
        assertThatThrownBy(() -> NodeConfig.builder()
                        .tlsPorts(new TlsPortsConfig(true, false, TlsPortsConfig.ClientAuth.NONE))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tls.clients is true but tls has no certFile, keyFile and caFile");
    }

    /** The {@code tls:} section's file fields (indented), naming files that exist. */
    private String tlsFiles() throws IOException {
        StringBuilder b = new StringBuilder();
        for (String field : new String[] {"certFile", "keyFile", "caFile"}) {
            Path f = Files.writeString(dir.resolve(field + ".pem"), "PEM");
            b.append("  ").append(field).append(": ").append(f).append('\n');
        }
        return b.toString();
    }

    @Test
    void theAdminPortsGuardsAreRead() {
        AdminConfig a = NodeConfigLoader.parse(
                        "admin:\n  trustLoopback: true\n  allowedHosts: [Kvs1.Example.com, 10.0.0.5]\n"
                                + "  maxConnections: 16\n  headTimeoutMs: 2000\n  idleTimeoutMs: 9000\n",
                        "kvs.yaml")
                .admin();
        assertThat(a.trustLoopback()).isTrue();
        assertThat(a.allowedHosts()).containsExactly("kvs1.example.com", "10.0.0.5");
        assertThat(a.maxConnections()).isEqualTo(16);
        assertThat(a.headTimeoutMillis()).isEqualTo(2000);
        assertThat(a.idleTimeoutMillis()).isEqualTo(9000);
    }

    @Test
    void anAllDigitTokenKeepsItsDigits() {
        assertThat(NodeConfigLoader.parse("admin:\n  token: 00123456789012345678\n", "kvs.yaml")
                        .admin()
                        .token())
                .hasValue("00123456789012345678");
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", textBlock = """
            admin: {token: short-one} => admin.token is shorter than 16 characters (9)
            admin: {token: 'has spaces in the token'} => admin.token may hold only
            admin: {token: 'quote\"d-0123456789abcdef'} => admin.token may hold only
            admin: {openReads: maybe} => admin.openReads is not true or false: maybe
            admin: {tokn: abc} => unknown field 'admin.tokn' in kvs.yaml (known: allowedHosts, headTimeoutMs, idleTimeoutMs, maxConnections, openReads, respCommands, token, trustLoopback)
            admin: {maxConnections: 0} => admin.maxConnections is not in 1..100000: 0
            admin: {headTimeoutMs: 5} => admin.headTimeoutMs is not in 100..600000: 5
            admin: {idleTimeoutMs: -1} => admin.idleTimeoutMs is not in 100..3600000: -1
            admin: {allowedHosts: ['evil example']} => admin.allowedHosts holds something that is not a host name: evil example
            admin: {trustLoopback: often} => admin.trustLoopback is not true or false: often
            admin: 5 => admin is not a mapping of field: value: 5
            """)
    void badAdminFieldsAreNamedAndTheTokenIsNeverQuoted(String yaml, String message) {
        assertThatThrownBy(() -> NodeConfigLoader.parse(yaml, "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message)
                .satisfies(
                        e -> assertThat(e.getMessage()).doesNotContain("short-one", "has spaces", "0123456789abcdef"));
    }

    @Test
    void unknownStoreFieldIsNamedWithItsSection() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("store:\n  maxEntriez: 1", "kvs.yaml"))
                .hasMessage("config error: unknown field 'store.maxEntriez' in kvs.yaml (known: maxBytes,"
                        + " maxEntries, maxKeyBytes, maxValueBytes)");
    }

    @Test
    void duplicateFieldIsAnError() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("port: 1\nname: a\nport: 2\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config error: kvs.yaml is not valid YAML: Duplicate field 'port'")
                .hasMessageContaining("line 3");
    }

    @Test
    void brokenYamlSaysWhereOnOneLine() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("name: a\nport: [1\n", "kvs.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "config error: kvs.yaml is not valid YAML: while parsing a flow sequence (line 2, column 7);"
                                + " expected ',' or ']', but got <stream end> (line 3, column 1)");
    }

    @Test
    void badIndentationSaysWhere() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("store:\n  maxEntries: 1\n maxBytes: 2\n", "kvs.yaml"))
                .hasMessageStartingWith("config error: kvs.yaml is not valid YAML: ")
                .hasMessageContaining("(line 3, column ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aListIsNotAConfig() {
        assertThatThrownBy(() -> NodeConfigLoader.parse("- a\n- b\n", "kvs.yaml"))
                .hasMessage("config error: kvs.yaml is not a mapping of field: value");
    }

    @Test
    void missingFileIsNamed() {
        Path missing = dir.resolve("absent.yaml");
        assertThatThrownBy(() -> NodeConfigLoader.load(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("config error: cannot read config file " + missing + ": ");
    }

    @Test
    void errorsNameTheFileTheyCameFrom() throws IOException {
        Path file = write("prot: 1\n");
        assertThatThrownBy(() -> NodeConfigLoader.load(file)).hasMessageContaining(" in " + file + " (known: ");
    }

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("kvs.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
