package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A write held because replication has no room waits up to the write timeout (5 s here) for room; if the
 * primary's lease lapses meanwhile, it is refused with {@code -CLUSTERDOWN} at the next retry, having
 * written nothing, so that a cluster client goes on to the shard's other node at once.
 */
class HeldWriteLeaseTest {
    @Test
    void aWriteHeldForRoomIsRefusedWhenTheLeaseLapsesNotAtItsTimeout() {
        AckOnDemandReplication backup = new AckOnDemandReplication();
        AtomicBoolean leaseHeld = new AtomicBoolean(true);
        try (RespChannel primary = new RespChannel(config(), backup, null, true)) {
            primary.node.roles().serveUnder(leaseHeld::get);
            backup.room(false);
            assertThat(primary.command("SET", "k", "v")).as("held for room").isEmpty();
            primary.advanceTime(10, TimeUnit.MILLISECONDS);
            assertThat(primary.drain()).as("still held while the lease holds").isEmpty();

            leaseHeld.set(false);
            primary.advanceTime(2, TimeUnit.MILLISECONDS); // the next retry, a millisecond apart

            assertThat(primary.drain()).isEqualTo("-CLUSTERDOWN The cluster is down\r\n");
            leaseHeld.set(true);
            backup.room(true);
            assertThat(primary.command("GET", "k")).as("nothing was written").isEqualTo("$-1\r\n");
        }
    }

    private static NodeConfig config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(64L << 20)
                        .build())
                .build();
    }
}
