package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A link that fails silently (no RST: the WAN link paused, like an interface taken down) is noticed by
 * the primary's heartbeats: the key channel closes, {@code id-first-after-reply} stops answering at
 * once, and replication resumes when the link does.
 */
class LinkProbeTest {
    @Test
    void aSilentlyDeadLinkIsDetectedAndAfterReplyWritesStopBeingAnsweredAtOnce() {
        ReplicatorConfig replication = ReplicatorConfig.builder()
                .heartbeatInterval(Duration.ofMillis(100))
                .writeTimeout(Duration.ofMillis(300))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(200))
                .build();
        try (TwoDc dc = TwoDc.builder()
                        .mode(ReplicationMode.ID_FIRST_AFTER_REPLY)
                        .link(Duration.ofMillis(1), 0)
                        .replication(replication)
                        .start();
                Jedis p = JedisAccess.primary(dc)) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(p, "kvs_link_state").equals("streaming"));
            assertThat(p.set("before", "1")).isEqualTo("OK");

            dc.link().pause(); // nothing is delivered any more, and nothing is closed
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !JedisAccess.info(p, "kvs_link_state").equals("streaming"));
            assertThatThrownBy(() -> p.set("during", "2")).hasMessageStartingWith("NOREPLICA");

            dc.link().resume();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> JedisAccess.info(p, "kvs_link_state").equals("streaming"));
            assertThat(p.set("after", "3")).isEqualTo("OK");
        }
    }
}
