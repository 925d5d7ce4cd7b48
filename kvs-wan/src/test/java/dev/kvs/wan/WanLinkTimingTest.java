package dev.kvs.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * How close to the model's time a link delivers: the upper bounds that {@link WanLinkTest} leaves out.
 *
 * <p>The delay is 4.6 ms, not a whole number of milliseconds: a timer that only sleeps whole
 * milliseconds (Netty's NIO selector rounds to the nearest) wakes 0.4 ms late at that delay and
 * delivers 0.5 ms late, which fails the bounds below, whereas at exactly 5 ms it happens to land
 * within 0.2 ms. Run with {@code -Dkvs.transport=nio} to see it fail.
 */
class WanLinkTimingTest {
    private static final Duration DELAY = Duration.ofNanos(4_600_000);
    private static final int WARM_UP_ROUND_TRIPS = 100;
    private static final int ROUND_TRIPS = 200;

    /**
     * The link's own lateness is the sharp check: it is what the link controls (its timer), measured
     * on its own event loop, so the client's and the echo server's scheduling do not blur it. 0.2 ms
     * is the accuracy the link promises at the median. On a two-core VM it measures 0.10 to 0.15 ms,
     * idle or under two parallel Maven builds (load average 8 to 10): the time to wake a thread that
     * slept for milliseconds, 0.05 ms of it the timer slack of {@code epoll_pwait2} (the default in a
     * JVM that does not set {@code io.netty.channel.epoll.epollWaitThreshold}, like this one). With
     * NIO's millisecond timer it measures 0.51 to 0.54 ms. The median, not the tail: a loaded machine
     * deschedules the link for milliseconds now and then, which moves p99 and max (up to 50 ms under
     * that load), not p50.
     */
    private static final long LINK_LATENESS_P50_MICROS = 200;

    /**
     * The end-to-end median is noisier: besides the link's lateness each way (2 x 0.2 ms), a round
     * trip wakes four threads that slept for milliseconds (the link reading the client, the echo
     * server, the link reading the echo, the client), about 0.1 ms each on an idle two-core VM and
     * more under load, and the leak detector records a stack trace per buffer. Measured: 0.5 to 1.4
     * ms above two delays (NIO: 1.4 to 1.8 ms). 1.5 ms still fails the symptom, a 5 ms link
     * taking 2 ms more than two delays.
     */
    private static final long ROUND_TRIP_ALLOWANCE_MICROS = 1500;

    /**
     * Rounds of {@link #ROUND_TRIPS} on a fresh link, until one meets every bound. A burst of load on a
     * shared machine can spoil one round; a link that is systematically late fails all of them.
     */
    private static final int ROUNDS = 3;

    @Test
    void pingPongIsDeliveredWithinTwoHundredMicrosecondsOfTheModelAtTheMedian() throws IOException {
        try (LoopbackServer echo = LoopbackServer.echo()) {
            try (WanLink warmUp = link(echo)) { // compiles the relay path; its lateness is not counted
                roundTrips(warmUp, WARM_UP_ROUND_TRIPS);
            }
            AssertionError failed = null;
            for (int round = 1; round <= ROUNDS; round++) {
                try (WanLink link = link(echo)) {
                    long[] roundTrips = roundTrips(link, ROUND_TRIPS);
                    WanLinkStats stats = link.stats();
                    System.out.printf(
                            "round %d, delay %s: round trip p50 %d us, p99 %d us; lateness to target %s,"
                                    + " to client %s%n",
                            round,
                            DELAY,
                            roundTrips[ROUND_TRIPS / 2] / 1000,
                            roundTrips[ROUND_TRIPS * 99 / 100] / 1000,
                            stats.toTarget().lateness(),
                            stats.toClient().lateness());
                    // never early, whatever the load: not worth another round
                    assertThat(roundTrips[0]).as("fastest round trip, ns").isGreaterThanOrEqualTo(2 * DELAY.toNanos());
                    assertThat(stats.toTarget().lateness().chunks()).isEqualTo(ROUND_TRIPS);
                    assertThat(stats.toClient().lateness().chunks()).isEqualTo(ROUND_TRIPS);
                    try {
                        assertAccurate(roundTrips, stats);
                        return;
                    } catch (AssertionError e) {
                        if (failed == null) failed = e;
                        else failed.addSuppressed(e);
                    }
                }
            }
            throw failed;
        }
    }

    private static void assertAccurate(long[] roundTrips, WanLinkStats stats) {
        assertThat(stats.toTarget().lateness().p50Micros())
                .as("link lateness p50 towards the target, us")
                .isLessThanOrEqualTo(LINK_LATENESS_P50_MICROS);
        assertThat(stats.toClient().lateness().p50Micros())
                .as("link lateness p50 towards the client, us")
                .isLessThanOrEqualTo(LINK_LATENESS_P50_MICROS);
        assertThat(roundTrips[ROUND_TRIPS / 2])
                .as("round trip p50, ns")
                .isLessThanOrEqualTo(2 * DELAY.toNanos() + ROUND_TRIP_ALLOWANCE_MICROS * 1000);
    }

    private static WanLink link(LoopbackServer echo) {
        return WanLink.builder().target("127.0.0.1", echo.port()).delay(DELAY).build();
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
