package dev.kvs.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Redis baseline's {@code redis-server} child process (skipped where it is not installed). */
class RedisServerTest {

    @Test
    void aPortTakenBeforeRedisBindsItIsTriedAgainOnAnother() throws IOException {
        assumeTrue(RedisServer.onPath().isPresent(), RedisServer.NOT_INSTALLED);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int free = RedisServer.freePort();
            Deque<Integer> ports = new ArrayDeque<>(List.of(taken.getLocalPort(), free));
            try (RedisServer redis = RedisServer.start("port-test", List.of(), ports::pop)) {
                assertThat(ports).isEmpty();
                assertThat(redis.port).isEqualTo(free);
                assertThat(redis.info("role")).isEqualTo("master");
            }
        }
    }

    @Test
    void onlyATakenPortIsTriedAgain() {
        assertThat(RedisServer.portTaken(new IOException("redis-server exited: ... Could not create server TCP"
                        + " listening socket 127.0.0.1:40935: bind: Address already in use")))
                .isTrue();
        assertThat(RedisServer.portTaken(new IOException("redis-server did not answer: ...")))
                .isFalse();
        assertThat(RedisServer.portTaken(new IOException((String) null))).isFalse();
    }
}
