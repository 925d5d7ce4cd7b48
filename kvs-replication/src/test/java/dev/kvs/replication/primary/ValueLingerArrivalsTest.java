package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.StoredValue;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.WriteOrder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * On a busy link a batch of values waits up to the linger for more only while values arrive less than a linger
 * apart. The replicator's arrival clock is a test clock that stands still unless a test moves it, and the linger
 * is an hour: a value held for it never reaches the backup within the test.
 */
class ValueLingerArrivalsTest {
    private static final Duration LINGER = Duration.ofHours(1);

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final KvStore backupStore = HeapKvStore.open();
    private final KvStore primaryStore = HeapKvStore.open();
    private final long base = System.nanoTime();
    private final AtomicLong elapsed = new AtomicLong();
    private ReplicationServer server;
    private Replicator replicator;

    @AfterEach
    void close() {
        if (replicator != null) replicator.close();
        if (server != null) server.close();
        backupStore.close();
        primaryStore.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * A backup and a replicator with an hour's linger, whose link is then kept busy by a 32 MiB value shipped in
     * 16 KiB chunks.
     */
    private void startWithABusyLink() {
        startReplicating(ReplicatorConfig.builder());
        write("big", new byte[32 << 20]);
    }

    private void startReplicating(ReplicatorConfig.Builder config) {
        server = ReplicationServer.builder()
                .store(backupStore)
                .node(new FixedBackupNode("dc", "backup-1"))
                .group(group)
                .config(BackupConfig.defaults())
                .start();
        replicator = Replicator.builder()
                .config(config.valueLinger(LINGER)
                        .chunkBytes(16 * 1024)
                        .writeTimeout(Duration.ofSeconds(60))
                        .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                        .build())
                .store(primaryStore)
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(group)
                .arrivalClock(() -> base + elapsed.get())
                .start();
        await().atMost(Duration.ofSeconds(20)).until(() -> replicator.status().streaming());
    }

    private void write(String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        WriteOrder order = replicator.begin(ReplicationMode.ID_FIRST);
        primaryStore.put(k, StoredValue.complete(order.put(k, value.length, Checksums.crc32c(value), 0), value));
        order.commit().orTimeout(30, TimeUnit.SECONDS).join(); // id-first: the key's ack
    }

    private byte[] onTheBackup(String key) {
        var v = backupStore.get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : v.value();
    }

    @Test
    void aValueWrittenALingerAfterTheLastOneIsNotHeldForTheLinger() {
        startWithABusyLink();
        elapsed.addAndGet(2 * LINGER.toNanos()); // two lingers pass on the arrival clock

        byte[] value = "alone".getBytes(StandardCharsets.UTF_8);
        write("sparse", value);

        await().atMost(Duration.ofSeconds(30)).until(() -> onTheBackup("sparse") != null);
        assertThat(onTheBackup("sparse")).isEqualTo(value);
    }

    @Test
    void valuesWrittenLessThanALingerApartWaitForMoreOnABusyLink() {
        startWithABusyLink();
        // the arrival clock stands still: the values come 0 ns after the big one and after each other
        write("dense-1", "one".getBytes(StandardCharsets.UTF_8));
        write("dense-2", "two".getBytes(StandardCharsets.UTF_8));

        // held for the hour's linger (a batch goes early only when full, or for a sync write)
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> onTheBackup("dense-1") == null && onTheBackup("dense-2") == null);
        assertThat(replicator.status().pendingValues()).isGreaterThanOrEqualTo(2);
    }

    /**
     * A batch held for the linger does not hold back the large value in progress: its chunks go on while the batch
     * waits (CI saw the round wait out the linger with the batch, the 32 MiB value stopped half-way, and the next
     * write refused for the value lag). The link's rate cap keeps the large value in progress for 2 s, so the small
     * one comes while it is.
     */
    @Test
    void aLargeValueInProgressGoesOnWhileABatchLingers() {
        startReplicating(
                ReplicatorConfig.builder().valueRateBytesPerSecond(2 << 20).maxValueLag(Duration.ofMinutes(5)));
        byte[] big = new byte[4 << 20];
        big[big.length - 1] = 7;
        write("big", big);
        write("dense", "one".getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(30)).until(() -> onTheBackup("big") != null);
        assertThat(onTheBackup("big")).isEqualTo(big);
        assertThat(onTheBackup("dense")).as("held for the linger").isNull();
        assertThat(replicator.status().pendingValues()).isEqualTo(1);
    }
}
