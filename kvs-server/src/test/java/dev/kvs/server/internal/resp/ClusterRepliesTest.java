package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.cluster.LatestClusterView;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kvs's {@code CLUSTER} replies, {@code -MOVED} and {@code -CROSSSLOT} against a live redis-server 7.0.15
 * cluster ({@link RealRedisCluster}: n1 with slots 0-8191 and its replica n3, n2 with 8192-16383). The
 * kvs nodes answer with a static view of the same layout: the same node ids, addresses and epochs, so
 * most replies must be equal byte for byte. What necessarily differs, and is normalised before
 * comparing: the order of shards and nodes (Redis's node table order; kvs lists by first slot), the
 * bus port and ping/pong times of {@code CLUSTER NODES} (kvs has no cluster bus: {@code @0}, 0),
 * {@code replication-offset}, and {@code CLUSTER INFO}'s per-type message counters, which kvs has not.
 * A clustered kvs node with no layout yet is compared with a Redis cluster node that has no slots and
 * met no other ({@link RealRedisCluster#lonePort}). Skipped where redis-server 7.0.15 is not installed.
 */
class ClusterRepliesTest {
    @TempDir
    static Path dir;

    private static RealRedisCluster redis;
    private static RespChannel n1;
    private static RespChannel n3;

    @BeforeAll
    static void start() {
        // a requirement, not a skip: .ci/run and the README's setup install it
        assertThat(RealRedisCluster.available())
                .as("redis-server 7.0.15 on the PATH (.ci/run installs it)")
                .isTrue();
        redis = new RealRedisCluster(dir);
        n1 = node("n1");
        n3 = node("n3");
    }

    @AfterAll
    static void stop() {
        if (n1 != null) n1.close();
        if (n3 != null) n3.close();
        if (redis != null) redis.close();
    }

    /** A kvs node as {@code me} of the layout the Redis cluster has. */
    private static RespChannel node(String me) {
        ClusterMap map = new ClusterMap(List.of(
                new Shard("s1", List.of(new SlotRange(0, 8191)), List.of("n1", "n3"), "n1", 1),
                new Shard("s2", List.of(new SlotRange(8192, 16383)), List.of("n2"), "n2", 2)));
        Map<String, ClusterMember> members = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            members.put("n" + (i + 1), new ClusterMember(redis.ids[i], "127.0.0.1", redis.ports[i]));
        }
        return RespChannel.clustered(config(), ClusterView.of(new ClusterLayout(map, me, members)));
    }

    private static NodeConfig config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(64L << 20)
                        .build())
                .build();
    }

    @Test
    void keyslotIsRedisesForPlainKeysHashTagsAndRandomKeys() {
        List<String> keys =
                new ArrayList<>(List.of("foo", "bar", "", "{user1000}.following", "{}x", "a{}b{c}", "{{a}}"));
        long seed = System.nanoTime();
        System.out.println("ClusterRepliesTest seed " + seed);
        Random random = new Random(seed);
        for (int i = 0; i < 100; i++) {
            byte[] b = new byte[1 + random.nextInt(12)];
            for (int j = 0; j < b.length; j++) b[j] = (byte) ("ab{}xyz019".charAt(random.nextInt(10)));
            keys.add(new String(b, java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        for (String k : keys) {
            assertThat(n1.command("CLUSTER", "KEYSLOT", k))
                    .as("CLUSTER KEYSLOT %s", k)
                    .isEqualTo(RespText.call(redis.ports[0], "CLUSTER", "KEYSLOT", k));
        }
    }

    @Test
    void myidIsTheViewsIdAsRedisWritesIt() {
        assertThat(n1.command("CLUSTER", "MYID")).isEqualTo(RespText.call(redis.ports[0], "CLUSTER", "MYID"));
        assertThat(n3.command("CLUSTER", "MYID")).isEqualTo(RespText.call(redis.ports[2], "CLUSTER", "MYID"));
    }

    @Test
    void helloSaysClusterModeAsRedisDoes() {
        String mode = "$4\r\nmode\r\n$7\r\ncluster\r\n";
        assertThat(RespText.call(redis.ports[0], "HELLO")).contains(mode);
        assertThat(n1.command("HELLO")).contains(mode);
        assertThat(n3.command("HELLO")).contains(mode);
    }

    @Test
    void infoHasRedisesFieldsInRedisesOrderWithTheSameValues() {
        for (int i : new int[] {0, 2}) {
            Map<String, String> theirs = fields(RespText.call(redis.ports[i], "CLUSTER", "INFO"));
            Map<String, String> ours = fields((i == 0 ? n1 : n3).command("CLUSTER", "INFO"));
            List<String> messageCounters = List.of("cluster_stats_messages_sent", "cluster_stats_messages_received");
            theirs.keySet().retainAll(ours.keySet()); // Redis's per-type message counters: kvs has no bus
            assertThat(new ArrayList<>(ours.keySet())).isEqualTo(new ArrayList<>(theirs.keySet()));
            ours.keySet().removeAll(messageCounters);
            theirs.keySet().removeAll(messageCounters);
            assertThat(ours).isEqualTo(theirs);
        }
    }

    @Test
    void slotsListsEachRangeWithItsPrimaryAndReplicaAsRedisDoes() {
        assertThat(sortedByFirst(RespText.parse(n1.command("CLUSTER", "SLOTS"))))
                .isEqualTo(sortedByFirst(RespText.parse(RespText.call(redis.ports[0], "CLUSTER", "SLOTS"))));
    }

    @Test
    void shardsListsEachShardsSlotsAndNodesAsRedisDoes() {
        assertThat(normalisedShards(n1.command("CLUSTER", "SHARDS")))
                .isEqualTo(normalisedShards(RespText.call(redis.ports[0], "CLUSTER", "SHARDS")));
    }

    @Test
    void nodesHasRedisesLinesFromAPrimaryAndFromAReplica() {
        assertThat(normalisedNodes(n1.command("CLUSTER", "NODES")))
                .isEqualTo(normalisedNodes(RespText.call(redis.ports[0], "CLUSTER", "NODES")));
        assertThat(normalisedNodes(n3.command("CLUSTER", "NODES")))
                .isEqualTo(normalisedNodes(RespText.call(redis.ports[2], "CLUSTER", "NODES")));
    }

    @Test
    void movedAndCrossslotAreRedisesOnAPrimary() throws Exception {
        String[][] commands = {
            {"GET", "foo"},
            {"GET", "bar"},
            {"SET", "foo", "1"},
            {"MGET", "foo", "bar"},
            {"MGET", "bar", "foo"},
            {"MGET", "{foo}1", "{foo}2"},
            {"MSET", "foo", "1", "bar", "2"},
            {"DEL", "foo", "bar"},
            {"EXISTS", "foo", "{bar}1"},
            {"RENAME", "foo", "bar"},
            {"SET", "foo"},
            {"PING"},
            {"INCR", "foo"},
            {"EXPIRE", "foo", "10"},
            {"TTL", "foo"},
            {"GETDEL", "foo"},
            {"STRLEN", "bar"}
        };
        sameReplies(redis.ports[0], n1, commands);
    }

    @Test
    void aReplicaMovesToItsPrimaryUnlessReadonlyAsRedisDoes() throws Exception {
        String[][] commands = {
            {"GET", "bar"},
            {"GET", "foo"},
            {"READONLY"},
            {"GET", "bar"},
            {"SET", "bar", "1"},
            {"GET", "foo"},
            {"MGET", "bar", "{bar}2"},
            {"MGET", "bar", "foo"},
            {"READWRITE"},
            {"GET", "bar"}
        };
        sameReplies(redis.ports[2], n3, commands);
    }

    @Test
    void memoryUsageIsMovedAsRedisDoesOnAPrimaryAndAReplica() throws Exception {
        String[][] onPrimary = {
            {"MEMORY", "USAGE", "foo"},
            {"MEMORY", "USAGE", "bar"},
            {"MEMORY", "USAGE", "foo", "SAMPLES", "5"},
            {"MEMORY", "USAGE", "foo", "bar"},
            {"MEMORY", "USAGE"}
        };
        sameReplies(redis.ports[0], n1, onPrimary);
        String[][] onReplica = {
            {"MEMORY", "USAGE", "bar"},
            {"READONLY"},
            {"MEMORY", "USAGE", "bar"},
            {"MEMORY", "USAGE", "foo"},
            {"READWRITE"}
        };
        sameReplies(redis.ports[2], n3, onReplica);
    }

    @Test
    void withoutClusterEveryClusterCommandAnswersAsARedisWithClusterSupportDisabled() {
        String[][] commands = {
            {"CLUSTER", "KEYSLOT", "foo"}, {"CLUSTER", "INFO"}, {"CLUSTER", "MYID"}, {"CLUSTER", "SLOTS"},
            {"CLUSTER", "SHARDS"}, {"CLUSTER", "NODES"}, {"CLUSTER", "HELP"}, {"CLUSTER", "FOO"},
            {"CLUSTER", "KEYSLOT"}, {"CLUSTER"}, {"CLUSTER", "NODES", "x"}, {"cluster", "meet", "127.0.0.1", "1"},
            {"INFO", "cluster"}
        };
        try (RespChannel alone = RespChannel.withDefaults()) {
            for (String[] c : commands) {
                assertThat(alone.command(c)).as(String.join(" ", c)).isEqualTo(RespText.call(redis.plainPort, c));
            }
        }
        assertThat(n1.command("INFO", "cluster")).isEqualTo(RespText.call(redis.ports[0], "INFO", "cluster"));
    }

    @Test
    void aClusteredNodeWithoutAMapYetAnswersAsARedisClusterNodeWithNoSlots() throws Exception {
        LatestClusterView unplaced = new LatestClusterView(redis.loneId);
        unplaced.clientPort(redis.lonePort);
        try (RespChannel node = RespChannel.clustered(config(), unplaced)) {
            String[][] commands = {
                {"CLUSTER", "SLOTS"},
                {"CLUSTER", "SHARDS"},
                {"CLUSTER", "MYID"},
                {"CLUSTER", "KEYSLOT", "foo"},
                {"GET", "foo"},
                {"SET", "foo", "1"},
                {"MGET", "foo", "bar"},
                {"MSET", "foo", "1", "bar", "2"},
                {"DEL", "foo", "bar"},
                {"MEMORY", "USAGE", "foo"},
                {"READONLY"},
                {"GET", "foo"},
                {"READWRITE"},
                {"PING"},
                {"DBSIZE"},
                {"INFO", "cluster"}
            };
            sameReplies(redis.lonePort, node, commands);
            Map<String, String> theirs = fields(RespText.call(redis.lonePort, "CLUSTER", "INFO"));
            assertThat(fields(node.command("CLUSTER", "INFO"))).isEqualTo(theirs);
            assertThat(normalisedNodes(node.command("CLUSTER", "NODES")))
                    .isEqualTo(normalisedNodes(RespText.call(redis.lonePort, "CLUSTER", "NODES")));
        }
    }

    private static void sameReplies(int redisPort, RespChannel kvs, String[][] commands) throws Exception {
        try (Socket s = new Socket("127.0.0.1", redisPort)) {
            s.setSoTimeout(10_000);
            for (String[] c : commands) {
                assertThat(kvs.command(c)).as(String.join(" ", c)).isEqualTo(RespText.call(s, c));
            }
        }
    }

    private static Map<String, String> fields(String rawBulk) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : RespText.parse(rawBulk).toString().split("\r\n")) {
            int colon = line.indexOf(':');
            out.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> sortedByFirst(Object slots) {
        List<Object> out = new ArrayList<>((List<Object>) slots);
        out.sort(Comparator.comparingLong(e -> (Long) ((List<Object>) e).get(0)));
        return out;
    }

    /** Shards by first slot, each node's replication-offset 0, masters first. */
    @SuppressWarnings("unchecked")
    private static List<Object> normalisedShards(String raw) {
        List<Object> shards = new ArrayList<>((List<Object>) RespText.parse(raw));
        for (Object sh : shards) {
            List<Object> nodes = (List<Object>) ((List<Object>) sh).get(3);
            for (Object n : nodes) {
                List<Object> fields = (List<Object>) n;
                fields.set(fields.indexOf("replication-offset") + 1, 0L);
            }
            nodes.sort(Comparator.comparing(n -> ((List<Object>) n).contains("master") ? 0 : 1));
        }
        shards.sort(Comparator.comparingLong(sh -> (Long) ((List<Object>) ((List<Object>) sh).get(1)).get(0)));
        return shards;
    }

    /** Lines sorted, each with its bus port and ping/pong times blanked; the trailing newline kept. */
    private static List<String> normalisedNodes(String raw) {
        String text = RespText.parse(raw).toString();
        assertThat(text).endsWith("\n");
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.split(" ");
            f[1] = f[1].replaceAll("@\\d+", "@bus");
            f[4] = "ping";
            f[5] = "pong";
            lines.add(String.join(" ", f));
        }
        lines.sort(null);
        return lines;
    }
}
