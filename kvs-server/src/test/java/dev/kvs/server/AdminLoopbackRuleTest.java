package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.config.UserConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The loopback rule fails closed: a node with a password ({@code requirepass}, {@code users}) or a
 * cluster secret and no admin token does not start unless {@code admin.trustLoopback} says so; and what
 * the admin port's guards refused shows in {@code /status}, {@code INFO} and {@code /metrics}.
 */
class AdminLoopbackRuleTest {
    private static final String TOKEN = "0123456789abcdef-token";
    private static final String SECRET = "shared-secret-0123456789";

    private static NodeConfig.Builder node() {
        return NodeConfig.builder()
                .name("dc-a")
                .role(Role.BACKUP)
                .port(0)
                .adminPort(0)
                .replPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(16L << 20)
                        .build());
    }

    private static final List<UnaryOperator<NodeConfig.Builder>> GUARDED = List.of(
            b -> b.requirepass("client-password"),
            b -> b.user(UserConfig.withPassword("app", "app-password", UserConfig.Role.READWRITE)),
            b -> b.clusterSecret(SECRET));

    @Test
    void aNodeWithAPasswordOrSecretAndNoTokenDoesNotStart() {
        for (UnaryOperator<NodeConfig.Builder> guarded : GUARDED) {
            NodeConfig config = guarded.apply(node()).build();
            assertThatThrownBy(() -> KvsNode.start(config).close())
                    .isInstanceOf(NodeStartException.class)
                    .hasMessageContaining("no admin.token")
                    .hasMessageContaining("KVS_ADMIN_TOKEN")
                    .hasMessageContaining("admin.trustLoopback: true");
        }
    }

    @Test
    void theRuleNamesWhatTheNodeGuards() {
        NodeConfig config =
                node().requirepass("client-password").clusterSecret(SECRET).build();
        assertThat(KvsNode.openAdminPort(config))
                .hasValueSatisfying(m -> assertThat(m).contains("requirepass and a cluster secret"));
    }

    @Test
    void aTokenOrTheOptInLetsItStart() throws Exception {
        for (UnaryOperator<NodeConfig.Builder> guarded : GUARDED) {
            NodeConfig withToken = guarded.apply(node())
                    .admin(AdminConfig.defaults().withToken(TOKEN))
                    .build();
            try (KvsNode n = KvsNode.start(withToken)) {
                assertThat(n.adminPort()).isPositive();
            }
            NodeConfig trusting = guarded.apply(node())
                    .admin(AdminConfig.defaults().withTrustLoopback(true))
                    .build();
            try (KvsNode n = KvsNode.start(trusting)) {
                assertThat(post(n, "/promote", "X-Kvs-Admin", "1").statusCode())
                        .as("with the opt-in a loopback client may change the node")
                        .isEqualTo(200);
            }
        }
    }

    @Test
    void aNodeWithoutPasswordOrSecretStartsWithoutAToken() {
        try (KvsNode n = KvsNode.start(node().build())) {
            assertThat(n.adminPort()).isPositive();
        }
    }

    @Test
    void refusalsShowInStatusInfoAndMetrics() throws Exception {
        try (KvsNode n = KvsNode.start(
                node().admin(AdminConfig.defaults().withToken(TOKEN)).build())) {
            assertThat(post(n, "/promote", "X-Kvs-Admin", "1").statusCode()).isEqualTo(401);
            assertThat(post(n, "/promote", "Origin", "http://evil.example").statusCode())
                    .isEqualTo(403);

            HttpResponse<String> status = get(n, "/status");
            assertThat(status.body()).contains("\"refusedRequests\":2", "\"maxConnections\":128");
            assertThat(get(n, "/metrics").body()).contains("kvs_admin_refused_requests_total 2.0");
            assertThat(info(n)).contains("kvs_admin_refused_requests:2", "kvs_admin_max_connections:128");
        }
    }

    private static HttpResponse<String> post(KvsNode n, String path, String header, String value) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + n.adminPort() + path))
                                .header(header, value)
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(KvsNode n, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + n.adminPort() + path))
                                .header("Authorization", "Bearer " + TOKEN)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    /** {@code INFO stats} over RESP. */
    private static String info(KvsNode n) throws IOException {
        try (Socket s = new Socket("127.0.0.1", n.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write("*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (!b.toString(StandardCharsets.US_ASCII).contains("kvs_admin_cap_refused_connections")) {
                int c = in.read();
                if (c < 0) break;
                b.write(c);
            }
            return b.toString(StandardCharsets.US_ASCII);
        }
    }
}
