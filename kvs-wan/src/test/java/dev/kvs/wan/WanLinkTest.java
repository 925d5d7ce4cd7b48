package dev.kvs.wan;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvs.wan.LoopbackServer.Received;
import dev.kvs.wan.LoopbackServer.Sink;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Functional tests of {@link WanLink} over loopback. Timing checks are lower bounds only (a delay or
 * a bandwidth can make things slower, never faster), so a slow machine cannot fail them.
 */
class WanLinkTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** Tracks every buffer the links allocate: all must be released once the link is closed. */
    private final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "wan-test");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void closeEverythingAndCheckEveryBufferWasReleased() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) resources.get(i).close();
        threads.shutdownNow();
        await().atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(allocator.metric().usedDirectMemory()
                                + allocator.metric().usedHeapMemory())
                        .as("bytes of buffers the link did not release")
                        .isZero());
    }

    @Test
    void relaysBytesBothWays() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()));
        byte[] data = "hello, other datacenter".getBytes(StandardCharsets.US_ASCII);

        Socket s = connect(link);
        LoopbackServer.write(s, data);

        assertThat(s.getInputStream().readNBytes(data.length)).isEqualTo(data);
        await().atMost(TIMEOUT).untilAsserted(() -> {
            WanLinkStats stats = link.stats();
            assertThat(stats.state()).isEqualTo(WanLink.State.UP);
            assertThat(stats.openConnections()).isEqualTo(1);
            assertThat(stats.acceptedConnections()).isEqualTo(1);
            assertThat(stats.toTarget().relayedBytes()).isEqualTo(data.length);
            assertThat(stats.toClient().relayedBytes()).isEqualTo(data.length);
            assertThat(stats.toTarget().queuedBytes()).isZero();
            assertThat(stats.toClient().queuedBytes()).isZero();
        });

        s.close();
        await().atMost(TIMEOUT).until(() -> link.stats().openConnections() == 0);
        assertThat(link.stats().acceptedConnections()).isEqualTo(1);
    }

    @Test
    void roundTripTakesAtLeastTwiceTheOneWayDelay() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()).delay(Duration.ofMillis(50)));

        Socket s = connect(link);
        for (int i = 0; i < 3; i++) {
            assertThat(roundTripNanos(s)).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(100));
        }
    }

    @ParameterizedTest
    @EnumSource(WanLink.Queueing.class)
    void concurrentConnectionsDeliverRandomDataIntactAndInOrder(WanLink.Queueing queueing) throws Exception {
        long seed = Long.getLong("wan.seed", System.nanoTime());
        System.out.println("concurrentConnectionsDeliverRandomDataIntactAndInOrder(" + queueing + ") seed=" + seed
                + " (replay with -Dwan.seed=" + seed + ")");
        Random random = new Random(seed);
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder()
                .target("127.0.0.1", echo.port())
                .delay(Duration.ofMillis(2))
                .bandwidthBitsPerSecond(400_000_000)
                .bufferBytes(64 * 1024)
                .queueing(queueing));

        List<CompletableFuture<Void>> done = new ArrayList<>();
        long total = 0;
        for (int c = 0; c < 6; c++) {
            byte[] data = new byte[1 + random.nextInt(1024 * 1024)];
            total += data.length;
            random.nextBytes(data);
            long seedOfWrites = random.nextLong();
            Socket s = connect(link);
            CompletableFuture<Void> written =
                    CompletableFuture.runAsync(() -> writeInRandomPieces(s, data, seedOfWrites), threads);
            CompletableFuture<Void> echoed = CompletableFuture.runAsync(
                    () -> {
                        try {
                            byte[] back = s.getInputStream().readNBytes(data.length);
                            assertThat(back).hasSize(data.length);
                            assertThat(crc(back)).isEqualTo(crc(data));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    },
                    threads);
            done.add(written);
            done.add(echoed);
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        long sent = total;
        // the link counts a write when it completes, which may be just after the client read it
        await().atMost(TIMEOUT).untilAsserted(() -> {
            WanLinkStats stats = link.stats();
            assertThat(stats.toTarget().relayedBytes()).isEqualTo(sent);
            assertThat(stats.toClient().relayedBytes()).isEqualTo(sent);
            assertThat(stats.toTarget().queuedBytes()).isZero();
        });
        assertThat(link.stats().toTarget().peakQueuedBytes()).isPositive();
    }

    @Test
    void sendingTakesAtLeastTheSerializationTime() throws IOException {
        Sink sink = new Sink();
        LoopbackServer target = sink(sink);
        long bps = 20_000_000;
        int n = 256 * 1024;
        WanLink link = link(WanLink.builder().target("127.0.0.1", target.port()).bandwidthBitsPerSecond(bps));

        Socket s = connect(link);
        long start = System.nanoTime();
        LoopbackServer.write(s, new byte[n]);
        await().atMost(TIMEOUT)
                .until(() ->
                        sink.connections.size() == 1 && sink.connection(0).bytes.get() == n);

        assertThat(sink.connection(0).lastByteAt - start).isGreaterThanOrEqualTo(serializationNanos(n, bps));
    }

    @Test
    void connectionsShareTheBandwidth() throws IOException {
        Sink sink = new Sink();
        LoopbackServer target = sink(sink);
        long bps = 20_000_000;
        int n = 128 * 1024;
        WanLink link = link(WanLink.builder().target("127.0.0.1", target.port()).bandwidthBitsPerSecond(bps));

        Socket a = connect(link);
        Socket b = connect(link);
        long start = System.nanoTime();
        CompletableFuture.runAsync(() -> LoopbackServer.write(a, new byte[n]), threads);
        CompletableFuture.runAsync(() -> LoopbackServer.write(b, new byte[n]), threads);
        await().atMost(TIMEOUT)
                .until(() -> sink.connections.size() == 2
                        && sink.connection(0).bytes.get() == n
                        && sink.connection(1).bytes.get() == n);

        long last = Math.max(sink.connection(0).lastByteAt, sink.connection(1).lastByteAt);
        assertThat(last - start).isGreaterThanOrEqualTo(serializationNanos(2L * n, bps));
    }

    @Test
    void fairQueueingLetsASmallMessageOvertakeABulkTransfer() throws IOException {
        Sink sink = new Sink();
        LoopbackServer target = sink(sink);
        int bulk = 2 * 1024 * 1024;
        WanLink link = link(WanLink.builder()
                .target("127.0.0.1", target.port())
                .bandwidthBitsPerSecond(8_000_000) // 1 MB/s: the bulk transfer takes 2 s
                .bufferBytes(1024 * 1024)
                .queueing(WanLink.Queueing.FAIR));

        Socket bulkSender = connect(link);
        CompletableFuture.runAsync(() -> LoopbackServer.write(bulkSender, new byte[bulk]), threads);
        await().atMost(TIMEOUT).until(() -> link.stats().toTarget().queuedBytes() >= 512 * 1024);
        Received bulkReceived = sink.connection(0);

        Socket small = connect(link);
        long bulkBytesBefore = bulkReceived.bytes.get();
        LoopbackServer.write(small, new byte[100]);
        await().atMost(TIMEOUT)
                .until(() ->
                        sink.connections.size() == 2 && sink.connection(1).bytes.get() == 100);

        // FIFO would deliver the >= 512 KiB queued before the small message first
        assertThat(bulkReceived.bytes.get() - bulkBytesBefore).isLessThan(256 * 1024);
        assertThat(bulkReceived.bytes.get()).isLessThan(bulk);
    }

    @Test
    void fullBufferStopsTheSenderUntilTheTargetReads() throws Exception {
        Sink sink = new Sink(true, 16 * 1024);
        LoopbackServer target = sink(sink);
        int buffer = 64 * 1024;
        WanLink link = link(WanLink.builder().target("127.0.0.1", target.port()).bufferBytes(buffer));
        // far more than the socket buffers on the way can hold, so the writer must block
        long total = 64L * 1024 * 1024;
        byte[] piece = new byte[64 * 1024];
        new Random(1).nextBytes(piece);
        CRC32C sent = new CRC32C();
        AtomicLong written = new AtomicLong();
        AtomicBoolean writerDone = new AtomicBoolean();

        Socket s = connect(link);
        s.setSendBufferSize(16 * 1024);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(
                () -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        for (long w = 0; w < total; w += piece.length) {
                            out.write(piece);
                            sent.update(piece);
                            written.addAndGet(piece.length);
                        }
                        out.flush();
                        writerDone.set(true);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                threads);

        await().atMost(TIMEOUT).until(() -> link.stats().toTarget().stalledSenders() == 1);
        await().during(Duration.ofMillis(300))
                .atMost(TIMEOUT)
                .until(() -> link.stats().toTarget().stalledSenders() == 1 && !writerDone.get());
        assertThat(written.get()).isLessThan(total);
        assertThat(link.stats().toTarget().queuedBytes()).isBetween(1L, (long) buffer);

        sink.startReading();
        writer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        await().atMost(TIMEOUT).until(() -> sink.connection(0).bytes.get() == total);
        assertThat(sink.connection(0).crc()).isEqualTo(sent.getValue());
        await().atMost(TIMEOUT).untilAsserted(() -> {
            WanLinkStats.Direction toTarget = link.stats().toTarget();
            assertThat(toTarget.relayedBytes()).isEqualTo(total);
            assertThat(toTarget.stalledSenders()).isZero();
        });
        assertThat(link.stats().toTarget().peakQueuedBytes()).isLessThanOrEqualTo(buffer);
    }

    @Test
    void cutClosesConnectionsAndRefusesNewOnesUntilHealed() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()).delay(Duration.ofMillis(5)));
        Socket a = connect(link);
        Socket b = connect(link);
        roundTripNanos(a);
        roundTripNanos(b);

        link.cut();

        assertThat(link.isCut()).isTrue();
        assertThat(link.stats().state()).isEqualTo(WanLink.State.CUT);
        assertClosedByTheLink(a);
        assertClosedByTheLink(b);
        await().atMost(TIMEOUT).until(() -> link.stats().openConnections() == 0);

        Socket refused = connect(link);
        assertClosedByTheLink(refused);
        assertThat(link.stats().refusedConnections()).isEqualTo(1);
        assertThat(link.stats().acceptedConnections()).isEqualTo(2);

        link.heal();

        assertThat(link.stats().state()).isEqualTo(WanLink.State.UP);
        Socket c = connect(link);
        assertThat(roundTripNanos(c)).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(10));
        assertThat(link.stats().acceptedConnections()).isEqualTo(3);
    }

    @Test
    void cutDuringA10MiBTransferClosesBothSidesAndDiscardsTheQueue() throws Exception {
        Sink sink = new Sink();
        LoopbackServer target = sink(sink);
        int total = 10 * 1024 * 1024;
        WanLink link = link(WanLink.builder()
                .target("127.0.0.1", target.port())
                .delay(Duration.ofMillis(20))
                .bandwidthBitsPerSecond(80_000_000)); // 10 MiB take 1 s

        Socket s = connect(link);
        CompletableFuture<Void> writer =
                CompletableFuture.runAsync(() -> LoopbackServer.write(s, new byte[total]), threads);
        await().atMost(TIMEOUT)
                .until(() ->
                        sink.connections.size() == 1 && sink.connection(0).bytes.get() >= 1024 * 1024);
        assertThat(link.stats().toTarget().queuedBytes()).isPositive();

        link.cut();

        await().atMost(TIMEOUT).until(() -> sink.connection(0).ended);
        assertThat(sink.connection(0).bytes.get()).isLessThan(total);
        assertClosedByTheLink(s);
        writer.handle((ok, failed) -> null).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS); // reset, or all in buffers
        await().atMost(TIMEOUT).untilAsserted(() -> {
            WanLinkStats stats = link.stats();
            assertThat(stats.openConnections()).isZero();
            assertThat(stats.toTarget().queuedBytes()).isZero();
            assertThat(stats.toClient().queuedBytes()).isZero();
            assertThat(stats.toTarget().stalledSenders()).isZero();
        });
    }

    @Test
    void pauseHoldsBytesWithoutClosingAndResumeDeliversThem() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()));
        Socket s = connect(link);
        roundTripNanos(s);

        link.pause();
        LoopbackServer.write(s, "held".getBytes(StandardCharsets.US_ASCII));

        assertThat(link.isPaused()).isTrue();
        await().during(Duration.ofMillis(200)).atMost(TIMEOUT).untilAsserted(() -> {
            WanLinkStats stats = link.stats();
            assertThat(stats.state()).isEqualTo(WanLink.State.PAUSED);
            assertThat(stats.openConnections()).isEqualTo(1);
            assertThat(stats.toTarget().queuedBytes()).isEqualTo(4);
            assertThat(stats.toTarget().relayedBytes()).isEqualTo(1);
        });

        link.resume();

        assertThat(new String(s.getInputStream().readNBytes(4), StandardCharsets.US_ASCII))
                .isEqualTo("held");
        assertThat(link.stats().state()).isEqualTo(WanLink.State.UP);
    }

    @Test
    void bytesHeldByAPauseAreNotCountedAsLate() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()));
        Socket s = connect(link);
        roundTripNanos(s);
        link.pause();
        LoopbackServer.write(s, new byte[] {1});
        await().atMost(TIMEOUT).until(() -> link.stats().toTarget().queuedBytes() == 1);

        link.resume();
        assertThat(s.getInputStream().read()).isEqualTo(1);

        assertThat(link.stats().toTarget().lateness().chunks())
                .as("chunks not held")
                .isEqualTo(1);
        await().atMost(TIMEOUT).until(() -> link.stats().toClient().lateness().chunks() == 2);
    }

    @Test
    void bytesSentAndClosedBeforeTheTargetConnectionIsUpArriveInFull() throws IOException {
        try (ServerSocket target = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // two unaccepted connections fill a backlog of 1: the link's SYN is dropped and resent after 1 s
            List<Socket> queued = new ArrayList<>();
            for (int i = 0; i < 2; i++) queued.add(new Socket(InetAddress.getLoopbackAddress(), target.getLocalPort()));
            WanLink link = link(WanLink.builder().target("127.0.0.1", target.getLocalPort()));
            byte[] data = new byte[10_000];
            new Random(7).nextBytes(data);

            try (Socket s = connect(link)) {
                LoopbackServer.write(s, data);
            }
            for (Socket q : queued) {
                q.close();
                target.accept().close();
            }

            target.setSoTimeout((int) TIMEOUT.toMillis());
            try (Socket relayed = target.accept()) {
                relayed.setSoTimeout((int) TIMEOUT.toMillis());
                assertThat(relayed.getInputStream().readAllBytes()).isEqualTo(data);
            }
            await().atMost(TIMEOUT).until(() -> link.stats().openConnections() == 0);
        }
    }

    @Test
    void delayAndBandwidthChangeAtRuntime() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()));
        Socket s = connect(link);
        roundTripNanos(s);

        link.delay(Duration.ofMillis(60));

        assertThat(link.delay()).isEqualTo(Duration.ofMillis(60));
        assertThat(roundTripNanos(s)).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(120));

        link.delay(Duration.ZERO);
        link.bandwidthBitsPerSecond(10_000_000);

        assertThat(link.bandwidthBitsPerSecond()).isEqualTo(10_000_000);
        int n = 64 * 1024;
        long start = System.nanoTime();
        LoopbackServer.write(s, new byte[n]);
        assertThat(s.getInputStream().readNBytes(n)).hasSize(n);
        // the echo returns chunks while later ones are still on their way out, so the two directions
        // overlap: the bound that always holds is one full serialization
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(serializationNanos(n, 10_000_000));
    }

    @Test
    void endOfStreamArrivesAfterTheBytesSentBeforeIt() throws IOException {
        Sink sink = new Sink();
        LoopbackServer target = sink(sink);
        WanLink link = link(WanLink.builder()
                .target("127.0.0.1", target.port())
                .delay(Duration.ofMillis(30))
                .bandwidthBitsPerSecond(50_000_000));
        int n = 100 * 1024;

        Socket s = connect(link);
        LoopbackServer.write(s, new byte[n]);
        long closedAt = System.nanoTime();
        s.close();

        await().atMost(TIMEOUT).until(() -> sink.connections.size() == 1 && sink.connection(0).ended);
        Received r = sink.connection(0);
        assertThat(r.bytes.get()).isEqualTo(n);
        assertThat(r.reset).isFalse();
        assertThat(r.endedAt - closedAt).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(30));
        await().atMost(TIMEOUT).until(() -> link.stats().openConnections() == 0);
    }

    @Test
    void targetDownClosesTheClientConnection() throws IOException {
        int freePort;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = probe.getLocalPort();
        }
        WanLink link = link(WanLink.builder().target("127.0.0.1", freePort));

        Socket s = connect(link);

        assertClosedByTheLink(s);
        await().atMost(TIMEOUT).until(() -> link.stats().openConnections() == 0);
        assertThat(link.stats().acceptedConnections()).isEqualTo(1);
    }

    @Test
    void closeIsIdempotentAndFreesThePort() throws IOException {
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder().target("127.0.0.1", echo.port()).delay(Duration.ofMillis(10)));
        Socket s = connect(link);
        roundTripNanos(s);
        int port = link.port();

        link.close();
        link.close();

        assertClosedByTheLink(s);
        link.cut(); // no-ops once closed
        link.delay(Duration.ofMillis(1));
        assertThat(link.stats().openConnections()).isZero();
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void externalEventLoopGroupKeepsRunningAfterClose() throws IOException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        resources.add(() -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        LoopbackServer echo = echo();
        WanLink first = link(WanLink.builder().target("127.0.0.1", echo.port()).eventLoopGroup(group));
        WanLink second = link(WanLink.builder().target("127.0.0.1", echo.port()).eventLoopGroup(group));
        roundTripNanos(connect(first));

        first.close();

        assertThat(group.isShuttingDown()).isFalse();
        roundTripNanos(connect(second));
    }

    @Test
    void externalEpollEventLoopGroupRelaysToo() throws IOException {
        assumeTrue(Epoll.isAvailable(), "native epoll not available here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        resources.add(() -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        LoopbackServer echo = echo();
        WanLink link = link(WanLink.builder()
                .target("127.0.0.1", echo.port())
                .delay(Duration.ofMillis(5))
                .eventLoopGroup(group));

        assertThat(roundTripNanos(connect(link))).isGreaterThanOrEqualTo(MILLISECONDS.toNanos(10));
    }

    private WanLink link(WanLink.Builder builder) {
        WanLink link = builder.allocator(allocator).build();
        resources.add(link);
        return link;
    }

    private LoopbackServer echo() throws IOException {
        LoopbackServer server = LoopbackServer.echo();
        resources.add(server);
        return server;
    }

    private LoopbackServer sink(Sink sink) throws IOException {
        LoopbackServer server = LoopbackServer.sink(sink);
        resources.add(server);
        return server;
    }

    private Socket connect(WanLink link) throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), link.port());
        s.setSoTimeout((int) TIMEOUT.toMillis());
        s.setTcpNoDelay(true);
        resources.add(s);
        return s;
    }

    /** Sends one byte through an echo server and waits for it to come back. */
    private static long roundTripNanos(Socket s) throws IOException {
        long start = System.nanoTime();
        OutputStream out = s.getOutputStream();
        out.write(42);
        out.flush();
        assertThat(s.getInputStream().read()).isEqualTo(42);
        return System.nanoTime() - start;
    }

    /** The link closed {@code s}: reading ends (end of stream or reset) within the timeout. */
    private static void assertClosedByTheLink(Socket s) {
        InputStream in;
        try {
            in = s.getInputStream();
        } catch (IOException e) {
            return;
        }
        assertThatThrownBy(() -> {
                    while (in.read() >= 0) {
                        // drain what was in flight
                    }
                    throw new IOException("end of stream");
                })
                .isInstanceOf(IOException.class)
                .satisfies(e -> assertThat(e.getClass().getSimpleName()).isNotEqualTo("SocketTimeoutException"));
    }

    private static void writeInRandomPieces(Socket s, byte[] data, long seed) {
        Random random = new Random(seed);
        try {
            OutputStream out = s.getOutputStream();
            for (int off = 0; off < data.length; ) {
                int len = Math.min(data.length - off, 1 + random.nextInt(random.nextBoolean() ? 100 : 100_000));
                out.write(data, off, len);
                off += len;
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long crc(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return crc.getValue();
    }

    private static long serializationNanos(long bytes, long bitsPerSecond) {
        return NANOSECONDS.convert(bytes * 8 * 1_000_000L / bitsPerSecond, TimeUnit.MICROSECONDS);
    }
}
