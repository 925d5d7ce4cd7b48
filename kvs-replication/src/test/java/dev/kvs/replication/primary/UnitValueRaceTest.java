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
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.WriteOrder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@code EXEC}'s value never reaches the backup before the unit's key packets, even when the value
 * shipper reads the key while the EXEC is between its store write and its commit: the shipper took the
 * key for an older write, finds the EXEC's newer value in the store, and must leave it to the unit's
 * release. Shipped then, the backup would apply it as a plain value, and its readers would see part of
 * the EXEC (what {@code ExecUnitReplicationNodesTest} caught now and then on a loaded machine: "8 7 7").
 */
class UnitValueRaceTest {
    private final EventLoopGroup replication = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup backupLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final KvStore primaryStore = Stores.open(
            StoreConfig.builder().maxEntries(1_000).maxBytes(16L << 20).build());
    private final KvStore backupStore = HeapKvStore.open();

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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private String onBackup(String key) {
        StoredValue v = backupStore.get(bytes(key));
        return v == null || v.value() == null ? null : new String(v.value(), StandardCharsets.UTF_8);
    }

    /** Orders {@code key}'s write in {@code order} and stores it, as a command does before its commit. */
    private void store(WriteOrder order, String key, String value) {
        byte[] v = bytes(value);
        primaryStore.put(bytes(key), StoredValue.complete(order.put(bytes(key), v.length, Checksums.crc32c(v), 0), v));
    }

    private CompletableFuture<Void> put(String key, String value) {
        WriteOrder order = replicator.begin(ReplicationMode.ID_FIRST);
        store(order, key, value);
        return order.commit();
    }

    @Test
    void aUnitsValueReadAheadOfItsCommitWaitsForTheUnit() throws Exception {
        AtomicReference<Runnable> onRead = new AtomicReference<>();
        server = ReplicationServer.builder()
                .store(backupStore)
                .node(new FixedBackupNode("dc", "backup-1"))
                .group(backupLoops)
                .config(BackupConfig.defaults())
                .start();
        replicator = Replicator.builder()
                .config(ReplicatorConfig.builder()
                        .writeTimeout(Duration.ofSeconds(10))
                        .build())
                .store(FaultyStore.wrap(primaryStore, (read, key) -> {
                    Runnable r = "a".equals(new String(key, StandardCharsets.UTF_8)) ? onRead.getAndSet(null) : null;
                    if (r != null) r.run();
                    return null;
                }))
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(replication)
                .start();
        await().atMost(Duration.ofSeconds(20)).until(() -> replicator.status().streaming());
        put("a", "1").get(10, TimeUnit.SECONDS);
        put("b", "1").get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(onBackup("a")) && "1".equals(onBackup("b")));

        // the EXEC: both keys stored, not yet committed, when the shipper reads "a" for its older write
        WriteOrder exec = replicator.begin(ReplicationMode.ID_FIRST);
        CountDownLatch raced = new CountDownLatch(1);
        onRead.set(() -> {
            store(exec, "a", "2");
            store(exec, "b", "2");
            raced.countDown();
        });
        put("a", "1b").get(10, TimeUnit.SECONDS);
        assertThat(raced.await(10, TimeUnit.SECONDS)).as("the shipper read a").isTrue();
        // shipped after a's turn; its key packet waits behind the EXEC's TxIds, its value does not
        CompletableFuture<Void> z = put("z", "after");
        await().atMost(Duration.ofSeconds(10)).until(() -> "after".equals(onBackup("z")));
        assertThat(onBackup("a"))
                .as("a's value of the EXEC on the backup before the EXEC's key packets (b is %s)", onBackup("b"))
                .isNotEqualTo("2");

        List<CompletableFuture<Void>> replies = exec.commitUnit(List.of());
        for (CompletableFuture<Void> r : replies) r.get(10, TimeUnit.SECONDS);
        z.get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> "2".equals(onBackup("a")) && "2".equals(onBackup("b")));
    }
}
