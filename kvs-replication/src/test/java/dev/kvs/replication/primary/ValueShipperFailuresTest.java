package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.ValueStage;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * No value is left behind: whatever throws in the value shipper (here: the reads of the primary's store it makes),
 * every value it took off the pending queue is shipped or put back, the shipper goes on, and the backup ends with
 * exactly the primary's values.
 *
 * <p>Replay a random run with {@code -Dkvs.seed=<seed printed>}.
 */
class ValueShipperFailuresTest {
    private static final Long FIXED_SEED = Long.getLong("kvs.seed");
    private static final int CHUNK = 64 * 1024;

    private final EventLoopGroup replication = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup backupLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    /** Chronicle: its stages can be read while they are written, so values ship cut-through too. */
    private final KvStore primaryStore = Stores.open(
            StoreConfig.builder().maxEntries(1_000).maxBytes(128L << 20).build());

    private final KvStore backupStore = HeapKvStore.open();
    /** What the replicator's store reads throw; none until a test sets it. */
    private volatile FaultyStore.Fault fault = (read, key) -> null;

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
                .chunkBytes(CHUNK)
                .valueBatchBytes(CHUNK)
                .writeTimeout(Duration.ofSeconds(10))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                .build();
        server = ReplicationServer.builder()
                .store(backupStore)
                .node(new FixedBackupNode("dc", "backup-1"))
                .group(backupLoops)
                .config(BackupConfig.defaults())
                .start();
        replicator = Replicator.builder()
                .config(config)
                .store(FaultyStore.wrap(primaryStore, (read, key) -> fault.at(read, key)))
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(replication)
                .start();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> replicator.status().streaming()
                        && replicator.status().valueStreamsUp() == config.valueStreams());
    }

    /** Orders, stores and commits a write of {@code value} to every one of {@code keys}, as one write (MSET). */
    private CompletableFuture<Void> put(ReplicationMode mode, List<byte[]> keys, byte[] value) {
        WriteOrder order = replicator.begin(mode);
        for (byte[] key : keys)
            primaryStore.put(
                    key, StoredValue.complete(order.put(key, value.length, Checksums.crc32c(value), 0), value));
        return order.commit();
    }

    private CompletableFuture<Void> delete(ReplicationMode mode, byte[] key) {
        WriteOrder order = replicator.begin(mode);
        order.delete(key);
        primaryStore.delete(key);
        return order.commit();
    }

    /**
     * Writes {@code value} to {@code key} through a store stage that ships while it is written (cut-through), as
     * the server's large {@code SET} does; or, if {@code abandon}, closes the stage half-written (a refused SET).
     */
    private CompletableFuture<Void> putStaged(
            ReplicationMode mode, byte[] key, byte[] value, boolean abandon, Random random) {
        ValueStage stage = primaryStore.stage(value.length);
        replicator.shipWhileStaged(key, stage);
        int end = abandon ? value.length / 2 : value.length;
        for (int at = 0; at < end; ) {
            int piece = Math.min(1 + random.nextInt(48 * 1024), end - at);
            stage.write(value, at, piece);
            at += piece;
        }
        if (abandon) {
            stage.close();
            return CompletableFuture.completedFuture(null);
        }
        int checksum = Checksums.crc32c(value);
        WriteOrder order = replicator.begin(mode);
        boolean written = primaryStore.putStaged(
                key,
                stage,
                h -> new RecordHeader(
                        RecordState.COMPLETE, order.put(key, value.length, checksum, 0), checksum, value.length));
        assertThat(written).isTrue();
        stage.close();
        return order.commit();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] random(Random random, int length) {
        byte[] value = new byte[length];
        random.nextBytes(value);
        return value;
    }

    /**
     * One read of {@code k} throws, while its value is shipped in one write with another key's (shipped first,
     * in the same batch if both are small): both values still reach the backup, the sync write completes, nothing
     * stays pending, and the failure is counted.
     */
    @ParameterizedTest(name = "{0} of a {1}-byte value fails once")
    @CsvSource({"get, 16", "header, 200000", "readRange, 200000"})
    void aValueWhoseStoreReadFailsOnceStillReachesTheBackup(String failing, int length) {
        start();
        AtomicInteger thrown = new AtomicInteger();
        fault = (read, key) -> read.equals(failing) && Arrays.equals(key, bytes("k")) && thrown.compareAndSet(0, 1)
                ? new FaultyStore.InjectedException(read)
                : null;
        byte[] value = random(new Random(length), length);
        WriteOrder order = replicator.begin(ReplicationMode.SYNC);
        primaryStore.put(
                bytes("a"),
                StoredValue.complete(
                        order.put(bytes("a"), bytes("va").length, Checksums.crc32c(bytes("va")), 0), bytes("va")));
        primaryStore.put(
                bytes("k"),
                StoredValue.complete(order.put(bytes("k"), value.length, Checksums.crc32c(value), 0), value));
        order.commit().orTimeout(20, TimeUnit.SECONDS).join();

        assertThat(thrown).as("reads of k that threw").hasValue(1);
        for (String key : List.of("a", "k")) {
            StoredValue p = primaryStore.get(bytes(key));
            StoredValue b = backupStore.get(bytes(key));
            assertThat(b).as("backup's %s", key).isNotNull();
            assertThat(b.txId()).as("backup's %s", key).isEqualTo(p.txId());
            assertThat(b.value()).as("backup's %s", key).isEqualTo(p.value());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> replicator.status().pendingValues() == 0);
        assertThat(replicator.status().shipperFailures()).isEqualTo(1);
        // the shipper goes on
        put(ReplicationMode.SYNC, List.of(bytes("k")), bytes("after"))
                .orTimeout(20, TimeUnit.SECONDS)
                .join();
        assertThat(backupStore.get(bytes("k")).value()).isEqualTo(bytes("after"));
    }

    /**
     * A random workload (small values, large chunked ones, large ones shipped while written, some of those
     * abandoned, deletes; async, id-first and sync) while the shipper's reads of the primary's store throw at
     * random (exceptions and errors, on the event loop and on the shipper's thread; the first read always): once
     * the faults stop, nothing stays pending, every failure was counted (none escaped), and the backup holds
     * byte for byte the primary's records (value, TxId), deleted keys absent or tombstones.
     */
    @RepeatedTest(6)
    void faultsAtRandomPointsOfTheShipperLeaveNoValueBehind() {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println("ValueShipperFailuresTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        double p = 0.01 + random.nextDouble() * 0.05;
        Random faults = new Random(random.nextLong());
        AtomicInteger injected = new AtomicInteger();
        start();
        fault = (read, key) -> {
            boolean error;
            synchronized (faults) {
                if (injected.get() > 0 && faults.nextDouble() >= p) return null;
                error = faults.nextInt(4) == 0;
            }
            injected.incrementAndGet();
            return error ? new FaultyStore.InjectedError(read) : new FaultyStore.InjectedException(read);
        };

        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 12; i++) keys.add(bytes("k" + i));
        ReplicationMode[] modes = ReplicationMode.values();
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        int timedOut = 0;
        int ops = 200 + random.nextInt(200);
        int written = 0;
        while (written < ops) {
            written++;
            byte[] key = keys.get(random.nextInt(keys.size()));
            ReplicationMode mode = modes[random.nextInt(modes.length)];
            int roll = random.nextInt(100);
            if (roll < 20) {
                writes.add(delete(mode, key));
            } else if (roll < 55) {
                writes.add(put(mode, List.of(key), random(random, random.nextInt(300))));
            } else if (roll < 80) {
                writes.add(put(mode, List.of(key), random(random, CHUNK + random.nextInt(3 * CHUNK))));
            } else {
                byte[] value = random(random, 64 * 1024 + random.nextInt(3 * CHUNK));
                boolean abandon = random.nextInt(6) == 0;
                writes.add(putStaged(mode, key, value, abandon, random));
            }
            // now and then the writer waits for what it wrote: the link goes idle, and the event loop ships too
            if (random.nextInt(10) == 0) {
                timedOut += awaitAll(writes, seed);
                writes.clear();
                if (timedOut > 0) break; // a value is late (faults delayed it, or it was left behind): see below
            }
        }
        fault = (read, key) -> null;
        timedOut += awaitAll(writes, seed);

        // a value put back ships again within the longest back-off once the faults stop
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(replicator.status().pendingValues())
                        .as("seed %d: values pending", seed)
                        .isZero());
        put(ReplicationMode.SYNC, List.of(bytes("last")), bytes("v"))
                .orTimeout(20, TimeUnit.SECONDS)
                .join();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(server.status().unfinishedKeys())
                    .as("seed %d: unfinished keys on the backup", seed)
                    .isZero();
            assertThat(server.status().assemblyBytes())
                    .as("seed %d: partial values on the backup (%s)", seed, server.status())
                    .isZero();
        });
        for (byte[] key : keys) {
            String k = new String(key, StandardCharsets.UTF_8);
            StoredValue want = primaryStore.get(key);
            StoredValue got = backupStore.get(key);
            if (want == null || want.state() != RecordState.COMPLETE) {
                assertThat(got == null || got.state() == RecordState.TOMBSTONE)
                        .as("seed %d: %s deleted on the primary, on the backup %s", seed, k, got)
                        .isTrue();
            } else {
                assertThat(got).as("seed %d: %s", seed, k).isNotNull();
                assertThat(got.state()).as("seed %d: %s", seed, k).isEqualTo(RecordState.COMPLETE);
                assertThat(got.txId()).as("seed %d: %s", seed, k).isEqualTo(want.txId());
                assertThat(got.value()).as("seed %d: %s", seed, k).isEqualTo(want.value());
            }
        }
        assertThat(replicator.status().shipperFailures())
                .as("seed %d: failures counted, of %d injected", seed, injected.get())
                .isEqualTo(injected.get());
        System.out.println("injected " + injected.get() + " faults (p " + p + ") in " + written + " writes; " + timedOut
                + " writes timed out meanwhile");
    }

    /**
     * Waits for {@code writes}; returns how many timed out. A write may time out while faults delay its value
     * (its value ships later: the test then checks that it did); any other failure fails the test.
     */
    private static int awaitAll(List<CompletableFuture<Void>> writes, long seed) {
        int timedOut = 0;
        for (CompletableFuture<Void> w : writes) {
            try {
                w.orTimeout(30, TimeUnit.SECONDS).join();
            } catch (CompletionException e) {
                assertThat(e.getCause())
                        .as("seed %d: a write failed", seed)
                        .isInstanceOf(ReplicationTimeoutException.class);
                timedOut++;
            }
        }
        return timedOut;
    }
}
