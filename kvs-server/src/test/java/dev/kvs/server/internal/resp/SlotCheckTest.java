package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.cluster.HashSlots;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.cluster.TestLayouts;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code -MOVED} and {@code -CROSSSLOT} on a node with a static cluster view: shard {@code a} (slots
 * 0-8191, primary a1 on port 7001, backup a2 on 7002) and shard {@code b} (8192-16383, b1 on 7003).
 * The replies were checked against redis-server 7.0.15 in cluster mode ({@code ClusterRepliesTest}
 * compares them with a live one).
 */
class SlotCheckTest {
    private static final String CROSSSLOT = "-CROSSSLOT Keys in request don't hash to the same slot\r\n";

    // "bar" hashes to 5061 (shard a), "foo" to 12182 (shard b)
    private static RespChannel node(String me) {
        return RespChannel.clustered(
                NodeConfig.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(1000)
                                .maxBytes(64L << 20)
                                .build())
                        .build(),
                ClusterView.of(TestLayouts.twoShards(me, 7001, 7002, 7003)));
    }

    @Test
    void aKeyOfAnotherShardIsMovedToThatShardsPrimary() {
        assertThat(slot("foo")).isEqualTo(12182);
        try (RespChannel a1 = node("a1")) {
            assertThat(a1.command("GET", "foo")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
            assertThat(a1.command("SET", "foo", "v")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
            assertThat(a1.command("MGET", "{foo}1", "{foo}2")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
            assertThat(a1.command("SET", "bar", "v")).isEqualTo("+OK\r\n");
            assertThat(a1.command("GET", "bar")).isEqualTo("$1\r\nv\r\n");
        }
    }

    @Test
    void keysInTwoSlotsAreCrossSlotEvenWhenOneIsAnotherShards() {
        try (RespChannel a1 = node("a1")) {
            assertThat(a1.command("MGET", "bar", "foo")).isEqualTo(CROSSSLOT);
            assertThat(a1.command("MGET", "foo", "bar")).isEqualTo(CROSSSLOT);
            assertThat(a1.command("MSET", "bar", "1", "{bar}x", "2", "foo", "3"))
                    .isEqualTo(CROSSSLOT);
            assertThat(a1.command("DEL", "bar", "bar2")).isEqualTo(CROSSSLOT);
            assertThat(a1.command("EXISTS", "bar", "foo")).isEqualTo(CROSSSLOT);
            assertThat(a1.command("RENAME", "bar", "foo")).isEqualTo(CROSSSLOT);
            // one slot: runs (values are not keys: MSET's step of 2)
            assertThat(a1.command("MSET", "{bar}1", "foo", "{bar}2", "foo")).isEqualTo("+OK\r\n");
            assertThat(a1.command("MGET", "{bar}1", "{bar}2")).isEqualTo("*2\r\n$3\r\nfoo\r\n$3\r\nfoo\r\n");
        }
    }

    @Test
    void commandsWithoutKeysAndBadArityAreAnsweredAsWithoutCluster() {
        try (RespChannel a1 = node("a1")) {
            assertThat(a1.command("PING")).isEqualTo("+PONG\r\n");
            assertThat(a1.command("DBSIZE")).isEqualTo(":0\r\n");
            assertThat(a1.command("SET", "foo")).isEqualTo("-ERR wrong number of arguments for 'set' command\r\n");
        }
    }

    @Test
    void aBackupServesItsShardsReadsOnlyAfterReadonlyAndMovesTheRestToItsPrimary() {
        try (RespChannel a2 = node("a2")) {
            assertThat(a2.command("GET", "bar")).isEqualTo("-MOVED 5061 127.0.0.1:7001\r\n");
            assertThat(a2.command("READONLY")).isEqualTo("+OK\r\n");
            assertThat(a2.command("GET", "bar")).isEqualTo("$-1\r\n");
            assertThat(a2.command("SET", "bar", "v")).isEqualTo("-MOVED 5061 127.0.0.1:7001\r\n");
            assertThat(a2.command("GET", "foo")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
            assertThat(a2.command("READWRITE")).isEqualTo("+OK\r\n");
            assertThat(a2.command("GET", "bar")).isEqualTo("-MOVED 5061 127.0.0.1:7001\r\n");
        }
    }

    @Test
    void memoryUsageAndPeekAreMovedAsOtherKeyedCommands() {
        String moved = "-MOVED 12182 127.0.0.1:7003\r\n";
        try (RespChannel a1 = node("a1")) {
            assertThat(a1.command("SET", "bar", "v")).isEqualTo("+OK\r\n");
            assertThat(a1.command("MEMORY", "USAGE", "foo")).isEqualTo(moved);
            assertThat(a1.command("memory", "usage", "foo", "SAMPLES", "5")).isEqualTo(moved);
            assertThat(a1.command("MEMORY", "USAGE", "foo", "bar")).isEqualTo(moved); // the key before the syntax
            assertThat(a1.command("MEMORY", "USAGE", "bar")).startsWith(":");
            assertThat(a1.command("MEMORY", "USAGE"))
                    .isEqualTo("-ERR wrong number of arguments for 'memory|usage' command\r\n");
            assertThat(a1.command("MEMORY", "FOO", "foo")).startsWith("-ERR unknown subcommand 'FOO'");
            assertThat(a1.command("KVS.PEEK", "foo")).isEqualTo(moved);
            assertThat(a1.command("KVS.PEEK", "bar")).startsWith("*6\r\n$8\r\ncomplete\r\n");
        }
    }

    @Test
    void aBackupMovesMemoryUsageAndPeekToItsPrimaryUnlessReadonly() {
        try (RespChannel a2 = node("a2")) {
            assertThat(a2.command("MEMORY", "USAGE", "bar")).isEqualTo("-MOVED 5061 127.0.0.1:7001\r\n");
            assertThat(a2.command("KVS.PEEK", "bar")).isEqualTo("-MOVED 5061 127.0.0.1:7001\r\n");
            assertThat(a2.command("READONLY")).isEqualTo("+OK\r\n");
            assertThat(a2.command("MEMORY", "USAGE", "bar")).isEqualTo("$-1\r\n");
            assertThat(a2.command("KVS.PEEK", "bar")).isEqualTo("$-1\r\n");
            assertThat(a2.command("MEMORY", "USAGE", "foo")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
            assertThat(a2.command("KVS.PEEK", "foo")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
        }
    }

    @Test
    void aQueuedCommandOfAnotherSlotIsMovedAndItsExecAborts() {
        // as Redis 7.0.15: -MOVED to a queued command of another slot, then -EXECABORT to EXEC
        try (RespChannel a1 = node("a1")) {
            assertThat(a1.command("MULTI")).isEqualTo("+OK\r\n");
            assertThat(a1.command("SET", "foo", "1")).isEqualTo("-MOVED 12182 127.0.0.1:7003\r\n");
            assertThat(a1.command("EXEC"))
                    .isEqualTo("-EXECABORT Transaction discarded because of previous errors.\r\n");
        }
    }

    @Test
    void withoutAClusterViewNoSlotIsChecked() {
        try (RespChannel alone = RespChannel.withDefaults()) {
            assertThat(alone.command("MGET", "bar", "foo")).isEqualTo("*2\r\n$-1\r\n$-1\r\n");
            assertThat(alone.command("GET", "foo")).isEqualTo("$-1\r\n");
        }
    }

    private static int slot(String key) {
        return HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    }
}
