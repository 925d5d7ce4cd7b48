package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.core.internal.Stores;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicationTimeoutException;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.WriteOrder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Replicator.Builder#acknowledgeWhile}: a primary that may no longer acknowledge writes (a coordinated
 * primary whose lease lapsed) answers the writes waiting for its backup at once, not at the end of the write
 * timeout, and acknowledges none the backup confirms meanwhile.
 */
class AcknowledgeWhileTest {
    private static final byte[] HELD = "held".getBytes(StandardCharsets.UTF_8);

    private final EventLoopGroup replication = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup backupLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final KvStore primaryStore = Stores.open(
            StoreConfig.builder().maxEntries(1_000).maxBytes(64L << 20).build());
    private final KvStore backupStore = HeapKvStore.open();
    private final AtomicBoolean leaseHeld = new AtomicBoolean(true);

    private ReplicationServer server;
    private Replicator replicator;

    @AfterEach
    void close() {
        if (replicator != null) replicator.close();
        if (server != null) server.close();
        primaryStore.close();
        backupStore.close();
        for (EventLoopGroup g : List.of(replication, backupLoops)) {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private void start() {
        ReplicatorConfig config = ReplicatorConfig.builder()
                .writeTimeout(Duration.ofMinutes(5))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                .build();
        server = ReplicationServer.builder()
                .store(backupStore)
                .node(new FixedBackupNode("dc", "backup-1"))
                .group(backupLoops)
                .config(BackupConfig.defaults())
                .start();
        // the value shipper's reads of HELD fail (it puts the value back and tries again later), so its
        // value never ships; the event loops are never blocked (the write timeouts' sweep runs on one)
        KvStore holding = FaultyStore.wrap(
                primaryStore, (read, key) -> Arrays.equals(key, HELD) ? new FaultyStore.InjectedException(read) : null);
        replicator = Replicator.builder()
                .config(config)
                .store(holding)
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(replication)
                .acknowledgeWhile(leaseHeld::get)
                .start();
        await().atMost(Duration.ofSeconds(20)).until(() -> replicator.status().streaming());
    }

    private CompletableFuture<Void> put(ReplicationMode mode, byte[] key) {
        byte[] value = "v".getBytes(StandardCharsets.UTF_8);
        WriteOrder order = replicator.begin(mode);
        primaryStore.put(key, StoredValue.complete(order.put(key, value.length, Checksums.crc32c(value), 0), value));
        return order.commit();
    }

    @Test
    void aWriteWaitingForItsBackupFailsAtTheLapseNotAtItsTimeout() {
        start();
        CompletableFuture<Void> waiting = put(ReplicationMode.SYNC, HELD); // its value cannot ship
        assertThat(waiting).isNotDone();

        leaseHeld.set(false);

        // a sweep period is 100 ms; the write timeout is 5 minutes
        await().atMost(Duration.ofSeconds(5)).until(waiting::isDone);
        assertThat(waiting)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(ReplicationTimeoutException.class)
                .withMessageContaining("may no longer acknowledge writes (its lease lapsed");
    }

    @Test
    void aWriteTheBackupConfirmsAfterTheLapseIsNotAcknowledged() {
        start();
        leaseHeld.set(false);

        CompletableFuture<Void> idFirst = put(ReplicationMode.ID_FIRST, "k".getBytes(StandardCharsets.UTF_8));

        assertThat(idFirst)
                .failsWithin(Duration.ofSeconds(20))
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(ReplicationTimeoutException.class)
                .withMessageContaining("its lease lapsed");
        // the write did reach the backup: only its acknowledgement was withheld
        await().atMost(Duration.ofSeconds(20))
                .until(() -> backupStore.get("k".getBytes(StandardCharsets.UTF_8)) != null);
    }
}
