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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * On an idle link the replication event loop ships a committed write's value itself, after its key packet
 * ({@link ValueShipper#shipNow}); the shipper thread ships everything else. Both ship from the same queue,
 * so the backup must end up with exactly the primary's values whoever shipped them.
 */
class ValueShippingOnTheLoopTest {
    /** The replicator's loop: one thread, as a node has (key and value channels share it). */
    private final EventLoopGroup replication = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    private final EventLoopGroup backupLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final EventLoopGroup clientLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final KvStore primaryStore = HeapKvStore.open();
    private final KvStore backupStore = HeapKvStore.open();
    /** What the backup writes to: {@link #backupStore}, unless a test puts a gate in front of it. */
    private KvStore backupWrites = backupStore;
    /** The replicator's clock of value arrivals (for the linger). */
    private LongSupplier arrivalClock = System::nanoTime;

    private ReplicationServer server;
    private Replicator replicator;

    @AfterEach
    void close() {
        if (replicator != null) replicator.close();
        if (server != null) server.close();
        primaryStore.close();
        backupStore.close();
        for (EventLoopGroup g : List.of(replication, backupLoops, clientLoops)) {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private void start(ReplicatorConfig.Builder builder) {
        ReplicatorConfig config = builder.writeTimeout(Duration.ofSeconds(30))
                .reconnect(Duration.ofMillis(20), Duration.ofMillis(100))
                .build();
        server = ReplicationServer.builder()
                .store(backupWrites)
                .node(new FixedBackupNode("dc", "backup-1"))
                .group(backupLoops)
                .config(BackupConfig.defaults())
                .start();
        replicator = Replicator.builder()
                .config(config)
                .store(primaryStore)
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(replication)
                .arrivalClock(arrivalClock)
                .start();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> replicator.status().streaming()
                        && replicator.status().valueStreamsUp() == config.valueStreams());
    }

    /** Writes {@code value} to {@code key} in {@code mode}: ordered, stored, committed (as the server does). */
    private CompletableFuture<Void> write(ReplicationMode mode, byte[] key, byte[] value) {
        WriteOrder order = replicator.begin(mode);
        primaryStore.put(key, StoredValue.complete(order.put(key, value.length, Checksums.crc32c(value), 0), value));
        return order.commit();
    }

    /** Whether the replicator's shipper thread is waiting for values ({@code PendingValues.awaitWork}). */
    private static boolean shipperWaitsForWork() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().equals("kvs-value-shipper"))
                .anyMatch(e -> e.getKey().getState() == Thread.State.TIMED_WAITING
                        && Arrays.stream(e.getValue())
                                .anyMatch(f -> f.getMethodName().equals("awaitWork")));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void onAnIdleLinkTheReplicationLoopShipsTheValueItself() {
        start(ReplicatorConfig.builder());
        int writes = 20;
        for (int i = 0; i < writes; i++) {
            // sync: the write completes once its value is applied, so the link is idle before the next
            write(ReplicationMode.SYNC, bytes("k" + i), bytes("v" + i))
                    .orTimeout(20, TimeUnit.SECONDS)
                    .join();
            assertThat(backupStore.get(bytes("k" + i)).value()).isEqualTo(bytes("v" + i));
        }
        long onTheLoop = replicator.valuesShippedNow();
        System.out.println("values shipped by the replication loop: " + onTheLoop + " of " + writes);
        // not all: the shipper may be between two waits (it takes the lock for a round after each), or the
        // flow control's pacing may hold a frame; then the shipper ships it, as it must
        assertThat(onTheLoop).isGreaterThanOrEqualTo(writes / 2);
        assertThat(replicator.status().valuesShipped()).isGreaterThanOrEqualTo(writes);
    }

    @Test
    void onAnIdleLinkTheReplicationLoopSendsALargeValuesFirstChunk() {
        start(ReplicatorConfig.builder().chunkBytes(16 * 1024));
        int writes = 20;
        Random random = new Random(writes);
        long bytesBefore = replicator.status().valueBytesShipped();
        for (int i = 0; i < writes; i++) {
            byte[] value = new byte[100_000 + i]; // 7 chunks: the first from the loop, the others from the shipper
            random.nextBytes(value);
            write(ReplicationMode.SYNC, bytes("k" + i), value)
                    .orTimeout(20, TimeUnit.SECONDS)
                    .join();
            assertThat(backupStore.get(bytes("k" + i)).value()).isEqualTo(value);
        }
        long firstChunks = replicator.firstChunksShippedNow();
        System.out.println("first chunks sent by the replication loop: " + firstChunks + " of " + writes);
        assertThat(firstChunks).isGreaterThanOrEqualTo(writes / 2);
        assertThat(replicator.valuesShippedNow()).isZero(); // every value had chunks left for the shipper
        // each chunk went once: a first chunk sent again by the shipper would be a resend of the value
        long valueBytes = writes * 100_000L + (writes - 1) * writes / 2;
        assertThat(replicator.status().valueBytesShipped() - bytesBefore).isBetween(valueBytes, valueBytes * 11 / 10);
    }

    /**
     * A sync write's value does not linger (the shipper would send its batch at once), so on a busy link too the
     * loop ships it rather than waking the shipper for it. The link is kept busy by an id-first value whose
     * apply the backup holds back (so its ack does not come), and values arrive less than a linger apart (the
     * arrival clock stands still), so any other batch would linger: an hour here.
     */
    @Test
    void onABusyLinkTheReplicationLoopShipsTheValueASyncWriteWaitsFor() throws Exception {
        byte[] held = bytes("held");
        CountDownLatch release = new CountDownLatch(1);
        backupWrites = (KvStore) Proxy.newProxyInstance(
                KvStore.class.getClassLoader(), new Class<?>[] {KvStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("update") && args[0] instanceof byte[] k && Arrays.equals(k, held)) {
                        release.await(30, TimeUnit.SECONDS); // the backup's value loop applies it later
                    }
                    try {
                        return method.invoke(backupStore, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        long frozen = System.nanoTime();
        arrivalClock = () -> frozen;
        // small frames, so that a batch fits the flow control's first window beside the value in flight
        start(ReplicatorConfig.builder()
                .valueLinger(Duration.ofHours(1))
                .valueBatchBytes(4 * 1024)
                .chunkBytes(4 * 1024));
        write(ReplicationMode.SYNC, bytes("first"), bytes("v"))
                .orTimeout(20, TimeUnit.SECONDS)
                .join();

        CompletableFuture<Void> idFirst = write(ReplicationMode.ID_FIRST, held, bytes("held back"));
        await().atMost(Duration.ofSeconds(20)).until(() -> replicator.status().valuesShipped() >= 2);
        // the loop ships only if the shipper thread is not in a round just then (else it wakes the shipper): wait
        // until the shipper waits for work, as it does between the writes of a quiet link
        await().atMost(Duration.ofSeconds(20)).until(ValueShippingOnTheLoopTest::shipperWaitsForWork);
        long before = replicator.valuesShippedNow();
        CompletableFuture<Void> sync = write(ReplicationMode.SYNC, bytes("waited for"), bytes("now"));
        await().atMost(Duration.ofSeconds(20)).until(() -> replicator.status().valuesShipped() >= 3);
        long shippedByTheLoop = replicator.valuesShippedNow() - before;
        release.countDown();

        assertThat(shippedByTheLoop).isEqualTo(1);
        sync.orTimeout(20, TimeUnit.SECONDS).join();
        idFirst.orTimeout(20, TimeUnit.SECONDS).join();
        assertThat(backupStore.get(bytes("waited for")).value()).isEqualTo(bytes("now"));
        // an id-first write is answered on its key packet's ack: the held value's apply may still be running
        await().atMost(Duration.ofSeconds(20)).until(() -> backupStore.get(held) != null);
        assertThat(backupStore.get(held).value()).isEqualTo(bytes("held back"));
    }

    @Test
    void withARateCapEveryValueGoesThroughTheShipperThread() {
        // the loop never waits, and a capped rate may make a frame wait: it leaves them all to the shipper
        start(ReplicatorConfig.builder().valueRateBytesPerSecond(10L << 20).chunkBytes(16 * 1024));
        for (int i = 0; i < 10; i++) {
            write(ReplicationMode.SYNC, bytes("k" + i), bytes("v" + i))
                    .orTimeout(20, TimeUnit.SECONDS)
                    .join();
            assertThat(backupStore.get(bytes("k" + i)).value()).isEqualTo(bytes("v" + i));
        }
        byte[] large = new byte[100_000];
        new Random(10).nextBytes(large);
        write(ReplicationMode.SYNC, bytes("large"), large)
                .orTimeout(20, TimeUnit.SECONDS)
                .join();
        assertThat(backupStore.get(bytes("large")).value()).isEqualTo(large);
        assertThat(replicator.valuesShippedNow()).isZero();
        assertThat(replicator.firstChunksShippedNow()).isZero();
        assertThat(replicator.status().valuesShipped()).isGreaterThanOrEqualTo(10);
    }

    /**
     * Writers on plain threads and on event loops, small and large values (large ones go chunk by chunk
     * through the shipper, and keep the loop from shipping meanwhile), overwrites of the same keys
     * (conflated), in sync and id-first: every write completes, and the backup ends with the primary's
     * newest value of every key.
     */
    @RepeatedTest(3)
    void concurrentWritersLeaveTheBackupWithThePrimarysValues() throws Exception {
        long seed = ThreadLocalRandom.current().nextLong();
        System.out.println("seed " + seed);
        start(ReplicatorConfig.builder().chunkBytes(64 * 1024).valueBatchBytes(64 * 1024));
        int[] sizes = {16, 1024, 20 * 1024, 200 * 1024};
        int writers = 4;
        int keysEach = 12;
        int writesEach = 150;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            Random random = new Random(seed + w);
            // each writer has keys of its own: one key's writes are ordered as the server orders them.
            // A batch of 1 to 3 writes, then the writer waits for them: the link goes idle now and then, so
            // both the loop and the shipper ship
            java.util.function.Supplier<List<CompletableFuture<Void>>> batch = () -> {
                List<CompletableFuture<Void>> mine = new ArrayList<>();
                int n = 1 + random.nextInt(3);
                for (int i = 0; i < n; i++) {
                    byte[] key = bytes("w" + writer + ":" + random.nextInt(keysEach));
                    byte[] value = new byte[sizes[random.nextInt(sizes.length)]];
                    random.nextBytes(value);
                    ReplicationMode mode = random.nextBoolean() ? ReplicationMode.SYNC : ReplicationMode.ID_FIRST;
                    mine.add(write(mode, key, value));
                }
                return mine;
            };
            // odd writers commit on an event loop: the wake-up comes once per task, after it
            var loop = writer % 2 == 0 ? null : clientLoops.next();
            Thread t = new Thread(() -> {
                try {
                    for (int written = 0; written < writesEach; ) {
                        List<CompletableFuture<Void>> mine = loop == null
                                ? batch.get()
                                : loop.submit(batch::get).get(30, TimeUnit.SECONDS);
                        written += mine.size();
                        synchronized (done) {
                            done.addAll(mine);
                        }
                        CompletableFuture.allOf(mine.toArray(CompletableFuture[]::new))
                                .get(30, TimeUnit.SECONDS);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(threads).noneMatch(Thread::isAlive);
        assertThat(done).hasSizeGreaterThanOrEqualTo(writers * writesEach);
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                .orTimeout(30, TimeUnit.SECONDS)
                .join();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            for (int w = 0; w < writers; w++) {
                for (int k = 0; k < keysEach; k++) {
                    byte[] key = bytes("w" + w + ":" + k);
                    StoredValue p = primaryStore.get(key);
                    if (p == null) continue; // never written
                    StoredValue b = backupStore.get(key);
                    assertThat(b)
                            .as("seed %d, key %s", seed, new String(key, StandardCharsets.UTF_8))
                            .isNotNull();
                    assertThat(b.txId()).as("seed %d", seed).isEqualTo(p.txId());
                    assertThat(b.value()).as("seed %d", seed).isEqualTo(p.value());
                }
            }
            assertThat(replicator.status().pendingValues()).isZero();
        });
        System.out.println("values shipped: " + replicator.status().valuesShipped() + ", by the replication loop: "
                + replicator.valuesShippedNow());
    }
}
