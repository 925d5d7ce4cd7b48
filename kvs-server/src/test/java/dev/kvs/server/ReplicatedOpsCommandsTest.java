package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.FlushMode;

/** RENAME, RENAMENX, FLUSHDB and FLUSHALL through Jedis: Redis 7's replies and errors, and who may flush. */
class ReplicatedOpsCommandsTest {
    private static NodeConfig.Builder node() {
        return NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .mode(ReplicationMode.ID_FIRST)
                .store(StoreConfig.builder()
                        .maxEntries(100_000)
                        .maxBytes(64L << 20)
                        .build());
    }

    private static Jedis client(KvsNode node) {
        return new Jedis("127.0.0.1", node.port(), 10_000);
    }

    @Test
    void renameAndRenameNxAnswerAsRedisDoes() {
        try (KvsNode node = KvsNode.start(node().build());
                Jedis c = client(node)) {
            // redis.io's RENAME example
            assertThat(c.set("mykey", "Hello")).isEqualTo("OK");
            assertThat(c.rename("mykey", "myotherkey")).isEqualTo("OK");
            assertThat(c.get("myotherkey")).isEqualTo("Hello");
            assertThat(c.exists("mykey")).isFalse();
            assertThatThrownBy(() -> c.rename("mykey", "x")).hasMessage("ERR no such key");
            assertThatThrownBy(() -> c.renamenx("mykey", "x")).hasMessage("ERR no such key");
            // the destination's old value is overwritten
            assertThat(c.set("dst", "old")).isEqualTo("OK");
            assertThat(c.rename("myotherkey", "dst")).isEqualTo("OK");
            assertThat(c.get("dst")).isEqualTo("Hello");
            // onto itself: OK for RENAME, 0 for RENAMENX; an absent key is still an error
            assertThat(c.rename("dst", "dst")).isEqualTo("OK");
            assertThat(c.renamenx("dst", "dst")).isZero();
            assertThat(c.get("dst")).isEqualTo("Hello");
            assertThatThrownBy(() -> c.rename("nope", "nope")).hasMessage("ERR no such key");
            // redis.io's RENAMENX example
            assertThat(c.set("mykey", "Hello")).isEqualTo("OK");
            assertThat(c.set("myotherkey", "World")).isEqualTo("OK");
            assertThat(c.renamenx("mykey", "myotherkey")).isZero();
            assertThat(c.get("myotherkey")).isEqualTo("World");
            assertThat(c.renamenx("mykey", "fresh")).isEqualTo(1);
            assertThat(c.get("fresh")).isEqualTo("Hello");
            assertThat(c.exists("mykey")).isFalse();
            // binary keys and a 1 MiB value move whole
            byte[] big = new byte[1 << 20];
            new java.util.Random(7).nextBytes(big);
            byte[] k1 = {0, 1, (byte) 0xff};
            byte[] k2 = {(byte) 0xfe, 0};
            assertThat(c.set(k1, big)).isEqualTo("OK");
            assertThat(c.rename(k1, k2)).isEqualTo("OK");
            assertThat(c.get(k2)).isEqualTo(big);
            assertThatThrownBy(() -> c.sendCommand(Protocol.Command.RENAME, "only-one"))
                    .hasMessage("ERR wrong number of arguments for 'rename' command");
        }
    }

    @Test
    void flushDbAndFlushAllEmptyTheStoreAndTakeSyncOrAsync() {
        try (KvsNode node = KvsNode.start(node().build());
                Jedis c = client(node)) {
            for (int i = 0; i < 1000; i++) c.set("k" + i, "v" + i);
            assertThat(c.dbSize()).isEqualTo(1000);
            assertThat(c.flushDB()).isEqualTo("OK");
            assertThat(c.dbSize()).isZero();
            assertThat(c.get("k1")).isNull();
            // a counter starts again from nothing
            assertThat(c.set("n", "41")).isEqualTo("OK");
            assertThat(c.flushAll(FlushMode.SYNC)).isEqualTo("OK");
            assertThat(c.incr("n")).isEqualTo(1);
            assertThat(c.flushDB(FlushMode.ASYNC)).isEqualTo("OK");
            assertThat(c.exists("n")).isFalse(); // gone at once, even before the sweep ends
            assertThat(c.set("after", "1")).isEqualTo("OK");
            assertThat(c.flushAll(FlushMode.ASYNC)).isEqualTo("OK");
            assertThat(c.get("after")).isNull();
            assertThat(c.mget("after", "n")).containsExactly(null, null);
            assertThat(c.keys("*"))
                    .as("SCAN/KEYS skip what a flush hid, before its sweep")
                    .isEmpty();
            assertThatThrownBy(() -> c.sendCommand(Protocol.Command.FLUSHDB, "LATER"))
                    .hasMessage("ERR syntax error");
            assertThatThrownBy(() -> c.sendCommand(Protocol.Command.FLUSHALL, "SYNC", "ASYNC"))
                    .hasMessage("ERR syntax error");
        }
    }

    @Test
    void onlyAnAdminMayFlushAndAReadWriteUserMayRename() {
        try (KvsNode node = KvsNode.start(
                        node().user(UserConfig.withPassword("writer", "w-pass", UserConfig.Role.READWRITE))
                                .user(UserConfig.withPassword("ops", "o-pass", UserConfig.Role.ADMIN))
                                .user(UserConfig.withPassword("reader", "r-pass", UserConfig.Role.READONLY))
                                .admin(AdminConfig.defaults().withTrustLoopback(true))
                                .build());
                Jedis writer = client(node);
                Jedis ops = client(node);
                Jedis reader = client(node)) {
            assertThat(writer.auth("writer", "w-pass")).isEqualTo("OK");
            assertThat(ops.auth("ops", "o-pass")).isEqualTo("OK");
            assertThat(reader.auth("reader", "r-pass")).isEqualTo("OK");
            assertThat(writer.set("a", "1")).isEqualTo("OK");
            assertThat(writer.rename("a", "b")).isEqualTo("OK");
            assertThatThrownBy(() -> reader.rename("b", "c"))
                    .hasMessage("NOPERM this user has no permissions to run the 'rename' command");
            assertThatThrownBy(writer::flushDB)
                    .hasMessage("NOPERM this user has no permissions to run the 'flushdb' command");
            assertThatThrownBy(writer::flushAll)
                    .hasMessage("NOPERM this user has no permissions to run the 'flushall' command");
            assertThat(writer.get("b")).isEqualTo("1");
            assertThat(ops.flushAll()).isEqualTo("OK");
            assertThat(writer.exists("b")).isFalse();
        }
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
