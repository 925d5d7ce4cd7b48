package dev.kvs.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The lower bound of a link's timing, which holds on any machine however loaded: nothing is delivered
 * before the model's time, and every chunk's lateness is counted.
 *
 * <p>How late a link is (its upper bound: 0.1 to 0.2 ms at the median on native epoll, about 0.5 ms
 * on NIO's millisecond timer at a 4.6 ms delay) depends on how soon the machine wakes a thread, so it
 * is measured by a benchmark, not asserted here: {@code ./kvs bench jmh WanLink} (kvs-bench's {@code
 * WanLinkBenchmark}), which prints the link's lateness beside JMH's round-trip percentiles. A unit
 * test with an upper bound failed on a loaded CI machine at 0.207 ms against a 0.2 ms bound.
 */
class WanLinkTimingTest {
    /** Not a whole number of milliseconds, so a timer that rounds to milliseconds would fire early or late. */
    private static final Duration DELAY = Duration.ofNanos(4_600_000);

    private static final int ROUND_TRIPS = 100;

    @Test
    void noRoundTripIsFasterThanTwoDelaysAndEveryChunksLatenessIsCounted() throws IOException {
        try (LoopbackServer echo = LoopbackServer.echo();
                WanLink link = WanLink.builder()
                        .target("127.0.0.1", echo.port())
                        .delay(DELAY)
                        .build()) {
            long[] roundTrips = roundTrips(link, ROUND_TRIPS);
            // a chunk counts as relayed once its write has completed, which the client may see after
            // it has read the byte
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> link.stats().toTarget().relayedBytes() == ROUND_TRIPS
                            && link.stats().toClient().relayedBytes() == ROUND_TRIPS);
            WanLinkStats stats = link.stats();
            System.out.printf(
                    "delay %s: round trip p50 %d us; lateness to target %s, to client %s%n",
                    DELAY,
                    roundTrips[ROUND_TRIPS / 2] / 1000,
                    stats.toTarget().lateness(),
                    stats.toClient().lateness());
            assertThat(roundTrips[0]).as("fastest round trip, ns").isGreaterThanOrEqualTo(2 * DELAY.toNanos());
            for (WanLinkStats.Direction d : new WanLinkStats.Direction[] {stats.toTarget(), stats.toClient()}) {
                WanLinkStats.Lateness l = d.lateness();
                assertThat(l.chunks()).as("chunks counted").isEqualTo(ROUND_TRIPS);
                assertThat(d.relayedBytes()).isEqualTo(ROUND_TRIPS);
                assertThat(l.p50Micros()).isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(l.p99Micros());
                assertThat(l.p99Micros()).isLessThanOrEqualTo(l.maxMicros());
                // a chunk's lateness is part of its round trip's excess over two delays, so the
                // slowest round trip bounds the largest lateness either way (max is exact, in whole µs)
                assertThat(l.maxMicros() * 1000)
                        .as("largest lateness, ns, against the slowest round trip's excess over two delays")
                        .isLessThanOrEqualTo(roundTrips[ROUND_TRIPS - 1] - 2 * DELAY.toNanos());
            }
        }
    }

    /** One-byte round trips through {@code link} and the echo server, one at a time: sorted nanoseconds. */
    private static long[] roundTrips(WanLink link, int count) throws IOException {
        long[] nanos = new long[count];
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), link.port())) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = 0; i < count; i++) {
                long start = System.nanoTime();
                out.write(i);
                out.flush();
                assertThat(in.read()).isEqualTo(i & 0xff);
                nanos[i] = System.nanoTime() - start;
            }
        }
        Arrays.sort(nanos);
        return nanos;
    }
}
