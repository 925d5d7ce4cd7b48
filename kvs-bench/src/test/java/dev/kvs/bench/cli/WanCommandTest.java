package dev.kvs.bench.cli;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.bench.cluster.ChildKvs;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WanCommandTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private static final String EPOLL_WAIT_THRESHOLD = "io.netty.channel.epoll.epollWaitThreshold";

    private final InputStream stdin = System.in;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final String epollWaitThreshold = System.getProperty(EPOLL_WAIT_THRESHOLD);

    @AfterEach
    void restoreStdinAndProperties() {
        threads.shutdownNow();
        System.setIn(stdin);
        if (epollWaitThreshold == null) System.clearProperty(EPOLL_WAIT_THRESHOLD);
        else System.setProperty(EPOLL_WAIT_THRESHOLD, epollWaitThreshold);
    }

    @Test
    void makesNettysEpollLoopSleepOnATimerfdBeforeAnyLoopExists() {
        System.clearProperty(EPOLL_WAIT_THRESHOLD);

        assertThat(run("wan", "--listen", "0", "--target", "127.0.0.1:9", "--delay-ms", "-1"))
                .isEqualTo(2);

        assertThat(System.getProperty(EPOLL_WAIT_THRESHOLD)).isEqualTo("0");
    }

    @Test
    void statusAndTheLineOnQuitReportTheLatenessEachWay() throws Exception {
        PipedOutputStream typed = new PipedOutputStream();
        System.setIn(new PipedInputStream(typed));
        try (ServerSocket echo = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // threads of their own: the echo blocks in accept, and on a 2-core machine the common pool
            // may have a single worker (JDK 25 runs async tasks there even at parallelism 1)
            CompletableFuture.runAsync(() -> echoOnce(echo), threads);
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                    () -> run(
                            "wan",
                            "--listen",
                            "0",
                            "--target",
                            "127.0.0.1:" + echo.getLocalPort(),
                            "--delay-ms",
                            "2.5"),
                    threads);
            Pattern listening = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+) ");
            await().atMost(TIMEOUT)
                    .failFast("the command ended: " + out + err, exit::isDone)
                    .until(() -> listening.matcher(out.toString()).find());
            Matcher port = listening.matcher(out.toString());
            assertThat(port.find()).isTrue();

            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(port.group(1)))) {
                s.getOutputStream().write("ping".getBytes(US_ASCII));
                assertThat(s.getInputStream().readNBytes(4)).isEqualTo("ping".getBytes(US_ASCII));
            }
            typed.write("status\nquit\n".getBytes(US_ASCII));
            typed.flush();

            assertThat(exit.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isZero();
        }
        assertThat(out.toString())
                .containsPattern("\"toTarget\":\\{\"relayedBytes\":4,.*\"lateness\":\\{\"chunks\":1,");
        assertThat(out.toString().lines().reduce((first, last) -> last))
                .hasValueSatisfying(line -> assertThat(line)
                        .matches("kvs wan: stopped; connections 1;"
                                + " to target: 4 bytes, chunks 1, lateness p50 \\d+ us, p99 \\d+ us, max \\d+ us;"
                                + " to client: 4 bytes, chunks 1, lateness p50 \\d+ us, p99 \\d+ us, max \\d+ us"));
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void aListenPortInUseIsNamedOnOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            assertThat(run("wan", "--no-stdin", "--listen", String.valueOf(port), "--target", "127.0.0.1:9"))
                    .isEqualTo(1);

            assertThat(err.toString())
                    .isEqualTo("kvs wan: cannot listen on 127.0.0.1:" + port
                            + " (link port, --listen): address already in use" + System.lineSeparator());
        }
    }

    @Test
    void aControlPortInUseIsNamedOnOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            assertThat(run(
                            "wan",
                            "--no-stdin",
                            "--listen",
                            "0",
                            "--control-port",
                            String.valueOf(port),
                            "--target",
                            "127.0.0.1:9"))
                    .isEqualTo(1);

            assertThat(err.toString())
                    .isEqualTo("kvs wan: cannot listen on 127.0.0.1:" + port
                            + " (control port, --control-port): address already in use" + System.lineSeparator());
        }
    }

    private int run(String... args) {
        var cl = ChildKvs.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private static void echoOnce(ServerSocket server) {
        try (Socket s = server.accept()) {
            s.getInputStream().transferTo(s.getOutputStream());
        } catch (IOException e) {
            // the test is over
        }
    }
}
