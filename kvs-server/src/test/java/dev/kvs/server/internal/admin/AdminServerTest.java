package dev.kvs.server.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.FixedStatusReplication;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.StubStore;
import dev.kvs.server.internal.TestContexts;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static EventLoopGroup group;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private StubStore store;
    private NodeContext node;
    private AdminServer server;
    private int port;

    @BeforeAll
    static void startGroup() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void start() {
        store = StubStore.withDistinctStats();
        NodeConfig config = NodeConfig.builder()
                .name("dc1-a")
                .cluster("orders")
                .role(Role.PRIMARY)
                .mode(ReplicationMode.SYNC)
                .peer("dc2.example:7380")
                .insecureReplication(true) // a peer that is not loopback needs a secret otherwise
                .build();
        serve(TestContexts.primary(config, store, 3, 7));
    }

    private void serve(NodeContext context) {
        node = context;
        server = adminServer(node, group);
        port = server.start("127.0.0.1", 0);
    }

    /** The admin port as the node assembles it: {@code /health} and its state's routes. */
    static AdminServer adminServer(NodeContext node, EventLoopGroup group) {
        AdminServer server = new AdminServer(node.config(), node.adminPort(), group);
        StatusRoutes.register(server, () -> node.status(), node.metrics()::scrape);
        return server;
    }

    @AfterEach
    void stop() {
        server.close();
        node.metrics().close();
    }

    @Test
    void startReturnsTheEphemeralPortBound() {
        assertThat(port).isPositive().isEqualTo(server.port());
    }

    @Test
    void healthAnswersOk() throws Exception {
        HttpResponse<String> r = get("/health");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue(AdminResponse.JSON_TYPE);
        assertThat(JSON.readTree(r.body())).isEqualTo(JSON.readTree("{\"status\":\"ok\"}"));
    }

    @Test
    void statusReportsTheNode() throws Exception {
        node.metrics().connectionOpened();
        node.metrics().connectionOpened();

        HttpResponse<String> r = get("/status");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode s = JSON.readTree(r.body());
        assertThat(s.path("name").asText()).isEqualTo("dc1-a");
        assertThat(s.path("cluster").asText()).isEqualTo("orders");
        assertThat(s.path("role").asText()).isEqualTo("primary");
        assertThat(s.path("epoch").asLong()).isEqualTo(3);
        assertThat(s.path("mode").asText()).isEqualTo("sync");
        assertThat(s.path("lastTxId").asText()).isEqualTo("3:7");
        assertThat(s.path("replication").path("ackedTxId").asText())
                .as("TxIds are epoch:seq strings")
                .matches("\\d+:\\d+");
        assertThat(s.path("keys").asLong()).isEqualTo(11);
        assertThat(s.path("connections").asLong()).isEqualTo(2);
        assertThat(s.path("uptimeSeconds").isIntegralNumber()).isTrue();
        assertThat(s.path("version").asText()).isNotBlank();
        JsonNode m = s.path("memory");
        assertThat(m.path("entries").asLong()).isEqualTo(12);
        assertThat(m.path("keyBytes").asLong()).isEqualTo(340);
        assertThat(m.path("valueBytes").asLong()).isEqualTo(5600);
        assertThat(m.path("offHeapBytes").asLong()).isEqualTo(78_000);
        assertThat(m.path("maxEntries").asLong()).isEqualTo(1000);
        assertThat(m.path("maxBytes").asLong()).isEqualTo(1 << 20);
        assertThat(m.path("persistent").isBoolean()).isTrue();
        assertThat(m.path("heapUsedBytes").asLong()).isPositive();
        assertThat(m.path("heapMaxBytes").asLong())
                .isGreaterThanOrEqualTo(m.path("heapUsedBytes").asLong());
        assertThat(m.path("heapAfterGcBytes").isIntegralNumber()).isTrue();
        assertThat(m.path("heapAfterGcBytes").asLong())
                .isBetween(-1L, m.path("heapMaxBytes").asLong());
        assertThat(m.path("pageDirectorySlots").asLong()).isEqualTo(64);
        assertThat(m.path("maxPageDirectorySlots").asLong()).isEqualTo(1 << 20);
        assertThat(m.path("undoSlotBytes").asLong()).isEqualTo(2_000_000);
        assertThat(m.path("unguardedWrites").asLong()).isEqualTo(3);
        assertThat(s.path("replication").path("state").asText()).isEqualTo("none");
        assertThat(s.path("replication").path("peer").asText()).isEqualTo("dc2.example:7380");
    }

    @Test
    void statusShowsTheFlowControlAndTheValueLag() throws Exception {
        stop();
        serve(TestContexts.primary(
                node.config(),
                store,
                3,
                7,
                new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL)));

        JsonNode r = JSON.readTree(get("/status").body()).path("replication");

        assertThat(r.path("pendingValueBytes").asLong()).isEqualTo(5_242_880);
        assertThat(r.path("oldestPendingValueMillis").asLong()).isEqualTo(1_250);
        assertThat(r.path("valueBytesShipped").asLong()).isEqualTo(10_485_760);
        JsonNode f = r.path("flowControl");
        assertThat(f.path("enabled").asBoolean()).isTrue();
        assertThat(f.path("phase").asText()).isEqualTo("steady");
        assertThat(f.path("windowBytes").asLong()).isEqualTo(262_144);
        assertThat(f.path("inFlightBytes").asLong()).isEqualTo(131_072);
        assertThat(f.path("pacingRateBytesPerSecond").asLong()).isEqualTo(1_000_000);
        assertThat(f.path("baseDelayMicros").asLong()).isEqualTo(20_150);
        assertThat(f.path("queueingDelayMicros").asLong()).isEqualTo(3_500);
        assertThat(f.path("externalDelayMicros").asLong()).isEqualTo(2_000);
        assertThat(f.path("targetMicros").asLong()).isEqualTo(10_000);
        assertThat(f.path("goodputBytesPerSecond").asLong()).isEqualTo(987_654);
        assertThat(f.path("minRateAlarm").asBoolean()).isTrue();
        assertThat(f.path("slowdowns").asLong()).isEqualTo(7);
    }

    @Test
    void statusShowsTheAlarmWhileTheBackupsStoreRefusesValues() throws Exception {
        stop();
        serve(TestContexts.primary(
                node.config(), store, 3, 7, new FixedStatusReplication(FixedStatusReplication.DEGRADED)));

        JsonNode r = JSON.readTree(get("/status").body()).path("replication");

        assertThat(r.path("state").asText()).isEqualTo("degraded");
        assertThat(r.path("refusingValues").asLong()).isEqualTo(41);
        JsonNode refusals = r.path("refusals");
        assertThat(refusals.path("reason").asText()).isEqualTo("store full");
        assertThat(refusals.path("detail").asText()).isEqualTo("store full: 200 entries (maxEntries 200)");
        assertThat(refusals.path("byReason").path("store full").asLong()).isEqualTo(57);
        assertThat(refusals.path("byReason").path("value too large").asLong()).isEqualTo(1);
    }

    @Test
    void statusShowsTheBoundOnTheValueLagAndTheWritesItHeld() throws Exception {
        stop();
        serve(TestContexts.primary(
                node.config(),
                store,
                3,
                7,
                new FixedStatusReplication(FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL)));

        JsonNode lag = JSON.readTree(get("/status").body()).path("replication").path("valueLag");

        assertThat(lag.path("maxValueLagMillis").asLong()).isEqualTo(5_000);
        assertThat(lag.path("projectedLagMillis").asLong()).isEqualTo(3_200);
        assertThat(lag.path("drainBytesPerSecond").asLong()).isEqualTo(1_048_576);
        assertThat(lag.path("waits").asLong()).isEqualTo(12);
        assertThat(lag.path("waitMillis").asLong()).isEqualTo(3_456);
    }

    @Test
    void statusFollowsRoleChanges() throws Exception {
        assertThat(node.roles().demote(4)).isTrue();
        assertThat(JSON.readTree(get("/status").body()).path("role").asText()).isEqualTo("backup");
    }

    @Test
    void metricsArePrometheusTextWithKvsMeters() throws Exception {
        long[] getFigures = {1, 2_000_000}; // calls, nanos
        node.metrics().exposeCommand("GET", getFigures, f -> f[0], f -> f[1]);
        node.metrics().recordError("WRONGTYPE");

        HttpResponse<String> r = get("/metrics");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(r.body())
                .contains("# TYPE kvs_commands_seconds summary")
                .contains("kvs_commands_seconds_count{command=\"get\"} 1")
                .contains("kvs_errors_total{kind=\"WRONGTYPE\"} 1")
                .contains("kvs_keyspace_keys 11")
                .contains("jvm_memory_used_bytes");
    }

    @Test
    void unknownPathIs404Json() throws Exception {
        HttpResponse<String> r = get("/nope?x=1");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.headers().firstValue("content-type")).hasValue(AdminResponse.JSON_TYPE);
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("error").asText()).isEqualTo("no such endpoint: \"/nope\"");
        assertThat(body.path("status").asInt()).isEqualTo(404);
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/health"))
                .header("X-Kvs-Admin", "1")
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("allow")).hasValue("GET");
        assertThat(JSON.readTree(r.body()).path("error").asText())
                .contains("POST")
                .contains("/health");
    }

    @Test
    void routesAddedLaterAreServedWithTheirBodyAndQuery() throws Exception {
        server.route(
                "POST",
                "/promote",
                AdminRoute.of(req -> AdminResponse.ok(Map.of(
                        "body", req.bodyText(), "force", req.param("force").orElse("absent")))));

        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/promote?force=yes"))
                .header("X-Kvs-Admin", "1")
                .POST(HttpRequest.BodyPublishers.ofString("why"))
                .build());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body())).isEqualTo(JSON.readTree("{\"body\":\"why\",\"force\":\"yes\"}"));
    }

    @Test
    void registeringARouteTwiceFails() {
        assertThatThrownBy(() -> server.route("GET", "/health", AdminRoute.of(r -> AdminResponse.ok("x"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("route already registered: GET /health");
    }

    @Test
    void asyncRoutesAnswerWhenTheirWorkCompletes() throws Exception {
        CompletableFuture<AdminResponse> work = new CompletableFuture<>();
        server.route("GET", "/slow", req -> work);

        CompletableFuture<HttpResponse<String>> pending =
                http.sendAsync(HttpRequest.newBuilder(uri("/slow")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(pending).isNotDone();
        work.complete(AdminResponse.ok(Map.of("done", true)));

        assertThat(pending.get(5, TimeUnit.SECONDS).body()).isEqualTo("{\"done\":true}");
    }

    @Test
    void failingRoutesAnswer500AndTheServerKeepsServing() throws Exception {
        server.route("GET", "/throws", AdminRoute.of(req -> {
            throw new IllegalStateException("boom");
        }));
        server.route("GET", "/fails", req -> CompletableFuture.failedFuture(new IllegalStateException("bang")));

        HttpResponse<String> thrown = get("/throws");
        HttpResponse<String> failed = get("/fails");

        assertThat(thrown.statusCode()).isEqualTo(500);
        assertThat(JSON.readTree(thrown.body()).path("error").asText()).contains("boom");
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(JSON.readTree(failed.body()).path("error").asText()).contains("bang");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void routesThrowingAnErrorOrAnsweringNothingAnswer500AndTheServerKeepsServing() throws Exception {
        server.route("GET", "/error", AdminRoute.of(req -> {
            throw new AssertionError("oops");
        }));
        server.route("GET", "/no-stage", req -> null);
        server.route("GET", "/no-answer", AdminRoute.of(req -> null));

        for (String path : new String[] {"/error", "/no-stage", "/no-answer"}) {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(500);
            assertThat(r.headers().firstValue("content-type")).as(path).hasValue(AdminResponse.JSON_TYPE);
            assertThat(JSON.readTree(r.body()).path("error").asText()).as(path).startsWith("GET " + path + " failed");
        }
        assertThat(JSON.readTree(get("/error").body()).path("error").asText()).contains("oops");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void aRouteRefusingItsInputAnswersItsStatusAsJson() throws Exception {
        server.route("POST", "/strict", AdminRoute.of(req -> {
            req.allowOnly("lost");
            return AdminResponse.ok(Map.of("lost", req.flag("lost")));
        }));
        server.blockingRoute("POST", "/busy", req -> {
            throw AdminException.conflict("not now");
        });

        HttpResponse<String> bad = post("/strict?lost=maybe");
        HttpResponse<String> conflict = post("/busy");

        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(bad.body()).path("error").asText()).isEqualTo("lost is not true or false: \"maybe\"");
        assertThat(JSON.readTree(bad.body()).path("status").asInt()).isEqualTo(400);
        assertThat(conflict.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(conflict.body()).path("error").asText()).isEqualTo("not now");
        assertThat(post("/strict?lost=true").body()).isEqualTo("{\"lost\":true}");
    }

    @Test
    void healthAnswersWhileABlockingRouteIsBlocked() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        server.blockingRoute("POST", "/block", req -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return AdminResponse.ok(Map.of("thread", Thread.currentThread().getName()));
        });

        CompletableFuture<HttpResponse<String>> blocked = http.sendAsync(
                HttpRequest.newBuilder(uri("/block"))
                        .header("X-Kvs-Admin", "1")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(blocked).isNotDone();
        release.countDown();
        assertThat(JSON.readTree(blocked.get(10, TimeUnit.SECONDS).body())
                        .path("thread")
                        .asText())
                .startsWith("kvs-admin-action-");
    }

    @Test
    void closingInterruptsBlockedActions() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        server.blockingRoute("POST", "/block", req -> {
            entered.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.complete(true);
            }
            return AdminResponse.ok("late");
        });
        http.sendAsync(
                HttpRequest.newBuilder(uri("/block"))
                        .header("X-Kvs-Admin", "1")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

        server.close();

        assertThat(interrupted).isCompletedWithValue(true);
    }

    @Test
    void aRouteThatNeverAnswersGets503AtTheDeadline() throws Exception {
        stop();
        node = TestContexts.primary(node.config(), store, 3, 7);
        server = new AdminServer(node.config(), node.adminPort(), group, Duration.ofMillis(200));
        port = server.start("127.0.0.1", 0);
        server.route("GET", "/never", req -> new CompletableFuture<>());

        HttpResponse<String> r = get("/never");

        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(r.body()).path("error").asText())
                .isEqualTo("GET /never did not answer within 200 ms; it may still finish: see GET /status");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void withATokenRequestsButHealthNeedIt() throws Exception {
        stop();
        String token = "0123456789abcdef0123";
        serve(TestContexts.primary(
                node.config().toBuilder()
                        .admin(AdminConfig.defaults().withToken(token))
                        .build(),
                store,
                3,
                7));

        assertThat(get("/health").statusCode()).isEqualTo(200);
        HttpResponse<String> refused = get("/status");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("www-authenticate")).hasValue(AdminAccess.REALM);
        assertThat(JSON.readTree(refused.body()).path("status").asInt()).isEqualTo(401);
        assertThat(get("/nope").statusCode())
                .as("no route is revealed without the token")
                .isEqualTo(401);
        HttpResponse<String> allowed = send(HttpRequest.newBuilder(uri("/status"))
                .header("Authorization", "Bearer " + token)
                .build());
        assertThat(allowed.statusCode()).isEqualTo(200);
    }

    @Test
    void garbageRequestGets400AndTheServerKeepsServing() throws Exception {
        String reply = raw("\u0000\u0001\u0002 garbage\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 400");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }

    @Test
    void randomBytesNeverBreakTheServer() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String[] starts = {"", "GET ", "GET /status HTTP/1.1\r\n", "POST /health HTTP/1.1\r\nContent-Length: 9\r\n"};
        for (int i = 0; i < 100; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            String request = starts[i % starts.length] + new String(junk, StandardCharsets.ISO_8859_1);
            String reply = rawHalfClosed(request);
            assertThat(reply)
                    .as("seed %d, request %d", seed, i)
                    .satisfiesAnyOf(
                            r -> assertThat(r).isEmpty(), r -> assertThat(r).startsWith("HTTP/1.1 "));
        }
        assertThat(get("/health").statusCode()).as("seed %d", seed).isEqualTo(200);
    }

    @Test
    void badlyEncodedUriGets400() throws Exception {
        assertThat(raw("GET /status?x=%zz HTTP/1.1\r\nHost: localhost\r\n\r\n")).startsWith("HTTP/1.1 400");
    }

    @Test
    void oversizedBodyGets413() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/health"))
                .header("X-Kvs-Admin", "1")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[AdminServer.MAX_BODY_BYTES + 1]))
                .build());
        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void http10RequestsAreAnsweredAndClosed() throws Exception {
        String reply = raw("GET /health HTTP/1.0\r\n\r\n");
        assertThat(reply).startsWith("HTTP/1.1 200").contains("{\"status\":\"ok\"}");
    }

    @Test
    void startingOnATakenPortFailsNamingTheAddress() {
        AdminServer second = adminServer(node, group);
        try {
            assertThatThrownBy(() -> second.start("127.0.0.1", port))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageStartingWith("admin HTTP server cannot listen on 127.0.0.1:" + port + ": ");
        } finally {
            second.close();
        }
    }

    @Test
    void closeStopsListening() {
        server.close();
        assertThatThrownBy(() -> get("/health")).isInstanceOf(ConnectException.class);
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path))
                .header("X-Kvs-Admin", "1")
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Sends raw bytes, closes the sending side, and reads whatever comes back until the server closes. */
    private String rawHalfClosed(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.shutdownOutput();
            try {
                return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            } catch (java.net.SocketException reset) {
                return "";
            }
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Sends raw bytes on a fresh connection and reads until the server closes it. */
    private String raw(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
