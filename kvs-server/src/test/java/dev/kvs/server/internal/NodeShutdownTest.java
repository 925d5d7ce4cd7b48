package dev.kvs.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NodeShutdownTest {
    @Test
    void aRequestRunsTheNodesStopEachTime() {
        AtomicInteger stops = new AtomicInteger();
        NodeShutdown shutdown = new NodeShutdown(stops::incrementAndGet);

        assertThat(shutdown.available()).isTrue();
        assertThat(shutdown.request()).isTrue();
        assertThat(stops).hasValue(1);
    }

    @Test
    void withoutANodeToStopARequestSaysSo() {
        assertThat(NodeShutdown.unavailable().available()).isFalse();
        assertThat(NodeShutdown.unavailable().request()).isFalse();
        assertThat(new NodeShutdown(null).request()).isFalse();
    }
}
