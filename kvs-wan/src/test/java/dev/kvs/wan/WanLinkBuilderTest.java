package dev.kvs.wan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WanLinkBuilderTest {
    @Test
    void rejectsBadInputQuotingTheValue() {
        WanLink.Builder b = WanLink.builder();
        assertThatThrownBy(() -> b.delay(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay < 0: PT-1S");
        assertThatThrownBy(() -> b.delay(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay > PT1H: PT2H");
        assertThatThrownBy(() -> b.bandwidthBitsPerSecond(-5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bandwidthBitsPerSecond < 0: -5");
        assertThatThrownBy(() -> b.bufferBytes(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bufferBytes <= 0: 0");
        assertThatThrownBy(() -> b.listen("127.0.0.1", 70000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("listen port not in [0, 65535]: 70000");
        assertThatThrownBy(() -> b.target("127.0.0.1", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("target port not in [1, 65535]: 0");
        assertThatThrownBy(() -> b.target(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.delay(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.queueing(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void buildWithoutTargetFails() {
        assertThatThrownBy(() -> WanLink.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("target not set");
    }

    @Test
    void portInUseIsReportedWithTheAddress() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> WanLink.builder()
                            .listen("127.0.0.1", port)
                            .target("127.0.0.1", 9)
                            .build())
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("WAN link cannot listen on 127.0.0.1:" + port);
        }
    }

    @Test
    void runtimeSettersRejectBadInputToo() {
        try (WanLink link = WanLink.builder().target("127.0.0.1", 9).build()) {
            assertThatThrownBy(() -> link.delay(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("delay < 0: PT-0.001S");
            assertThatThrownBy(() -> link.bandwidthBitsPerSecond(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("bandwidthBitsPerSecond < 0: -1");
            assertThat(link.delay()).isEqualTo(Duration.ZERO);
            assertThat(link.bandwidthBitsPerSecond()).isZero();
        }
    }

    @Test
    void defaultsAreAnEphemeralLoopbackPortWithNoDelayAndUnlimitedBandwidth() {
        try (WanLink link = WanLink.builder().target("localhost", 9).build()) {
            assertThat(link.port()).isPositive();
            assertThat(link.address().getAddress().isLoopbackAddress()).isTrue();
            assertThat(link.target().getPort()).isEqualTo(9);
            assertThat(link.delay()).isEqualTo(Duration.ZERO);
            assertThat(link.bandwidthBitsPerSecond()).isZero();
            assertThat(link.isCut()).isFalse();
            assertThat(link.isPaused()).isFalse();
            assertThat(link.stats())
                    .isEqualTo(new WanLinkStats(
                            WanLink.State.UP,
                            0,
                            0,
                            0,
                            new WanLinkStats.Direction(0, 0, 0, 0, WanLinkStats.Lateness.NONE),
                            new WanLinkStats.Direction(0, 0, 0, 0, WanLinkStats.Lateness.NONE)));
        }
    }
}
