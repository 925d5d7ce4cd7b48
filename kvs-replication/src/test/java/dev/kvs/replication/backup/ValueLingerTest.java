package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.StoredValue;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.WriteOrder;
import dev.kvs.replication.primary.Replicator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The value linger batches values only while earlier ones are unacknowledged: on an idle link a value
 * leaves at once, so a sync write (which waits for its value) never waits for the linger.
 */
class ValueLingerTest {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final KvStore store = HeapKvStore.open();
    private final KvStore primaryStore = HeapKvStore.open();
    private ReplicationServer server;
    private Replicator replicator;

    @AfterEach
    void close() {
        if (replicator != null) replicator.close();
        if (server != null) server.close();
        store.close();
        primaryStore.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A backup, and a replicator with an hour-long linger: a value held for it would fail a sync write. */
    private void start(ReplicatorConfig.Builder config) {
        server = ReplicationServer.builder()
                .store(store)
                .node(new ReplicationServerTest.TestNode("dc", "backup-1", 1))
                .group(group)
                .config(BackupConfig.defaults())
                .start();
        replicator = Replicator.builder()
                .config(config.valueLinger(Duration.ofHours(1))
                        .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                        .build())
                .store(primaryStore)
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(group)
                .start();
    }

    @Test
    void aValueOnAnIdleLinkIsNotHeldForTheLinger() {
        start(ReplicatorConfig.builder().writeTimeout(Duration.ofSeconds(20)));

        SyncWrite.reachesTheBackup(replicator, primaryStore, store, "first");
        SyncWrite.reachesTheBackup(replicator, primaryStore, store, "second, after the first was acknowledged");

        assertThat(replicator.status().pendingValues()).isZero();
    }

    @Test
    void aValueASyncWriteWaitsForIsNotHeldForTheLingerOnABusyLink() {
        // the link is kept busy by a large value shipped chunk by chunk
        start(ReplicatorConfig.builder().chunkBytes(16 * 1024).writeTimeout(Duration.ofSeconds(60)));
        SyncWrite.reachesTheBackup(replicator, primaryStore, store, "first");

        byte[] bigKey = "big".getBytes(StandardCharsets.UTF_8);
        byte[] big = new byte[32 << 20];
        WriteOrder bigWrite = replicator.begin(ReplicationMode.ID_FIRST);
        primaryStore.put(bigKey, StoredValue.complete(bigWrite.put(bigKey, big.length, Checksums.crc32c(big), 0), big));
        bigWrite.commit();
        byte[] key = "small".getBytes(StandardCharsets.UTF_8);
        byte[] value = "waited for".getBytes(StandardCharsets.UTF_8);
        WriteOrder order = replicator.begin(ReplicationMode.SYNC);
        primaryStore.put(key, StoredValue.complete(order.put(key, value.length, Checksums.crc32c(value), 0), value));
        long t0 = System.nanoTime();
        order.commit().orTimeout(30, TimeUnit.SECONDS).join();
        System.out.println("sync write behind a 32 MiB value: "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms; big value on the backup: "
                + (store.get(bigKey) != null));

        assertThat(store.get(key).value()).isEqualTo(value);
    }
}
