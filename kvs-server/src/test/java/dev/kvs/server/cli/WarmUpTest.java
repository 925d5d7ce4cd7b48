package dev.kvs.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** The warm-up before a node opens its client port runs its requests through a scratch node it then closes. */
class WarmUpTest {
    @Test
    void theRequestsRunThroughAScratchNodeThatIsClosedAfter() throws Exception {
        WarmUp.Result r = WarmUp.run(3_000);
        int round = WarmUp.CONNECTIONS * WarmUp.PIPELINE;
        assertThat(r.requests())
                .as("half SET, half GET, in whole pipelines per connection")
                .isBetween(3_000L, 3_000L + 2L * round);
        assertThat(r.port()).isPositive();
        assertThatThrownBy(() -> {
                    try (Socket s = new Socket("127.0.0.1", r.port())) {
                        s.getInputStream().read();
                    }
                })
                .as("the scratch node's port is closed")
                .isInstanceOf(ConnectException.class);
    }

    @Test
    void noRequestsMeansNoneAndANegativeCountIsRefused() throws InterruptedException, IOException {
        assertThat(WarmUp.run(0).requests()).isZero();
        assertThatThrownBy(() -> WarmUp.run(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("< 0");
    }

    @Test
    void aNodeAboutToStartStartsWithoutAWarmUpThatFailed() {
        assertThatCode(() -> WarmUp.runOrSkip(-1)).doesNotThrowAnyException();
    }
}
