package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.chunks;
import static dev.kvs.replication.backup.Packets.deleteChunk;
import static dev.kvs.replication.backup.Packets.deleteKey;
import static dev.kvs.replication.backup.Packets.putChunk;
import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.tx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ValueRefusals;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.ChannelKind;
import dev.kvs.replication.wire.Frame.Hello;
import dev.kvs.replication.wire.Frame.KeyBatch;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.StoreRefusal;
import dev.kvs.replication.wire.Frame.ValueBatch;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A backup whose store will not take a value answers {@code ValueRefused} with the reason (not a
 * nack, which would have the primary resend it at once), keeps the key unfinished, and counts the
 * refusal in its status.
 */
class ValueRefusalTest {
    private static EventLoopGroup group;

    private final KvStore store = HeapKvStore.open(
            StoreConfig.builder().maxEntries(2).maxValueBytes(1000).build());
    private final ReplicationServerTest.TestNode node = new ReplicationServerTest.TestNode("dc", "backup-1", 1);
    private ReplicationServer server;
    private TestPrimary keys;
    private TestPrimary values;

    @BeforeAll
    static void startLoops() {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeEverything() {
        if (values != null) values.close();
        if (keys != null) keys.close();
        if (server != null) server.close();
        store.close();
    }

    private void start() {
        server = ReplicationServer.builder()
                .store(store)
                .node(node)
                .group(group)
                .config(BackupConfig.defaults())
                .start();
        keys = TestPrimary.connect(group, server.port(), new Hello("dc", "p1", "primary", 1, ChannelKind.KEY, 0));
        keys.next(Frame.Welcome.class);
        values = TestPrimary.connect(group, server.port(), new Hello("dc", "p1", "primary", 1, ChannelKind.VALUE, 0));
        values.next(Frame.Welcome.class);
    }

    /** Announces and ships {@code key}'s value at {@code seq}; returns the backup's answer. */
    private Frame put(long seq, String key, String value) {
        keys.send(new KeyBatch(List.of(putKey(tx(seq), key, bytes(value)))));
        keys.next(Frame.KeyAck.class);
        values.send(new ValueBatch(List.of(putChunk(tx(seq), key, bytes(value)))));
        return values.next();
    }

    @Test
    void aValueAFullStoreWillNotTakeIsRefusedWithItsReasonAndItsKeyStaysUnfinished() {
        start();
        assertThat(put(1, "a", "1")).isInstanceOf(Frame.ValueAck.class);
        assertThat(put(2, "b", "2")).isInstanceOf(Frame.ValueAck.class);

        Frame answer = put(3, "c", "3");

        assertThat(answer)
                .isEqualTo(new Frame.ValueRefused(
                        tx(3), bytes("c"), StoreRefusal.STORE_FULL, "store full: 2 entries (maxEntries 2)"));
        assertThat(store.get(bytes("c"))).isNull();
        assertThat(server.unfinishedKeys().contains(bytes("c"))).isTrue();
        ValueRefusals r = server.status().refusals();
        assertThat(r.reason()).isEqualTo("store full");
        assertThat(r.detail()).isEqualTo("store full: 2 entries (maxEntries 2)");
        assertThat(r.byReason()).containsEntry("store full", 1L).containsEntry("value too large", 0L);
        assertThat(server.status().valuesNacked()).isZero();
    }

    @Test
    void theRefusedValueLandsWhenItIsSentAgainOnceThereIsRoom() {
        start();
        put(1, "a", "1");
        put(2, "b", "2");
        assertThat(put(3, "c", "3")).isInstanceOf(Frame.ValueRefused.class);
        // an overwrite needs no room: it lands while the store is full
        assertThat(put(4, "a", "one")).isInstanceOf(Frame.ValueAck.class);

        store.delete(bytes("b")); // room again (as a primary's deletes will once tombstones are collected)
        values.send(new ValueBatch(List.of(putChunk(tx(3), "c", bytes("3")))));

        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(3));
        assertThat(store.get(bytes("c"))).isEqualTo(StoredValue.complete(tx(3), bytes("3")));
        assertThat(server.unfinishedKeys().contains(bytes("c"))).isFalse();
    }

    @Test
    void aValueLongerThanTheStoreTakesIsRefusedAtItsFirstChunkAndItsOtherChunksAreIgnored() {
        start();
        byte[] big = new byte[1500];
        new Random(7).nextBytes(big);
        keys.send(new KeyBatch(List.of(
                new Frame.KeyPacket(tx(1), Op.PUT, bytes("big"), big.length, dev.kvs.core.Checksums.crc32c(big)),
                deleteKey(tx(2), "other"))));
        keys.next(Frame.KeyAck.class);

        for (Frame.ValueChunk c : chunks(tx(1), Op.PUT, bytes("big"), big, 500)) {
            values.send(new ValueBatch(List.of(c)));
        }
        values.send(new ValueBatch(List.of(deleteChunk(tx(2), "other")))); // a later value is answered

        assertThat(values.next())
                .isEqualTo(new Frame.ValueRefused(
                        tx(1), bytes("big"), StoreRefusal.VALUE_TOO_LARGE, "value of 1500 bytes > maxValueBytes 1000"));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(2));
        assertThat(server.status().refusals().byReason()).containsEntry("value too large", 1L);
        assertThat(server.status().valuesNacked()).isZero();
    }

    @Test
    void aCorruptValueIsStillNackedNotRefused() {
        start();
        keys.send(new KeyBatch(List.of(putKey(tx(1), "k", bytes("value")))));
        keys.next(Frame.KeyAck.class);
        Frame.ValueChunk good = putChunk(tx(1), "k", bytes("value"));

        values.send(new ValueBatch(
                List.of(new Frame.ValueChunk(tx(1), Op.PUT, bytes("k"), 5, good.checksum(), 0, bytes("vAlue")))));

        assertThat(values.next()).isInstanceOf(Frame.ValueNack.class);
        assertThat(server.status().refusals().total()).isZero();
    }
}
