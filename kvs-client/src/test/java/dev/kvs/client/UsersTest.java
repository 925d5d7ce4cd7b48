package dev.kvs.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.server.KvsNode;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import dev.kvs.server.config.UserConfig.Role;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SDK logged in as a named user of a real node's {@code users:} list: the role decides what runs,
 * a refused command is a {@link NoPermissionException}, a wrong login an {@link
 * AuthenticationException} sent once (never retried), and every new connection, after a failover
 * and back, logs in again.
 */
class UsersTest {
    private static final List<UserConfig> USERS = List.of(
            UserConfig.withPassword("app", "app-pass", Role.READWRITE),
            UserConfig.withPassword("dashboard", "dash-pass", Role.READONLY),
            UserConfig.withPassword("ops", "ops-pass", Role.ADMIN));

    private static KvsNode node;

    @BeforeAll
    static void start() {
        node = KvsNode.start(withUsers(Nodes.primary("users-test")).build());
    }

    @AfterAll
    static void stop() {
        if (node != null) node.close();
    }

    private static NodeConfig.Builder withUsers(NodeConfig.Builder b) {
        return b.users(USERS)
                .admin(AdminConfig.defaults().withTrustLoopback(true)); // the admin port is not what this test is about
    }

    private static KvsClient.Builder as(String user, String password, String... endpoints) {
        return KvsClient.builder().endpoints(endpoints).credentials(user, password);
    }

    @Test
    void readwriteUserWritesAndReads() {
        try (KvsClient app = as("app", "app-pass", Nodes.endpoint(node)).build()) {
            app.put("rw-key", "v1");
            assertThat(app.get("rw-key")).isEqualTo("v1");
            assertThat(app.delete("rw-key")).isTrue();
        }
    }

    @Test
    void readonlyUserReadsButEveryWriteIsRefusedWithNoPermission() {
        try (KvsClient app = as("app", "app-pass", Nodes.endpoint(node)).build();
                KvsClient dashboard =
                        as("dashboard", "dash-pass", Nodes.endpoint(node)).build()) {
            app.put("ro-key", "written-by-app");
            long deniedBefore = info("acl_access_denied_cmd");

            assertThat(dashboard.get("ro-key")).isEqualTo("written-by-app");
            assertThat(dashboard.exists("ro-key".getBytes(UTF_8))).isTrue();
            assertThatThrownBy(() -> dashboard.put("ro-key", "overwritten"))
                    .isInstanceOf(NoPermissionException.class)
                    .hasMessageStartingWith("NOPERM")
                    .hasMessageContaining("'set'");
            assertThatThrownBy(() -> dashboard.delete("ro-key")).isInstanceOf(NoPermissionException.class);
            assertThatThrownBy(() -> dashboard
                            .putAllAsync(List.of("a".getBytes(UTF_8)), List.of(new byte[1]))
                            .join())
                    .hasCauseInstanceOf(NoPermissionException.class);
            // each refused write reached the server exactly once: none was retried
            assertThat(info("acl_access_denied_cmd")).isEqualTo(deniedBefore + 3);
            // nothing was written, and the connection still serves reads
            assertThat(dashboard.get("ro-key")).isEqualTo("written-by-app");
        }
    }

    @Test
    void wrongPasswordOrUnknownUserFailsAtOnceWithOneLoginAttempt() {
        try (KvsNode second =
                        KvsNode.start(withUsers(Nodes.primary("users-second")).build());
                KvsClient wrong = as("app", "not-the-password", Nodes.endpoint(node), Nodes.endpoint(second))
                        .build();
                KvsClient unknown =
                        as("nobody", "app-pass", Nodes.endpoint(node)).build()) {
            long before = info("acl_access_denied_auth");
            assertThatThrownBy(() -> wrong.get("k"))
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageStartingWith("WRONGPASS");
            assertThatThrownBy(() -> unknown.put("k", "v"))
                    .isInstanceOf(AuthenticationException.class)
                    .hasMessageStartingWith("WRONGPASS");
            // one AUTH each on the first endpoint; the second endpoint was never tried
            assertThat(info("acl_access_denied_auth")).isEqualTo(before + 2);
            assertThat(info(second, "acl_access_denied_auth")).isZero();
        }
    }

    @Test
    void clientLogsInAgainOnEveryNewConnectionAcrossAFailoverAndBack() {
        int mainPort = Nodes.freePort();
        String main = "127.0.0.1:" + mainPort;
        KvsNode mainNode = KvsNode.start(
                withUsers(Nodes.primary("users-main")).port(mainPort).build());
        try (KvsNode other =
                        KvsNode.start(withUsers(Nodes.primary("users-other")).build());
                KvsClient app = as("app", "app-pass", main, Nodes.endpoint(other))
                        .endpointRecheckInterval(Duration.ofMillis(100))
                        .build()) {
            app.put("k", "on-main");
            assertThat(app.activeEndpoint()).isEqualTo(main);

            mainNode.close(); // the client's connection drops: it moves to other and logs in there
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptionsInstanceOf(ConnectionLostException.class)
                    .until(() -> {
                        app.put("k", "on-other");
                        return app.activeEndpoint().equals(Nodes.endpoint(other));
                    });
            assertThat(app.get("k")).isEqualTo("on-other");

            mainNode = KvsNode.start(
                    withUsers(Nodes.primary("users-main")).port(mainPort).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                app.put("k", "back-on-main");
                return app.activeEndpoint().equals(main);
            });
            assertThat(app.get("k")).isEqualTo("back-on-main");
            // no login was refused, and no command ran before a login (it would have been -NOAUTH)
            assertThat(info(mainNode, "acl_access_denied_auth")).isZero();
            assertThat(info(other, "acl_access_denied_auth")).isZero();
        } finally {
            mainNode.close();
        }
    }

    private static long info(String field) {
        return info(node, field);
    }

    /** A field of {@code INFO} read over a raw socket as the admin user. */
    private static long info(KvsNode n, String field) {
        try (Socket s = new Socket("127.0.0.1", n.port())) {
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            out.write("AUTH ops ops-pass\r\nINFO\r\nQUIT\r\n".getBytes(UTF_8));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            for (int r; (r = in.read(buf)) > 0; ) all.write(buf, 0, r);
            String text = all.toString(UTF_8);
            Matcher m =
                    Pattern.compile("(?m)^" + Pattern.quote(field) + ":(\\d+)").matcher(text);
            assertThat(m.find()).as(field + " in INFO: " + text).isTrue();
            return Long.parseLong(m.group(1));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
