package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/** Redis-6-style users on a real node, through Jedis: who may log in, and what each role may run. */
class AclUsersTest {
    private static final ProtocolCommand PROMOTE = () -> "KVS.PROMOTE".getBytes(StandardCharsets.US_ASCII);

    private static NodeConfig.Builder node() {
        return NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .mode(ReplicationMode.ASYNC)
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(16L << 20)
                        .build())
                .user(UserConfig.withPassword("reader", "r-pass", UserConfig.Role.READONLY))
                .user(UserConfig.withPassword("writer", "w-pass", UserConfig.Role.READWRITE))
                .user(new UserConfig("ops", UserConfig.sha256Hex(bytes("o-pass")), UserConfig.Role.ADMIN))
                .admin(AdminConfig.defaults().withTrustLoopback(true));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Jedis client(KvsNode node) {
        return new Jedis("127.0.0.1", node.port(), 10_000);
    }

    @Test
    void aReadOnlyUserCanGetButNotSet() {
        try (KvsNode node = KvsNode.start(node().build());
                Jedis writer = client(node);
                Jedis reader = client(node)) {
            assertThat(writer.auth("writer", "w-pass")).isEqualTo("OK");
            assertThat(writer.set("k", "v")).isEqualTo("OK");

            assertThat(reader.auth("reader", "r-pass")).isEqualTo("OK");
            assertThat(reader.get("k")).isEqualTo("v");
            assertThat(reader.mget("k", "nope")).containsExactly("v", null);
            assertThatThrownBy(() -> reader.set("k", "changed"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("NOPERM this user has no permissions to run the 'set' command");
            assertThatThrownBy(() -> reader.del("k")).hasMessageStartingWith("NOPERM");
            assertThat(reader.get("k")).isEqualTo("v");
            assertThat(reader.info("stats")).contains("acl_access_denied_cmd:2");
        }
    }

    @Test
    void aReadWriteUserCanSetButNotPromote() {
        try (KvsNode node = KvsNode.start(node().role(Role.BACKUP)
                        .admin(AdminConfig.defaults().withRespCommands(true).withTrustLoopback(true))
                        .build());
                Jedis writer = client(node)) {
            assertThat(writer.auth("writer", "w-pass")).isEqualTo("OK");
            assertThatThrownBy(() -> writer.sendCommand(PROMOTE))
                    .hasMessage("NOPERM this user has no permissions to run the 'kvs.promote' command");
            assertThat(writer.info("replication")).contains("kvs_role:backup");
        }
    }

    @Test
    void anAdminCanPromoteWhenRespCommandsAreOn() {
        try (KvsNode node = KvsNode.start(node().role(Role.BACKUP)
                        .admin(AdminConfig.defaults().withRespCommands(true).withTrustLoopback(true))
                        .build());
                Jedis ops = client(node)) {
            assertThat(ops.auth("ops", "o-pass")).isEqualTo("OK");
            assertThat(new String((byte[]) ops.sendCommand(PROMOTE), StandardCharsets.UTF_8))
                    .startsWith("OK promoted to primary");
            assertThat(ops.info("replication")).contains("kvs_role:primary");
        }
    }

    @Test
    void anAdminStillNeedsRespCommandsToPromote() {
        try (KvsNode node = KvsNode.start(node().role(Role.BACKUP).build());
                Jedis ops = client(node)) {
            assertThat(ops.auth("ops", "o-pass")).isEqualTo("OK");
            assertThatThrownBy(() -> ops.sendCommand(PROMOTE)).hasMessageStartingWith("NOPERM KVS.PROMOTE is disabled");
            assertThat(ops.info("replication")).contains("kvs_role:backup");
        }
    }

    @Test
    void aWrongPasswordOrAnUnknownUserIsWrongpassAndLogsNothingIn() {
        try (KvsNode node = KvsNode.start(node().build());
                Jedis jedis = client(node)) {
            String wrongpass = "WRONGPASS invalid username-password pair or user is disabled.";
            assertThatThrownBy(() -> jedis.auth("writer", "r-pass")).hasMessage(wrongpass);
            assertThatThrownBy(() -> jedis.auth("nobody", "w-pass")).hasMessage(wrongpass);
            // no requirepass and no user named default: AUTH password has no one to log in as
            assertThatThrownBy(() -> jedis.auth("w-pass")).hasMessage(wrongpass);
            assertThatThrownBy(() -> jedis.get("k")).hasMessageStartingWith("NOAUTH");

            assertThat(jedis.auth("reader", "r-pass")).isEqualTo("OK");
            assertThatThrownBy(() -> jedis.auth("ops", "wrong")).hasMessage(wrongpass);
            assertThat(jedis.aclWhoAmI()).isEqualTo("reader"); // a failed AUTH keeps the current user
            assertThat(jedis.info("stats")).contains("acl_access_denied_auth:4");
        }
    }

    @Test
    void requirepassIsTheDefaultUsersPassword() {
        try (KvsNode node = KvsNode.start(node().requirepass("s3cret").build());
                Jedis jedis = client(node)) {
            assertThat(jedis.auth("s3cret")).isEqualTo("OK");
            assertThat(jedis.aclWhoAmI()).isEqualTo("default");
            assertThat(jedis.set("k", "v")).isEqualTo("OK");
            assertThat(jedis.auth("default", "s3cret")).isEqualTo("OK");
            assertThat(jedis.auth("writer", "w-pass")).isEqualTo("OK");
            assertThat(jedis.aclWhoAmI()).isEqualTo("writer");
        }
    }

    @Test
    void aclWhoamiAnswersTheUserName() {
        try (KvsNode node = KvsNode.start(node().build());
                Jedis jedis = client(node)) {
            assertThat(jedis.auth("ops", "o-pass")).isEqualTo("OK");
            assertThat(jedis.aclWhoAmI()).isEqualTo("ops");
            assertThat(jedis.aclUsers()).containsExactly("reader", "writer", "ops");
            assertThat(jedis.clientInfo()).contains(" user=ops");
        }
    }

    @Test
    void withoutUsersOrPasswordEveryoneIsTheDefaultUserAsBefore() {
        try (KvsNode node = KvsNode.start(node().users(List.of()).build());
                Jedis jedis = client(node)) {
            assertThat(jedis.set("k", "v")).isEqualTo("OK");
            assertThat(jedis.aclWhoAmI()).isEqualTo("default");
            assertThat(jedis.aclUsers()).containsExactly("default");
        }
    }
}
