package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import dev.kvs.core.internal.Stores;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.StructureEffect;
import dev.kvs.replication.WriteOrder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * A structure write ordered with its effect (as the server's StructureWrites orders HSET, SADD, HDEL, SREM) ships
 * as that effect when the backup was sent its base, and whole otherwise. Real Chronicle stores on both sides,
 * over loopback; the bytes counted are the value channels' ({@code ReplicatorStatus.bytesShipped}).
 */
class StructureEffectShippingTest {
    private final EventLoopGroup replication = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup backupLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final KvStore primaryStore = open();
    private final KvStore backupStore = open();
    private ReplicationServer server;
    private Replicator replicator;

    private static KvStore open() {
        return Stores.open(
                StoreConfig.builder().maxEntries(10_000).maxBytes(256L << 20).build());
    }

    @BeforeEach
    void start() {
        ReplicatorConfig config = ReplicatorConfig.builder()
                .writeTimeout(Duration.ofSeconds(30))
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
                .store(primaryStore)
                .identity("dc", "primary-1")
                .peer(new InetSocketAddress("127.0.0.1", server.port()))
                .group(replication)
                .start();
        await().atMost(Duration.ofSeconds(20))
                .until(() -> replicator.status().streaming()
                        && replicator.status().valueStreamsUp() == config.valueStreams());
    }

    @AfterEach
    void close() {
        replicator.close();
        server.close();
        primaryStore.close();
        backupStore.close();
        for (EventLoopGroup g : List.of(replication, backupLoops)) {
            g.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** As StructureWrites' supplier: the effect on the key's structure before the write, none for a new one. */
    private Supplier<TxId> txId(WriteOrder order, byte[] key, ValueType type, List<Member> set, List<byte[]> removed) {
        return () -> {
            RecordHeader h = primaryStore.header(key);
            boolean kept = h != null && h.state() == RecordState.COMPLETE && h.type() == type;
            if (!kept) return order.putStructure(key, type, 0);
            List<byte[]> names = new ArrayList<>();
            List<byte[]> values = new ArrayList<>();
            for (Member m : set) {
                names.add(m.name());
                values.add(m.value());
            }
            return order.putStructure(
                    key, type, h.expireAtMillis(), new StructureEffect(h.txId(), names, values, removed));
        };
    }

    private CompletableFuture<Void> put(ReplicationMode mode, byte[] key, List<Member> ms, ValueType type) {
        WriteOrder o = replicator.begin(mode);
        primaryStore.putMembers(key, type, ms, false, txId(o, key, type, ms, List.of()));
        return o.commit();
    }

    private CompletableFuture<Void> remove(ReplicationMode mode, byte[] key, List<byte[]> names, ValueType type) {
        WriteOrder o = replicator.begin(mode);
        primaryStore.removeMembers(key, type, names, false, txId(o, key, type, List.of(), names));
        return o.commit();
    }

    private void awaitSame(byte[] key) {
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(state(backupStore, key)).isEqualTo(state(primaryStore, key)));
    }

    private static String state(KvStore store, byte[] key) {
        RecordHeader h = store.header(key);
        if (h == null || h.state() == RecordState.TOMBSTONE) return "absent";
        if (h.type().isStructure()) {
            MembersImage m = store.image(key);
            return h + " image crc "
                    + (m == null ? "none" : Integer.toHexString(m.checksum()) + "/" + m.image().length);
        }
        return h + " value "
                + Integer.toHexString(Checksums.crc32c(store.get(key).value()));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A hash of 10,000 fields on both sides; returns its image's size. */
    private int largeHash(byte[] key) {
        List<Member> ms = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            ms.add(new Member(b(String.format("field:%014d", i)), b(String.format("value:%044d", i))));
        }
        put(ReplicationMode.SYNC, key, ms, ValueType.HASH).join();
        awaitSame(key);
        return primaryStore.image(key).image().length;
    }

    @Test
    void anHsetOnALargeHashTheBackupHoldsShipsItsEffectNotTheImage() {
        byte[] key = b("h");
        int size = largeHash(key);
        long before = replicator.status().valueBytesShipped();

        put(ReplicationMode.SYNC, key, List.of(new Member(b("field:00000000000007"), b("changed"))), ValueType.HASH)
                .join();
        remove(ReplicationMode.SYNC, key, List.of(b("field:00000000000008")), ValueType.HASH)
                .join();

        awaitSame(key);
        long bytes = replicator.status().valueBytesShipped() - before;
        assertThat(bytes)
                .as("value bytes of two effects on a hash of %d image bytes", size)
                .isLessThan(size / 100);
    }

    @Test
    void anEffectTheBackupCannotApplyIsNackedAndTheHashShipsWhole() {
        byte[] key = b("h");
        int size = largeHash(key);
        backupStore.update(key, x -> Write.remove()); // the backup no longer holds the effect's base
        long before = replicator.status().valueBytesShipped();

        put(ReplicationMode.SYNC, key, List.of(new Member(b("field:00000000000007"), b("changed"))), ValueType.HASH)
                .join();

        awaitSame(key);
        assertThat(replicator.status().valueBytesShipped() - before).isGreaterThanOrEqualTo(size);
        assertThat(replicator.effects().bytes()).isZero();
    }

    /**
     * Seeded random HSET/SADD, HDEL/SREM (as effects), string overwrites and deletes of a few keys in id-first
     * mode, many in flight at once: in the end every key on the backup equals the primary's, structures by image.
     */
    @RepeatedTest(3)
    void randomHistoriesOfEffectsLeaveTheBackupEqualToThePrimary() {
        long seed = Long.getLong("kvs.seed", new Random().nextLong());
        System.out.println("StructureEffectShippingTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random r = new Random(seed);
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            byte[] key = b("k" + r.nextInt(6));
            RecordHeader h = primaryStore.header(key);
            ValueType type = h == null || h.state() == RecordState.TOMBSTONE
                    ? (r.nextBoolean() ? ValueType.HASH : ValueType.SET)
                    : h.type();
            int roll = r.nextInt(100);
            if (roll < 5) {
                WriteOrder o = replicator.begin(ReplicationMode.ID_FIRST);
                primaryStore.update(key, x -> Write.remove()); // a DEL
                o.delete(key);
                acks.add(o.commit());
            } else if (roll < 10 || type == ValueType.STRING) {
                byte[] v = new byte[r.nextInt(40)];
                r.nextBytes(v);
                WriteOrder o = replicator.begin(ReplicationMode.ID_FIRST);
                primaryStore.put(key, StoredValue.complete(o.put(key, v.length, Checksums.crc32c(v), 0), v));
                acks.add(o.commit());
            } else if (roll < 35) {
                List<byte[]> names = new ArrayList<>();
                for (int n = r.nextInt(4); n >= 0; n--) names.add(b("field-" + r.nextInt(60)));
                acks.add(remove(ReplicationMode.ID_FIRST, key, names, type));
            } else {
                List<Member> ms = new ArrayList<>();
                for (int n = r.nextInt(5); n >= 0; n--) {
                    byte[] name = b("field-" + r.nextInt(60));
                    ms.add(type == ValueType.SET ? Member.of(name) : new Member(name, b("v" + r.nextInt(1000))));
                }
                acks.add(put(ReplicationMode.ID_FIRST, key, ms, type));
            }
        }
        CompletableFuture.allOf(acks.toArray(new CompletableFuture[0])).join();
        for (int k = 0; k < 6; k++) {
            byte[] key = b("k" + k);
            String what = "seed " + seed + ": k" + k;
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> assertThat(state(backupStore, key)).as(what).isEqualTo(state(primaryStore, key)));
        }
    }
}
