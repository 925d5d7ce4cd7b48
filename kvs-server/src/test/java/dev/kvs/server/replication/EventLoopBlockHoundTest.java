package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.kvs.core.StoreConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.wan.WanLink;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;
import redis.clients.jedis.Jedis;

/**
 * Nothing blocks a node's event loop, checked rather than timed: BlockHound (a Java agent) rewrites
 * the JDK's blocking methods ({@code Thread.sleep}, socket and file I/O, {@code Object.wait}, parking
 * in locks and futures...) to report every call made on a thread marked non-blocking. The node's
 * Netty event loops are marked: {@code kvs-accept}, {@code kvs-io} (RESP), {@code kvs-admin}, {@code
 * kvs-repl} and {@code kvs-repl-values} (replication keys and values); the WAN emulator's loops and
 * the admin actions' pool are not (the latter is where blocking role changes belong). Real traffic then
 * runs through a primary and a backup in this JVM: AUTH, small and 1 MiB SET/GET, MSET, MGET, DEL,
 * INFO, a protocol error, the admin routes, a link cut and heal, and a planned switchover with the
 * failback that follows. Any report fails the test with the call's stack.
 *
 * <p>Runs in a JVM of its own (the {@code blockhound} surefire execution) started with {@code
 * -XX:+AllowRedefinitionToAddDeleteMethods}, which BlockHound needs on JDK 13 and later; elsewhere it
 * is skipped with an assumption saying so.
 */
class EventLoopBlockHoundTest {
    /** The node's event loops, as {@code DefaultThreadFactory} names their threads: {@code kvs-io-3-1}. */
    static final Pattern NODE_LOOP = Pattern.compile("kvs-(accept|io|admin|repl|repl-values)-\\d+-\\d+");

    private static final List<String> reports = new CopyOnWriteArrayList<>();
    private static final String PASSWORD = "event-loop-pass";

    @BeforeAll
    static void installBlockHound() {
        Assumptions.assumeTrue(
                redefinitionAllowed(),
                "BlockHound needs -XX:+AllowRedefinitionToAddDeleteMethods: the blockhound surefire execution"
                        + " runs this test with it");
        BlockHound.Builder b = BlockHound.builder();
        // Netty's own integration first: it allows the waits Netty does by design (an idle loop parking
        // in its task queue, the pooled allocator's short locks, the JDK SSLEngine's delegated tasks)
        for (BlockHoundIntegration i : ServiceLoader.load(BlockHoundIntegration.class)) b.with(i);
        b.with(builder -> {
            // only the node's loops: Netty's integration marks every Netty thread, the WAN emulator's too
            builder.nonBlockingThreadPredicate(
                    p -> t -> NODE_LOOP.matcher(t.getName()).matches());
            // the store's per-key stripe locks (ReentrantLock) guard a record's update in memory: no I/O
            // and no waiting under them, so a loop parks only until another thread's update of a key in
            // the same stripe is done. Seen here (42 parks in one run) between a backup's key loop
            // (BackupApplier.announce) and value loop (BackupApplier.apply) writing the same keys. The one
            // store operation that takes every stripe (clear) is not called by the node.
            builder.allowBlockingCallsInside("dev.kvs.core.internal.KeyStripes", "lock");
            builder.allowBlockingCallsInside("dev.kvs.core.internal.KeyStripes", "lockInOrder");
            // the EXEC barrier (ExecBarrier): a loop waits for it only while another loop runs one command,
            // or an EXEC runs its queued commands (in memory, never across a reply that waits), as for the
            // stripe locks
            builder.allowBlockingCallsInside("dev.kvs.server.internal.resp.ExecBarrier", "enter");
            builder.allowBlockingCallsInside("dev.kvs.server.internal.resp.ExecBarrier", "alone");
            // Netty 4.2's adaptive allocator: a magazine freed while the group expands takes its
            // StampedLock write lock, held only to hand a chunk back (no I/O under it). Netty's own
            // integration does not list it; seen once in CI on JDK 25 (a receive buffer allocation on
            // kvs-repl-values racing another loop's allocation).
            builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free");
            // Chronicle Map's segment locks: spin locks in the map's own memory, each held for one
            // operation on one entry (a lookup, and at most one 64 KiB value chunk copied), no I/O. A loop
            // spins only until another thread's operation on the same segment ends, as with the stripe
            // locks. Seen in CI on JDK 17: the backup's value loop freeing the chunks of a staged value
            // the primary sent again from its start, while another thread held that chunk segment.
            for (String lock : List.of("readLock", "updateLock", "writeLock", "upgradeUpdateToWriteLock")) {
                builder.allowBlockingCallsInside("net.openhft.chronicle.hash.impl.BigSegmentHeader", lock);
            }
            builder.blockingMethodCallback(
                    m -> reports.add(Thread.currentThread().getName() + ": " + m + "\n"
                            + Arrays.stream(new Throwable().getStackTrace())
                                    .skip(1)
                                    .limit(40)
                                    .map(f -> "    at " + f)
                                    .collect(Collectors.joining("\n"))));
        });
        b.install();
    }

    private static boolean redefinitionAllowed() {
        if (Runtime.version().feature() < 13) return true;
        HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        try {
            return Boolean.parseBoolean(
                    hotspot.getVMOption("AllowRedefinitionToAddDeleteMethods").getValue());
        } catch (IllegalArgumentException noSuchOption) {
            return false;
        }
    }

    @BeforeEach
    void clear() {
        reports.clear();
    }

    @Test
    void aSleepOnANodeLoopIsReportedAndOnTheWanEmulatorsIsNot() throws Exception {
        // the check itself can fail: a node-named loop that sleeps is reported, with the call's stack
        EventLoopGroup node =
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("kvs-io"), NioIoHandler.newFactory());
        EventLoopGroup wan =
                new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("kvs-wan"), NioIoHandler.newFactory());
        try {
            node.submit(() -> sleep(1)).get(10, TimeUnit.SECONDS);
            wan.submit(() -> sleep(1)).get(10, TimeUnit.SECONDS);
        } finally {
            node.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            wan.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        assertThat(reports).hasSize(1);
        assertThat(reports.get(0))
                .startsWith("kvs-io-")
                .contains("java.lang.Thread", "sleep", "EventLoopBlockHoundTest");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void realTrafficThroughAPrimaryAndABackupNeverBlocksAnEventLoop() throws Exception {
        try (Pair dc = new Pair();
                Jedis a = dc.client(dc.a);
                Jedis b = dc.client(dc.b)) {
            assertThatThrownBy(() -> a.auth("wrong")).hasMessageContaining("WRONGPASS");
            a.auth(PASSWORD);
            b.auth(PASSWORD);
            assertThat(a.ping()).isEqualTo("PONG");
            Random random = new Random(12);
            for (int i = 0; i < 200; i++) assertThat(a.set("k" + i, "v" + i)).isEqualTo("OK");
            for (int i = 0; i < 200; i++) assertThat(a.get("k" + i)).isEqualTo("v" + i);
            Map<String, String> many = new HashMap<>();
            for (int i = 0; i < 20; i++) many.put("m" + i, "w" + i);
            List<String> kv = new ArrayList<>();
            many.forEach((k, v) -> {
                kv.add(k);
                kv.add(v);
            });
            assertThat(a.mset(kv.toArray(String[]::new))).isEqualTo("OK");
            assertThat(a.mget("m0", "m19", "none")).containsExactly("w0", "w19", null);
            assertThat(a.del("k0", "k1", "m0")).isEqualTo(3);
            assertThat(a.rename("k2", "k2-renamed")).isEqualTo("OK");
            assertThat(a.renamenx("k3", "k2-renamed")).isZero();
            byte[][] big = new byte[4][];
            for (int i = 0; i < big.length; i++) {
                big[i] = new byte[1 << 20];
                random.nextBytes(big[i]);
                assertThat(a.set(("big" + i).getBytes(StandardCharsets.UTF_8), big[i]))
                        .isEqualTo("OK");
            }
            for (int i = 0; i < big.length; i++) {
                assertThat(a.get(("big" + i).getBytes(StandardCharsets.UTF_8))).isEqualTo(big[i]);
            }
            redis.clients.jedis.Transaction tx = a.multi();
            tx.set("t1", "x");
            tx.incr("t2");
            tx.get("t1");
            assertThat(tx.exec()).containsExactly("OK", 1L, "x");
            assertThat(a.info()).contains("kvs_role:primary");
            assertThat(b.info("replication")).contains("kvs_role:backup");
            assertThat(rawReply(dc.a.port(), "*1\r\n$-5\r\n")).startsWith("-ERR");

            for (KvsNode n : List.of(dc.a, dc.b)) {
                assertThat(Admin.get(n.adminPort(), "/health")).contains("ok");
                assertThat(Admin.get(n.adminPort(), "/status")).contains("\"role\"");
                assertThat(Admin.get(n.adminPort(), "/metrics")).contains("kvs_");
                assertThat(Admin.get(n.adminPort(), "/nope")).contains("404");
            }

            // a cut: the primary's writes wait, it redials, the backup takes the link back
            dc.toB.cut();
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(Admin.get(dc.a.adminPort(), "/status"))
                            .doesNotContain("\"state\":\"streaming\""));
            dc.toB.heal();
            assertThat(a.set("after-cut", "x")).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() ->
                            assertThat(Admin.get(dc.a.adminPort(), "/status")).contains("\"pendingValues\":0"));

            // a planned switchover: B takes over, A fails back and becomes its backup
            assertThat(Admin.post(dc.a.adminPort(), "/switchover?timeoutMs=30000"))
                    .contains("\"epoch\":2");
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() ->
                            assertThat(Admin.get(dc.a.adminPort(), "/failback")).contains("\"state\":\"done\""));
            assertThat(b.set("on-b", "y")).isEqualTo("OK");
            assertThat(b.get(("big0").getBytes(StandardCharsets.UTF_8))).isEqualTo(big[0]);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(JedisAccess.peek(a, "on-b".getBytes(StandardCharsets.UTF_8)))
                            .isNotNull());
            // a flush on the new primary, and on its backup (the old primary) from the key packet
            assertThat(b.flushDB()).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(a.dbSize()).isZero());
        }
        assertThat(reports)
                .as("blocking calls on the node's event loops:%n%s", String.join("\n\n", reports))
                .isEmpty();
    }

    /** Sends raw bytes to a RESP port and returns the first reply line. */
    private static String rawReply(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("AUTH " + PASSWORD + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder lines = new StringBuilder();
            int c;
            int crlf = 0;
            while (crlf < 2 && (c = in.read()) >= 0) {
                lines.append((char) c);
                if (c == '\n') crlf++;
            }
            String all = lines.toString();
            return all.substring(all.indexOf('\n') + 1); // after AUTH's +OK
        }
    }

    /** Two nodes that each know the other as their peer, with a password, a WAN link each way. */
    private static final class Pair implements AutoCloseable {
        final TwoDc dc;
        final WanLink toA;
        final WanLink toB;
        final KvsNode b;
        final KvsNode a;

        Pair() {
            UnaryOperator<NodeConfig.Builder> secured =
                    n -> n.requirepass(PASSWORD).admin(AdminConfig.defaults().withTrustLoopback(true));
            dc = TwoDc.builder()
                    .names("dc-a", "dc-b")
                    .mode(ReplicationMode.ID_FIRST)
                    .replication(TwoDc.replication().build())
                    .store(StoreConfig.builder()
                            .maxEntries(10_000)
                            .maxBytes(64L << 20)
                            .build())
                    .link(Duration.ofMillis(2), 0)
                    .returnLink(Duration.ofMillis(2))
                    .primary(secured)
                    .backup(secured)
                    .start();
            toA = dc.returnLink();
            toB = dc.link();
            b = dc.backup();
            a = dc.primary();
        }

        Jedis client(KvsNode n) {
            return new Jedis("127.0.0.1", n.port(), 30_000);
        }

        @Override
        public void close() {
            dc.close();
        }
    }
}
