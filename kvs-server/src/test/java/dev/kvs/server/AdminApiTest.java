package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The admin API of a real node against bad input, slow actions and clients it should not obey: every
 * refusal is a 4xx JSON error that leaves the node as it was, and {@code /health} answers while a
 * switchover waits.
 */
class AdminApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "s3cret-admin-token-0123456789";

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A lone primary in async mode: a write answers at once, with or without a backup. */
    private static NodeConfig.Builder lonePrimary() {
        return NodeConfig.builder()
                .port(0)
                .adminPort(0)
                .replPort(0)
                .mode(ReplicationMode.ASYNC)
                .store(StoreConfig.builder()
                        .maxEntries(10_000)
                        .maxBytes(64L << 20)
                        .build());
    }

    /** A primary whose backup never answers: its link stays {@code connecting}. */
    private static NodeConfig.Builder primaryWithUnreachableBackup() throws IOException {
        return lonePrimary()
                .peer("127.0.0.1:" + closedPort())
                .replication(ReplicatorConfig.builder()
                        .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                        .build());
    }

    private static NodeConfig.Builder loneBackup() {
        return lonePrimary().role(Role.BACKUP);
    }

    @Test
    void demotingALonePrimaryIsRefusedAndItKeepsServing() throws Exception {
        try (KvsNode node = KvsNode.start(lonePrimary().build());
                Jedis j = new Jedis("127.0.0.1", node.port())) {
            HttpResponse<String> r = post(node, "/demote?epoch=99");

            assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
            assertThat(error(r)).contains("no peer");
            assertThat(j.set("k", "v")).isEqualTo("OK");
            JsonNode status = status(node);
            assertThat(status.path("role").asText()).isEqualTo("primary");
            assertThat(status.path("epoch").asLong()).isEqualTo(1);
        }
    }

    @Test
    void demoteRefusesEpochsThatAreNotNumbersOrTooFarAhead() throws Exception {
        try (KvsNode node = KvsNode.start(primaryWithUnreachableBackup().build());
                Jedis j = new Jedis("127.0.0.1", node.port())) {
            for (String epoch :
                    List.of("9223372036854775807", "1000002", "99999999999999999999", "abc", "", "1e3", "2&epoch=3")) {
                HttpResponse<String> r = post(node, "/demote?epoch=" + epoch);
                assertThat(r.statusCode()).as("epoch=%s: %s", epoch, r.body()).isEqualTo(400);
                assertThat(error(r)).as("epoch=%s", epoch).contains("epoch");
            }
            for (String epoch : List.of("1", "0", "-3")) {
                HttpResponse<String> r = post(node, "/demote?epoch=" + epoch);
                assertThat(r.statusCode()).as("epoch=%s: %s", epoch, r.body()).isEqualTo(409);
                assertThat(error(r)).contains("not newer");
            }
            assertThat(j.set("k", "v")).isEqualTo("OK");
            assertThat(status(node).path("role").asText()).isEqualTo("primary");

            HttpResponse<String> furthest = post(node, "/demote?epoch=1000001");
            assertThat(furthest.statusCode()).as(furthest.body()).isEqualTo(200);
            assertThat(JSON.readTree(furthest.body()).path("epoch").asLong()).isEqualTo(1_000_001);
        }
    }

    @Test
    void switchoverRefusesTimeoutsOutOfRangeAndWritesGoOn() throws Exception {
        try (KvsNode node = KvsNode.start(primaryWithUnreachableBackup().build());
                Jedis j = new Jedis("127.0.0.1", node.port())) {
            for (String timeout : List.of("9999999999999", "600001", "0", "-1", "1.5", "x")) {
                HttpResponse<String> r = post(node, "/switchover?timeoutMs=" + timeout);
                assertThat(r.statusCode())
                        .as("timeoutMs=%s: %s", timeout, r.body())
                        .isEqualTo(400);
                assertThat(error(r)).contains("timeoutMs");
            }
            assertThat(j.set("k", "v")).isEqualTo("OK");
            assertThat(status(node).path("failover").path("writeFence").isNull())
                    .isTrue();
        }
    }

    @Test
    void promoteAndResolveTakeOnlyTrueOrFalseAndNoUnknownParameter() throws Exception {
        try (KvsNode node = KvsNode.start(loneBackup().build())) {
            for (String query :
                    List.of("lost=yes", "lost=1", "lost=TRUE", "lost=", "lsot=true", "lost=true&lost=false")) {
                HttpResponse<String> r = post(node, "/promote?" + query);
                assertThat(r.statusCode()).as("%s: %s", query, r.body()).isEqualTo(400);
            }
            assertThat(status(node).path("role").asText()).isEqualTo("backup");

            HttpResponse<String> promoted = post(node, "/promote?lost=false");
            assertThat(promoted.statusCode()).as(promoted.body()).isEqualTo(200);
            assertThat(JSON.readTree(promoted.body()).path("epoch").asLong()).isEqualTo(2);

            HttpResponse<String> notABoolean = post(node, "/resolve?all=1");
            assertThat(notABoolean.statusCode()).as(notABoolean.body()).isEqualTo(400);
            assertThat(error(notABoolean)).contains("all");
            HttpResponse<String> all = post(node, "/resolve?all=true");
            assertThat(all.statusCode()).as(all.body()).isEqualTo(200);
            assertThat(JSON.readTree(all.body()).path("resolved").asInt()).isZero();
        }
    }

    @Test
    void healthAnswersWhileASwitchoverWaitsForAnUnreachableBackupAndASecondOneIsRefused() throws Exception {
        KvsNode node = KvsNode.start(primaryWithUnreachableBackup().build());
        CompletableFuture<HttpResponse<String>> switchover;
        try {
            switchover = http.sendAsync(
                    request(node, "/switchover?timeoutMs=60000")
                            .header("X-Kvs-Admin", "1")
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            // the switchover fences writes first: it is under way once /status shows the fence
            await().atMost(Duration.ofSeconds(20))
                    .until(
                            () -> status(node)
                                    .path("failover")
                                    .path("writeFence")
                                    .asText(),
                            f -> f.contains("switchover"));

            HttpResponse<String> health = http.sendAsync(
                            request(node, "/health").build(), HttpResponse.BodyHandlers.ofString())
                    .get(10, TimeUnit.SECONDS);
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(switchover)
                    .as("the switchover still waits for the backup")
                    .isNotDone();

            HttpResponse<String> second = post(node, "/switchover?timeoutMs=1000");
            assertThat(second.statusCode()).as(second.body()).isEqualTo(409);
            assertThat(error(second)).contains("in progress");
        } finally {
            node.close();
        }
        // closing the node ends the switchover: its client gets an answer or a closed connection, no hang
        await().atMost(Duration.ofSeconds(20)).until(switchover::isDone);
    }

    @Test
    void aRemoteClientMayReadButNotChangeANodeWithoutAToken() throws Exception {
        Optional<InetAddress> remote = nonLoopbackAddress();
        assumeTrue(remote.isPresent(), "this machine has no non-loopback IPv4 address to be a remote client from");
        // bound to every address so that a client can reach it from one that is not loopback; replication
        // is not what this test is about
        try (KvsNode node = KvsNode.start(
                loneBackup().bind("0.0.0.0").insecureReplication(true).build())) {
            String host = remote.get().getHostAddress();

            HttpResponse<String> refused = send(node, host, "POST", "/promote", null);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(error(refused)).contains("admin.token", "loopback");
            assertThat(send(node, host, "GET", "/status", null).statusCode()).isEqualTo(200);
            assertThat(send(node, host, "GET", "/lost", null).statusCode()).isEqualTo(200);
            assertThat(status(node).path("role").asText()).isEqualTo("backup");

            HttpResponse<String> local = post(node, "/promote");
            assertThat(local.statusCode()).as(local.body()).isEqualTo(200);
        }
    }

    @Test
    void withATokenEveryRouteButHealthNeedsItFromLoopbackToo() throws Exception {
        try (KvsNode node = KvsNode.start(
                loneBackup().admin(AdminConfig.defaults().withToken(TOKEN)).build())) {
            HttpResponse<String> anonymous = send(node, "127.0.0.1", "POST", "/promote", null);
            assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(401);
            assertThat(anonymous.headers().firstValue("www-authenticate"))
                    .hasValueSatisfying(h -> assertThat(h).startsWith("Bearer"));
            assertThat(send(node, "127.0.0.1", "GET", "/status", null).statusCode())
                    .isEqualTo(401);
            assertThat(send(node, "127.0.0.1", "GET", "/status", "Bearer " + TOKEN + "x")
                            .statusCode())
                    .isEqualTo(401);
            assertThat(send(node, "127.0.0.1", "GET", "/health", null).statusCode())
                    .isEqualTo(200);

            HttpResponse<String> promoted = send(node, "127.0.0.1", "POST", "/promote", "Bearer " + TOKEN);
            assertThat(promoted.statusCode()).as(promoted.body()).isEqualTo(200);
            assertThat(send(node, "127.0.0.1", "GET", "/status", "bearer " + TOKEN)
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    /** An IPv4 address of an interface that is up and not loopback: connecting to it is not loopback. */
    static Optional<InetAddress> nonLoopbackAddress() throws SocketException {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) continue;
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return Optional.of(a);
                }
            }
        }
        return Optional.empty();
    }

    private JsonNode status(KvsNode node) throws Exception {
        HttpResponse<String> r = http.send(request(node, "/status").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private HttpResponse<String> post(KvsNode node, String pathAndQuery) throws Exception {
        return http.send(
                request(node, pathAndQuery)
                        .header("X-Kvs-Admin", "1")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> send(KvsNode node, String host, String method, String path, String authorization)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + host + ":" + node.adminPort() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("X-Kvs-Admin", "1");
        if (authorization != null) b.header("Authorization", authorization);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder request(KvsNode node, String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + pathAndQuery))
                .timeout(Duration.ofSeconds(90));
    }

    /** The {@code error} of a JSON error answer. */
    private static String error(HttpResponse<String> r) throws IOException {
        assertThat(r.headers().firstValue("content-type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("status").asInt()).isEqualTo(r.statusCode());
        return body.path("error").asText();
    }
}
