package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.HashSlots;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode against fake nodes ({@link FakeRespServer} answering {@code CLUSTER SHARDS} in Redis
 * 7.0.15's format), for what a real Redis cluster does not do on demand: a kvs backup's
 * {@code -NOTPRIMARY}, endless {@code -MOVED}, a burst of them.
 */
class ClusterModeTest {

    @Test
    void aShardsReplicaIsThePairsBackup() {
        AtomicReference<String> shards = new AtomicReference<>();
        try (FakeRespServer primary = FakeRespServer.start((c, n) ->
                        c.get(0).equals("CLUSTER") ? shards.get() : "-NOTPRIMARY - this node is a backup\r\n");
                FakeRespServer replica =
                        FakeRespServer.start((c, n) -> c.get(0).equals("CLUSTER") ? shards.get() : "$5\r\nvalue\r\n")) {
            shards.set(new ShardsReply()
                    .shard(
                            0,
                            HashSlots.SLOTS - 1,
                            ShardsReply.node(primary.endpoint(), "master", "online"),
                            ShardsReply.node(replica.endpoint(), "replica", "online"))
                    .resp());
            try (KvsClient kvs = KvsClient.builder().cluster(primary.endpoint()).build()) {
                assertThat(kvs.get("k")).isEqualTo("value");
                assertThat(primary.count("GET")).isEqualTo(1);
                assertThat(replica.count("GET")).isEqualTo(1);
                assertThat(kvs.activeEndpoint()).isEqualTo(replica.endpoint());
            }
        }
    }

    @Test
    void aRequestMovedTooOftenFailsTyped() {
        AtomicReference<String> self = new AtomicReference<>();
        try (FakeRespServer node = FakeRespServer.start((c, n) -> c.get(0).equals("CLUSTER")
                ? new ShardsReply()
                        .shard(0, HashSlots.SLOTS - 1, ShardsReply.node(self.get(), "master", "online"))
                        .resp()
                : "-MOVED " + HashSlots.slot(c.get(1).getBytes(StandardCharsets.UTF_8)) + " " + self.get() + "\r\n")) {
            self.set(node.endpoint());
            try (KvsClient kvs = KvsClient.builder()
                    .cluster(node.endpoint())
                    .maxRedirects(2)
                    .clusterRefreshMinInterval(Duration.ofMinutes(1))
                    .build()) {
                assertThatThrownBy(() -> kvs.put("k", "v"))
                        .isInstanceOf(TooManyRedirectsException.class)
                        .hasMessageContaining("SET k was redirected 2 times");
                assertThat(node.count("SET")).isEqualTo(3); // the first try and two redirects
                assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isEqualTo(3);
            }
        }
    }

    @Test
    void askIsNotFollowed() {
        AtomicReference<String> self = new AtomicReference<>();
        try (FakeRespServer node = FakeRespServer.start((c, n) -> c.get(0).equals("CLUSTER")
                ? new ShardsReply()
                        .shard(0, HashSlots.SLOTS - 1, ShardsReply.node(self.get(), "master", "online"))
                        .resp()
                : "-ASK 1 127.0.0.1:1\r\n")) {
            self.set(node.endpoint());
            try (KvsClient kvs = KvsClient.builder().cluster(node.endpoint()).build()) {
                assertThatThrownBy(() -> kvs.get("k"))
                        .isExactlyInstanceOf(KvsClientException.class)
                        .hasMessage("ASK 1 127.0.0.1:1");
                assertThat(node.count("GET")).isEqualTo(1);
            }
        }
    }

    @Test
    void aBurstOfMovedCostsOneRefresh() {
        AtomicReference<String> owner = new AtomicReference<>();
        AtomicBoolean moved = new AtomicBoolean();
        AtomicReference<String> newOwner = new AtomicReference<>();
        FakeRespServer.Script shards = (c, n) -> new ShardsReply()
                .shard(
                        0,
                        HashSlots.SLOTS - 1,
                        ShardsReply.node(moved.get() ? newOwner.get() : owner.get(), "master", "online"))
                .resp();
        try (FakeRespServer before = FakeRespServer.start((c, n) -> {
                    if (c.get(0).equals("CLUSTER")) return shards.reply(c, n);
                    if (c.get(0).equals("PING")) return "+PONG\r\n";
                    moved.set(true);
                    return "-MOVED " + HashSlots.slot(c.get(1).getBytes(StandardCharsets.UTF_8)) + " " + newOwner.get()
                            + "\r\n";
                });
                FakeRespServer after = FakeRespServer.start(
                        (c, n) -> c.get(0).equals("CLUSTER") ? shards.reply(c, n) : "$1\r\nv\r\n")) {
            owner.set(before.endpoint());
            newOwner.set(after.endpoint());
            try (KvsClient kvs = KvsClient.builder()
                    .cluster(before.endpoint())
                    .clusterRefreshMinInterval(Duration.ofMillis(300))
                    .build()) {
                List<CompletableFuture<byte[]>> gets = new ArrayList<>();
                for (int i = 0; i < 50; i++) gets.add(kvs.getAsync(("k" + i).getBytes(StandardCharsets.UTF_8)));
                for (CompletableFuture<byte[]> g : gets) assertThat(g.join()).isEqualTo(new byte[] {'v'});

                await().atMost(Duration.ofSeconds(5))
                        .until(() -> kvs.clusterStatus().orElseThrow().refreshes() == 2);
                ClusterStatus s = kvs.clusterStatus().orElseThrow();
                assertThat(s.movedReplies()).isEqualTo(50);
                assertThat(before.count("CLUSTER") + after.count("CLUSTER")).isEqualTo(2);
                // the refreshed topology sends requests to the new owner at once
                assertThat(kvs.get("k-after")).isEqualTo("v");
                assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isEqualTo(50);
                assertThat(s.nodes()).isEqualTo(1); // the old owner's pool is closed: not in the topology
            }
        }
    }

    @Test
    void aRefreshWaitsForTheLeastIntervalAfterThePrevious() {
        AtomicReference<String> self = new AtomicReference<>();
        AtomicReference<String> other = new AtomicReference<>();
        try (FakeRespServer node = FakeRespServer.start((c, n) -> c.get(0).equals("CLUSTER")
                        ? new ShardsReply()
                                .shard(0, HashSlots.SLOTS - 1, ShardsReply.node(self.get(), "master", "online"))
                                .resp()
                        : "-MOVED " + HashSlots.slot(c.get(1).getBytes(StandardCharsets.UTF_8)) + " " + other.get()
                                + "\r\n");
                FakeRespServer owner = FakeRespServer.start((c, n) -> "$1\r\nv\r\n")) {
            self.set(node.endpoint());
            other.set(owner.endpoint());
            try (KvsClient kvs = KvsClient.builder()
                    .cluster(node.endpoint())
                    .clusterRefreshMinInterval(Duration.ofMinutes(1))
                    .build()) {
                for (int i = 0; i < 5; i++) assertThat(kvs.get("k" + i)).isEqualTo("v"); // each one -MOVED
                ClusterStatus s = kvs.clusterStatus().orElseThrow();
                assertThat(s.movedReplies()).isEqualTo(5);
                // the refresh they asked for waits its turn, a minute after the first read
                assertThat(s.refreshes()).isEqualTo(1);
                assertThat(node.count("CLUSTER") + owner.count("CLUSTER")).isEqualTo(1);
            }
        }
    }

    @Test
    void noSeedAnsweringFailsTypedAndIsCounted() {
        try (FakeRespServer plain = FakeRespServer.start((c, n) -> "-ERR unknown command 'CLUSTER'\r\n");
                KvsClient kvs = KvsClient.builder()
                        .cluster(plain.endpoint(), "127.0.0.1:1")
                        .build()) {
            assertThatThrownBy(() -> kvs.get("k"))
                    .isInstanceOf(NoPrimaryException.class)
                    .hasMessageContaining("cannot read the cluster's topology: no node answered CLUSTER SHARDS: "
                            + plain.endpoint() + " (ERR unknown command 'CLUSTER') 127.0.0.1:1 (CONNECT_FAILED");
            ClusterStatus s = kvs.clusterStatus().orElseThrow();
            assertThat(s.failedRefreshes()).isEqualTo(1);
            assertThat(s.refreshes()).isZero();
            assertThat(s.lastRefreshError()).startsWith("no node answered CLUSTER SHARDS:");
        }
    }

    /**
     * A primary cut off from ZooKeeper answers {@code -CLUSTERDOWN} and executes nothing, while the
     * backup in the other datacenter, promoted meanwhile, serves: the request goes on to it, the
     * node is passed over for the next ones, and a refresh is asked for.
     */
    @Test
    void aClusterDownNodeIsPassedOverForTheShardsOtherNode() {
        AtomicReference<String> shards = new AtomicReference<>();
        try (FakeRespServer cutOff = FakeRespServer.start(
                        (c, n) -> c.get(0).equals("CLUSTER") ? shards.get() : "-CLUSTERDOWN The cluster is down\r\n");
                FakeRespServer promoted =
                        FakeRespServer.start((c, n) -> c.get(0).equals("CLUSTER") ? shards.get() : "$5\r\nvalue\r\n")) {
            shards.set(new ShardsReply()
                    .shard(
                            0,
                            HashSlots.SLOTS - 1,
                            ShardsReply.node(cutOff.endpoint(), "master", "online"),
                            ShardsReply.node(promoted.endpoint(), "replica", "online"))
                    .resp());
            try (KvsClient kvs = KvsClient.builder()
                    .cluster(cutOff.endpoint())
                    // the refresh the -CLUSTERDOWN asks for lands after both requests
                    .clusterRefreshMinInterval(Duration.ofMillis(500))
                    .build()) {
                assertThat(kvs.get("k")).isEqualTo("value");
                assertThat(kvs.get("k")).isEqualTo("value");
                assertThat(cutOff.count("GET"))
                        .as("passed over after its first -CLUSTERDOWN")
                        .isEqualTo(1);
                assertThat(promoted.count("GET")).isEqualTo(2);
                assertThat(kvs.clusterStatus().orElseThrow().clusterDownReplies())
                        .isEqualTo(1);
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> kvs.clusterStatus().orElseThrow().refreshes() >= 2);
                // the refresh read the same topology: which node serves is kept
                assertThat(kvs.activeEndpoint()).isEqualTo(promoted.endpoint());
                assertThat(kvs.get("k")).isEqualTo("value");
                assertThat(cutOff.count("GET")).isEqualTo(1);
            }
        }
    }

    /** When every node of the shard answers {@code -CLUSTERDOWN}, the request fails typed, naming each. */
    @Test
    void aShardWhoseNodesAllAnswerClusterDownFailsWithNoPrimary() {
        AtomicReference<String> shards = new AtomicReference<>();
        FakeRespServer.Script down =
                (c, n) -> c.get(0).equals("CLUSTER") ? shards.get() : "-CLUSTERDOWN Hash slot not served\r\n";
        try (FakeRespServer a = FakeRespServer.start(down);
                FakeRespServer b = FakeRespServer.start(down)) {
            shards.set(new ShardsReply()
                    .shard(
                            0,
                            HashSlots.SLOTS - 1,
                            ShardsReply.node(a.endpoint(), "master", "online"),
                            ShardsReply.node(b.endpoint(), "replica", "online"))
                    .resp());
            try (KvsClient kvs = KvsClient.builder().cluster(a.endpoint()).build()) {
                assertThatThrownBy(() -> kvs.put("k", "v"))
                        .isInstanceOf(NoPrimaryException.class)
                        .hasMessageContaining(a.endpoint() + " (CLUSTERDOWN Hash slot not served)")
                        .hasMessageContaining(b.endpoint() + " (CLUSTERDOWN Hash slot not served)");
                assertThat(a.count("SET") + b.count("SET")).isEqualTo(2);
            }
        }
    }
}
