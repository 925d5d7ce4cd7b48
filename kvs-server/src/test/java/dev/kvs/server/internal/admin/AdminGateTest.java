package dev.kvs.server.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.Role;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AdminPortStats;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.StubStore;
import dev.kvs.server.internal.TestContexts;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin port's guards on the request head, over real sockets: a refused request is answered before
 * its body is read (no {@code 100 Continue}), heads that never complete and idle connections are
 * closed, the connection cap, and the Origin, Host and {@code X-Kvs-Admin} rules.
 */
class AdminGateTest {
    private static final String TOKEN = "0123456789abcdef-token";
    private static EventLoopGroup group;

    private NodeContext node;
    private AdminServer server;
    private int port;
    private final AtomicInteger promoted = new AtomicInteger();

    @BeforeAll
    static void startGroup() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void serve(AdminConfig admin) {
        NodeConfig config = NodeConfig.builder()
                .name("dc1-a")
                .role(Role.PRIMARY)
                .admin(admin)
                .build();
        node = TestContexts.primary(config, StubStore.withDistinctStats(), 3, 7);
        server = AdminServerTest.adminServer(node, group);
        server.route("POST", "/promote", AdminRoute.of(r -> {
            promoted.incrementAndGet();
            return AdminResponse.ok(Map.of("promoted", true));
        }));
        port = server.start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        if (node != null) node.metrics().close();
    }

    private AdminPortStats.Snapshot stats() {
        return node.adminPort().snapshot();
    }

    @Test
    void anUnauthenticatedPostWithABigBodyIsRefusedBeforeAnyContinue() throws Exception {
        serve(AdminConfig.defaults().withToken(TOKEN));
        try (Socket s = connect()) {
            send(
                    s,
                    "POST /promote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1048576\r\n"
                            + "Expect: 100-continue\r\n\r\n");
            String answer = readUntilClosed(s); // the body is never sent: the node must not wait for it
            assertThat(answer).startsWith("HTTP/1.1 401").doesNotContain("100 Continue");
        }
        assertThat(promoted).hasValue(0);
        assertThat(stats().refusedRequests()).isEqualTo(1);
    }

    @Test
    void anAuthenticatedPostWithExpectContinueIsServed() throws Exception {
        serve(AdminConfig.defaults().withToken(TOKEN));
        try (Socket s = connect()) {
            send(
                    s,
                    "POST /promote HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                            + "\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n");
            assertThat(readLine(s.getInputStream())).isEqualTo("HTTP/1.1 100 Continue");
            send(s, "{}");
            assertThat(readUntilClosed(s)).contains("HTTP/1.1 200", "\"promoted\":true");
        }
        assertThat(promoted).hasValue(1);
    }

    @Test
    void anAuthenticatedBodyOverTheLimitIsRefusedUnread() throws Exception {
        serve(AdminConfig.defaults().withToken(TOKEN));
        try (Socket s = connect()) {
            send(
                    s,
                    "POST /promote HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                            + "\r\nContent-Length: " + (AdminServer.MAX_BODY_BYTES + 1)
                            + "\r\nExpect: 100-continue\r\n\r\n");
            assertThat(readUntilClosed(s)).startsWith("HTTP/1.1 413").doesNotContain("100 Continue");
        }
        assertThat(promoted).hasValue(0);
    }

    @Test
    void aHeadThatNeverCompletesIsClosedByTheTimeout() throws Exception {
        serve(AdminConfig.defaults().withLimits(16, 200, 60_000));
        try (Socket s = connect()) {
            send(s, "GET /status HTTP/1.1\r\nHost: loc"); // and nothing more
            awaitClosedByNode(s);
        }
        assertThat(stats().timedOutConnections()).isEqualTo(1);
        assertThat(stats().refusedRequests())
                .as("a head cut short by the close is no request")
                .isZero();
    }

    @Test
    void anIdleKeptAliveConnectionIsClosedByTheIdleTimeout() throws Exception {
        serve(AdminConfig.defaults().withLimits(16, 60_000, 300));
        try (Socket s = connect()) {
            send(s, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(readLine(s.getInputStream())).isEqualTo("HTTP/1.1 200 OK");
            awaitClosedByNode(s);
        }
        assertThat(stats().timedOutConnections()).isEqualTo(1);
    }

    @Test
    void pastTheCapTheOldestWaitingConnectionMakesRoom() throws Exception {
        serve(AdminConfig.defaults().withLimits(2, 60_000, 60_000));
        try (Socket first = connect();
                Socket second = connect()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> stats().connections() == 2);
            try (Socket third = connect()) {
                awaitClosedByNode(first);
                send(third, "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                assertThat(readUntilClosed(third)).startsWith("HTTP/1.1 200");
            }
            send(second, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(readLine(second.getInputStream())).isEqualTo("HTTP/1.1 200 OK");
        }
        assertThat(stats().droppedAtCap()).isEqualTo(1);
        assertThat(stats().maxConnections()).isEqualTo(2);
    }

    @Test
    void pastTheCapWithEveryConnectionBusyTheNewOneIsClosed() throws Exception {
        serve(AdminConfig.defaults().withLimits(2, 60_000, 60_000));
        CountDownLatch release = new CountDownLatch(1);
        server.blockingRoute("POST", "/block", r -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return AdminResponse.ok(Map.of());
        });
        String block = "POST /block HTTP/1.1\r\nHost: localhost\r\nX-Kvs-Admin: 1\r\nContent-Length: 0\r\n\r\n";
        try (Socket a = connect();
                Socket b = connect()) {
            send(a, block);
            send(b, block);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.busyActions() == 2);
            try (Socket c = connect()) {
                awaitClosedByNode(c);
            }
            release.countDown();
            assertThat(readLine(a.getInputStream())).isEqualTo("HTTP/1.1 200 OK");
        }
        assertThat(stats().refusedAtCap()).isEqualTo(1);
        assertThat(stats().droppedAtCap()).isZero();
    }

    @Test
    void aForeignOriginIsRefusedWithAndWithoutAToken() throws Exception {
        serve(AdminConfig.defaults());
        assertThat(post("Origin: http://evil.example\r\nX-Kvs-Admin: 1\r\n")).startsWith("HTTP/1.1 403");
        assertThat(post("Origin: null\r\nX-Kvs-Admin: 1\r\n")).startsWith("HTTP/1.1 403");
        assertThat(post("Origin: http://127.0.0.1.evil.example\r\nX-Kvs-Admin: 1\r\n"))
                .startsWith("HTTP/1.1 403");
        assertThat(promoted).hasValue(0);
        assertThat(post("Origin: http://localhost:3000\r\nX-Kvs-Admin: 1\r\n")).startsWith("HTTP/1.1 200");
        assertThat(promoted).hasValue(1);
        stop();

        serve(AdminConfig.defaults().withToken(TOKEN));
        assertThat(post("Origin: http://evil.example\r\nAuthorization: Bearer " + TOKEN + "\r\n"))
                .startsWith("HTTP/1.1 403")
                .contains("evil.example");
        assertThat(promoted).hasValue(1);
    }

    @Test
    void aHostThatIsNotTheNodesIsRefused() throws Exception {
        serve(AdminConfig.defaults().withAllowedHosts(List.of("Kvs1.Example.com")));
        assertThat(get("/status", "evil.example")).startsWith("HTTP/1.1 403").contains("DNS rebinding");
        assertThat(get("/status", "evil.example:" + port)).startsWith("HTTP/1.1 403");
        assertThat(get("/lost", "localhost.evil.example")).startsWith("HTTP/1.1 403");
        assertThat(get("/status", "127.0.0.1:" + port)).startsWith("HTTP/1.1 200");
        assertThat(get("/status", "[::1]:" + port)).startsWith("HTTP/1.1 200");
        assertThat(get("/status", "localhost")).startsWith("HTTP/1.1 200");
        assertThat(get("/status", "kvs1.example.COM:" + port)).startsWith("HTTP/1.1 200");
        assertThat(stats().refusedRequests()).isEqualTo(3);
    }

    @Test
    void aChangeWithoutTheAdminHeaderIsRefusedWithoutAToken() throws Exception {
        serve(AdminConfig.defaults());
        assertThat(post("")).startsWith("HTTP/1.1 403").contains("X-Kvs-Admin");
        assertThat(post("Content-Type: application/x-www-form-urlencoded\r\n")).startsWith("HTTP/1.1 403");
        assertThat(promoted).hasValue(0);
        assertThat(post("X-Kvs-Admin: 1\r\n")).startsWith("HTTP/1.1 200");
        assertThat(promoted).hasValue(1);
    }

    private String post(String headers) throws IOException {
        try (Socket s = connect()) {
            send(
                    s,
                    "POST /promote HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + headers
                            + "Content-Length: 0\r\nConnection: close\r\n\r\n");
            return readUntilClosed(s);
        }
    }

    private String get(String path, String host) throws IOException {
        try (Socket s = connect()) {
            send(s, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
            return readUntilClosed(s);
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(5000);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
    }

    private static String readUntilClosed(Socket s) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        try {
            in.transferTo(b);
        } catch (SocketException reset) {
            // closed with unread bytes: what came before the reset counts
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            if (c != '\r') line.append((char) c);
        }
        return line.toString();
    }

    /** Waits until the node has closed {@code s}: a read sees the end of the stream or a reset. */
    private static void awaitClosedByNode(Socket s) throws IOException {
        s.setSoTimeout(50);
        InputStream in = s.getInputStream();
        await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ZERO).until(() -> {
            try {
                while (true) {
                    if (in.read() < 0) return true;
                }
            } catch (SocketTimeoutException stillOpen) {
                return false;
            } catch (SocketException reset) {
                return true;
            }
        });
    }
}
