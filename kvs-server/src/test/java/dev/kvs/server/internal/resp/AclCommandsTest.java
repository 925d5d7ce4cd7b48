package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.config.UserConfig.Role;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Users on the client port, command by command: logging in with AUTH and HELLO, ACL, what each role
 * may run, and the pre-auth limits, auth timeout and protected mode when only {@code users} (no
 * {@code requirepass}) ask for a login.
 */
class AclCommandsTest {
    private static final String WRONGPASS = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";

    private static NodeConfig.Builder withUsers() {
        return NodeConfig.builder()
                .store(StoreConfig.builder().maxBytes(16 << 20).build())
                .user(UserConfig.withPassword("reader", "r-pass", Role.READONLY))
                .user(UserConfig.withPassword("writer", "w-pass", Role.READWRITE))
                .user(UserConfig.withPassword("ops", "o-pass", Role.ADMIN));
    }

    @Test
    void helloAuthLogsInByName() {
        try (RespChannel resp = new RespChannel(withUsers().build())) {
            assertThat(resp.command("HELLO", "2", "AUTH", "writer", "wrong")).isEqualTo(WRONGPASS);
            assertThat(resp.command("HELLO", "4", "AUTH", "writer", "w-pass")).startsWith("-NOPROTO");
            assertThat(resp.command("GET", "k")).startsWith("-NOAUTH");

            assertThat(resp.command("HELLO", "2", "AUTH", "writer", "w-pass", "SETNAME", "app"))
                    .startsWith("*14\r\n$6\r\nserver\r\n$3\r\nkvs\r\n");
            assertThat(resp.command("ACL", "WHOAMI")).isEqualTo("$6\r\nwriter\r\n");
            assertThat(resp.command("CLIENT", "INFO")).contains(" name=app ").contains(" user=writer\n");
        }
    }

    @Test
    void aReadonlyUserRunsTheStringReadsButNoneOfTheStringWrites() {
        try (RespChannel resp = new RespChannel(withUsers().build())) {
            assertThat(resp.command("AUTH", "writer", "w-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("SET", "k", "hello")).isEqualTo("+OK\r\n");
            assertThat(resp.command("AUTH", "reader", "r-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("GETRANGE", "k", "0", "1")).isEqualTo("$2\r\nhe\r\n");
            assertThat(resp.command("TYPE", "k")).isEqualTo("+string\r\n");
            assertThat(resp.command("ROLE")).startsWith("*3\r\n$6\r\nmaster\r\n");
            assertThat(resp.command("TIME")).startsWith("*2\r\n");
            for (String[] write : new String[][] {
                {"INCR", "n"},
                {"DECR", "n"},
                {"INCRBY", "n", "1"},
                {"DECRBY", "n", "1"},
                {"INCRBYFLOAT", "n", "1"},
                {"APPEND", "k", "x"},
                {"GETSET", "k", "x"},
                {"GETDEL", "k"},
                {"SETNX", "n", "x"},
                {"MSETNX", "n", "x"},
                {"SETRANGE", "k", "0", "x"}
            }) {
                assertThat(resp.command(write))
                        .isEqualTo("-NOPERM this user has no permissions to run the '"
                                + write[0].toLowerCase(java.util.Locale.ROOT) + "' command\r\n");
            }
            assertThat(resp.command("GET", "k")).isEqualTo("$5\r\nhello\r\n");
            assertThat(resp.command("EXISTS", "n")).isEqualTo(":0\r\n");
        }
    }

    @Test
    void aclUsersAndListAreForAdminsOnlyAndShowNoPassword() {
        try (RespChannel resp = new RespChannel(withUsers().build())) {
            assertThat(resp.command("AUTH", "writer", "w-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("ACL", "USERS"))
                    .isEqualTo("-NOPERM this user has no permissions to run the 'acl|users' command\r\n");
            assertThat(resp.command("ACL", "list")).startsWith("-NOPERM").contains("'acl|list'");
            assertThat(resp.command("ACL", "WHOAMI")).isEqualTo("$6\r\nwriter\r\n");

            assertThat(resp.command("AUTH", "ops", "o-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("ACL", "USERS")).isEqualTo("*3\r\n$6\r\nreader\r\n$6\r\nwriter\r\n$3\r\nops\r\n");
            String list = resp.command("ACL", "LIST");
            assertThat(list)
                    .contains("user reader on #" + UserConfig.sha256Hex("r-pass".getBytes()) + " ~* &* +@all -@write"
                            + " -@admin\r\n")
                    .contains("user writer on #")
                    .contains("user ops on #")
                    .doesNotContain("pass\r\n");
            assertThat(resp.command("ACL", "CAT")).startsWith("-ERR unknown subcommand 'CAT'");
        }
    }

    @Test
    void eachRoleRunsOnlyWhatItMay() {
        try (RespChannel resp = new RespChannel(withUsers().build())) {
            assertThat(resp.command("AUTH", "reader", "r-pass")).isEqualTo("+OK\r\n");
            for (String[] write : new String[][] {{"SET", "k", "v"}, {"MSET", "k", "v"}, {"DEL", "k"}}) {
                assertThat(resp.command(write)).as(write[0]).startsWith("-NOPERM");
            }
            assertThat(resp.command("GET", "k")).isEqualTo("$-1\r\n");
            assertThat(resp.command("EXISTS", "k")).isEqualTo(":0\r\n");
            assertThat(resp.command("PING")).isEqualTo("+PONG\r\n");
            assertThat(resp.command("INFO", "server")).startsWith("$");
            assertThat(resp.command("KVS.PROMOTE")).startsWith("-NOPERM this user");

            assertThat(resp.command("AUTH", "writer", "w-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("SET", "k", "v")).isEqualTo("+OK\r\n");
            assertThat(resp.command("DEL", "k")).isEqualTo(":1\r\n");
            assertThat(resp.command("KVS.PROMOTE")).startsWith("-NOPERM this user");

            assertThat(resp.command("AUTH", "ops", "o-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("SET", "k", "v")).isEqualTo("+OK\r\n");
            // past the role check: admin.respCommands is still off
            assertThat(resp.command("KVS.PROMOTE")).startsWith("-NOPERM KVS.PROMOTE is disabled");

            assertThat(resp.server.stats().aclDeniedCommands.sum()).isEqualTo(5);
        }
    }

    @Test
    void commandInfoFlagsAdminCommands() {
        try (RespChannel resp = RespChannel.withDefaults()) {
            assertThat(resp.command("COMMAND", "INFO", "kvs.promote")).contains("+admin\r\n");
            assertThat(resp.command("COMMAND", "INFO", "get")).doesNotContain("admin");
        }
    }

    @Test
    void usersAloneBringThePreAuthLimits() {
        try (RespChannel resp = new RespChannel(withUsers().build())) {
            String[] eleven = new String[11];
            eleven[0] = "EXISTS";
            for (int i = 1; i < eleven.length; i++) eleven[i] = "k" + i;
            assertThat(resp.command(eleven)).isEqualTo("-ERR Protocol error: unauthenticated multibulk length\r\n");
        }
        try (RespChannel resp = new RespChannel(withUsers().build())) {
            assertThat(resp.command("AUTH", "reader", "r-pass")).isEqualTo("+OK\r\n");
            String[] eleven = new String[11];
            eleven[0] = "EXISTS";
            for (int i = 1; i < eleven.length; i++) eleven[i] = "k" + i;
            assertThat(resp.command(eleven)).isEqualTo(":0\r\n");
        }
    }

    @Test
    void usersAloneBringTheAuthTimeout() {
        try (RespChannel resp =
                new RespChannel(withUsers().authTimeoutSeconds(10).build(), null, null, true)) {
            resp.advanceTime(10, TimeUnit.SECONDS);
            assertThat(resp.drain()).startsWith("-ERR authentication timeout");
            assertThat(resp.channel.isActive()).isFalse();
        }
    }

    @Test
    void usersAloneLiftProtectedMode() {
        NodeConfig config = withUsers().bind("0.0.0.0").build();
        try (RespChannel resp = new RespChannel(config, null, new InetSocketAddress("203.0.113.7", 50_000), false)) {
            assertThat(resp.drain()).isEmpty();
            assertThat(resp.command("GET", "k")).startsWith("-NOAUTH");
            assertThat(resp.command("AUTH", "reader", "r-pass")).isEqualTo("+OK\r\n");
        }
    }

    @Test
    void aUserNamedDefaultAnswersAuthWithOnePassword() {
        NodeConfig config = withUsers()
                .user(UserConfig.withPassword("default", "d-pass", Role.READONLY))
                .build();
        try (RespChannel resp = new RespChannel(config)) {
            assertThat(resp.command("AUTH", "d-pass")).isEqualTo("+OK\r\n");
            assertThat(resp.command("ACL", "WHOAMI")).isEqualTo("$7\r\ndefault\r\n");
            assertThat(resp.command("SET", "k", "v")).startsWith("-NOPERM");
        }
    }
}
