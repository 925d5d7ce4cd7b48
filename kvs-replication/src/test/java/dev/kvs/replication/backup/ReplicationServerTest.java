package dev.kvs.replication.backup;

import static dev.kvs.replication.backup.Packets.bytes;
import static dev.kvs.replication.backup.Packets.chunks;
import static dev.kvs.replication.backup.Packets.deleteChunk;
import static dev.kvs.replication.backup.Packets.deleteKey;
import static dev.kvs.replication.backup.Packets.putChunk;
import static dev.kvs.replication.backup.Packets.putKey;
import static dev.kvs.replication.backup.Packets.skip;
import static dev.kvs.replication.backup.Packets.tx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MembersImage;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupConfig;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.ChannelKind;
import dev.kvs.replication.wire.Frame.Hello;
import dev.kvs.replication.wire.Frame.KeyBatch;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.RejectReason;
import dev.kvs.replication.wire.Frame.ValueBatch;
import dev.kvs.replication.wire.Frame.ValueChunk;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link ReplicationServer} over loopback, spoken to by a fake primary using the wire codec. */
class ReplicationServerTest {
    private static EventLoopGroup group;

    private final TestNode node = new TestNode("dc", "backup-1", 1);
    private final KvStore store = HeapKvStore.open();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ReplicationServer server;

    /** A node whose role and epoch tests can change. */
    static final class TestNode implements BackupNode {
        private final String cluster;
        private final String name;
        volatile boolean backup = true;
        volatile long epoch;

        TestNode(String cluster, String name, long epoch) {
            this.cluster = cluster;
            this.name = name;
            this.epoch = epoch;
        }

        @Override
        public String cluster() {
            return cluster;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean isBackup() {
            return backup;
        }

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public void adoptEpoch(long e) {
            epoch = Math.max(epoch, e);
        }
    }

    @BeforeAll
    static void startLoops() {
        group = new MultiThreadIoEventLoopGroup(4, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) resources.get(i).close();
        if (server != null) server.close();
        store.close();
    }

    private ReplicationServer start(BackupConfig config) {
        server = ReplicationServer.builder()
                .store(store)
                .node(node)
                .group(group)
                .config(config)
                .start();
        return server;
    }

    private ReplicationServer start() {
        return start(BackupConfig.defaults());
    }

    private static Hello hello(ChannelKind kind, int stream) {
        return hello("p1", 1, kind, stream);
    }

    private static Hello hello(String primary, long epoch, ChannelKind kind, int stream) {
        return new Hello("dc", primary, "primary", epoch, kind, stream);
    }

    private TestPrimary connect(Hello hello) {
        TestPrimary p = TestPrimary.connect(group, server.port(), hello);
        resources.add(p);
        return p;
    }

    /** A connected key channel, past its Welcome. */
    private TestPrimary keyChannel() {
        TestPrimary p = connect(hello(ChannelKind.KEY, 0));
        p.next(Frame.Welcome.class);
        return p;
    }

    /** A connected value channel, past its Welcome. */
    private TestPrimary valueChannel(int stream) {
        TestPrimary p = connect(hello(ChannelKind.VALUE, stream));
        p.next(Frame.Welcome.class);
        return p;
    }

    @Test
    void anEmptyBackupWelcomesAKeyChannelAndAsksForAFullResync() {
        start();

        TestPrimary p = connect(hello(ChannelKind.KEY, 0));

        assertThat(p.next()).isEqualTo(new Frame.Welcome("dc", "backup-1", "backup", 1, TxId.ZERO, true));
        await().until(() -> server.status().keyChannelConnected());
    }

    @Test
    void aBackupHoldingDataIsNotEmpty() {
        store.put(bytes("k"), StoredValue.complete(tx(3), bytes("v")));
        start();

        Frame.Welcome w = connect(hello(ChannelKind.VALUE, 0)).next(Frame.Welcome.class);

        assertThat(w.empty()).isFalse();
        assertThat(w.contiguous()).isEqualTo(TxId.ZERO);
    }

    @Test
    void aPrimaryOfAnotherClusterIsRejected() {
        start();

        TestPrimary p = connect(new Hello("elsewhere", "p1", "primary", 1, ChannelKind.KEY, 0));

        Frame.Reject r = p.next(Frame.Reject.class);
        assertThat(r.reason()).isEqualTo(RejectReason.CLUSTER_MISMATCH);
        assertThat(r.message()).isEqualTo("cluster elsewhere != dc");
        p.awaitClosed();
        assertThat(server.status().keyChannelConnected()).isFalse();
    }

    @Test
    void aNodeThatIsNotABackupRejectsThePrimary() {
        node.backup = false;
        start();

        TestPrimary p = connect(hello(ChannelKind.KEY, 0));

        assertThat(p.next(Frame.Reject.class).reason()).isEqualTo(RejectReason.NOT_BACKUP);
        p.awaitClosed();
    }

    @Test
    void aPrimaryOfAnOlderEpochLearnsItIsStale() {
        node.epoch = 5;
        start();

        TestPrimary p = connect(hello("p1", 4, ChannelKind.VALUE, 0));

        Frame.Reject r = p.next(Frame.Reject.class);
        assertThat(r.reason()).isEqualTo(RejectReason.STALE_EPOCH);
        assertThat(r.epoch()).isEqualTo(5);
        p.awaitClosed();
        assertThat(node.epoch()).isEqualTo(5);
    }

    @Test
    void aPrimaryOfANewerEpochIsAdoptedAndTheOlderPrimarysChannelsAreClosed() {
        start();
        TestPrimary old = keyChannel();
        TestPrimary oldValues = valueChannel(0);

        TestPrimary p = connect(hello("p2", 7, ChannelKind.KEY, 0));

        assertThat(p.next(Frame.Welcome.class).epoch()).isEqualTo(7);
        assertThat(node.epoch()).isEqualTo(7);
        old.awaitClosed();
        oldValues.awaitClosed();
        await().until(() -> server.status().valueChannels() == 0);
        assertThat(server.status().epoch()).isEqualTo(7);
    }

    @Test
    void tooManyValueChannelsAreRejectedBusy() {
        start(BackupConfig.builder().maxValueChannels(1).build());
        valueChannel(0);

        TestPrimary second = connect(hello(ChannelKind.VALUE, 1));

        assertThat(second.next(Frame.Reject.class).reason()).isEqualTo(RejectReason.BUSY);
        second.awaitClosed();
    }

    @Test
    void aConnectionNotStartingWithHelloIsClosed() {
        start();

        TestPrimary rude = TestPrimary.connect(group, server.port());
        resources.add(rude);
        rude.send(new KeyBatch(List.of(putKey(tx(1), "k", bytes("v")))));

        rude.awaitClosed();
        assertThat(server.status().keyPackets()).isZero();
    }

    @Test
    void aSecondKeyChannelFromTheSamePrimaryReplacesTheFirst() {
        start();
        TestPrimary first = keyChannel();
        first.send(new KeyBatch(List.of(putKey(tx(1), "k", bytes("v")))));
        assertThat(first.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(1));

        TestPrimary second = connect(hello(ChannelKind.KEY, 0));

        Frame.Welcome w = second.next(Frame.Welcome.class);
        assertThat(w.contiguous()).isEqualTo(tx(1));
        assertThat(w.empty()).isFalse();
        first.awaitClosed();
        second.send(new KeyBatch(List.of(putKey(tx(2), "j", bytes("v")))));
        assertThat(second.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(2));
        assertThat(server.status().keyChannelConnected()).isTrue();
    }

    @Test
    void aValueChannelOfTheSameStreamReplacesTheOldOne() {
        start();
        TestPrimary first = valueChannel(0);
        valueChannel(1);

        TestPrimary again = valueChannel(0);

        first.awaitClosed();
        await().until(() -> server.status().valueChannels() == 2);
        again.send(new ValueBatch(List.of(putChunk(tx(1), "k", bytes("v")))));
        assertThat(again.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));
    }

    @Test
    void aKeyChannelFromAnotherPrimaryOfTheSameEpochIsRejectedBusy() {
        start();
        keyChannel();

        TestPrimary other = connect(hello("p2", 1, ChannelKind.KEY, 0));

        assertThat(other.next(Frame.Reject.class).reason()).isEqualTo(RejectReason.BUSY);
    }

    @Test
    void keyBatchesAreAckedCumulativelyAndFillTheUnfinishedQueue() {
        start();
        TestPrimary keys = keyChannel();

        keys.send(
                new KeyBatch(List.of(putKey(tx(1), "a", bytes("1")), skip(tx(2)), deleteKey(tx(3), "b"))),
                new KeyBatch(List.of(putKey(tx(4), "c", bytes("4")))));

        await().until(() -> server.status().keyPackets() == 4);
        TxId last = null;
        while (last == null || last.isBefore(tx(4)))
            last = keys.next(Frame.KeyAck.class).upTo();
        assertThat(last).isEqualTo(tx(4));
        UnfinishedKeys q = server.unfinishedKeys();
        assertThat(q.snapshot()).extracting(UnfinishedKeys.Pending::txId).containsExactly(tx(1), tx(3), tx(4));
        BackupStatus s = server.status();
        assertThat(s.contiguous()).isEqualTo(tx(4));
        assertThat(s.unfinishedKeys()).isEqualTo(3);
        assertThat(s.bytesReceived()).isPositive();
    }

    @Test
    void aGapIsAckedUpToItAndTheRestIsAskedAgain() {
        start();
        TestPrimary keys = keyChannel();

        keys.send(new KeyBatch(List.of(putKey(tx(1), "a", bytes("1")), putKey(tx(3), "c", bytes("3")))));

        assertThat(keys.next()).isEqualTo(new Frame.KeyAck(tx(1)));
        assertThat(keys.next()).isEqualTo(new Frame.Resend(tx(1)));

        keys.send(new KeyBatch(List.of(putKey(tx(2), "b", bytes("2")), putKey(tx(3), "c", bytes("3")))));

        assertThat(keys.next()).isEqualTo(new Frame.KeyAck(tx(3)));
        assertThat(server.unfinishedKeys().size()).isEqualTo(3);
        assertThat(server.status().resendsRequested()).isEqualTo(1);
    }

    @Test
    void valuesAreAppliedAckedAndTakeTheirKeysOutOfTheQueue() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        byte[] big = new byte[300_000];
        new Random(42).nextBytes(big);
        keys.send(new KeyBatch(
                List.of(putKey(tx(1), "a", bytes("1")), deleteKey(tx(2), "b"), putKey(tx(3), "big", big))));
        assertThat(keys.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(3));

        List<ValueChunk> bigChunks = chunks(tx(3), Op.PUT, bytes("big"), big, 64 * 1024);
        List<ValueChunk> batch = new ArrayList<>();
        batch.add(bigChunks.get(0));
        batch.add(putChunk(tx(1), "a", bytes("1")));
        batch.addAll(bigChunks.subList(1, 3));
        batch.add(deleteChunk(tx(2), "b"));
        values.send(new ValueBatch(batch), new ValueBatch(bigChunks.subList(3, bigChunks.size())));

        List<TxId> acked = new ArrayList<>();
        while (acked.size() < 3) acked.addAll(values.next(Frame.ValueAck.class).txIds());
        assertThat(acked).containsExactly(tx(1), tx(2), tx(3));
        assertThat(store.get(bytes("a"))).isEqualTo(StoredValue.complete(tx(1), bytes("1")));
        assertThat(store.get(bytes("b"))).isNull(); // its key packet came first: no tombstone is left
        assertThat(store.get(bytes("big"))).isEqualTo(StoredValue.complete(tx(3), big));
        assertThat(server.unfinishedKeys().isEmpty()).isTrue();
        BackupStatus s = server.status();
        assertThat(s.valuesApplied()).isEqualTo(3);
        assertThat(s.assemblyBytes()).isZero();
        assertThat(s.valueChannels()).isEqualTo(1);
    }

    @Test
    void aTimedValueBatchGetsAReceiptAtOnceEchoingItsSendTimeAndSize() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        keys.send(new KeyBatch(List.of(putKey(tx(1), "a", bytes("1")))));
        keys.next(Frame.KeyAck.class);
        long before = System.nanoTime();
        ValueBatch timed = new ValueBatch(12345, List.of(putChunk(tx(1), "a", bytes("1"))));
        values.send(timed);
        Frame.ValueReceipt r = values.next(Frame.ValueReceipt.class);
        assertThat(r.sentNanos()).isEqualTo(12345);
        assertThat(r.receivedNanos()).isBetween(before, System.nanoTime());
        assertThat(r.bytes()).isEqualTo(FrameCodec.encodedSize(timed));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));
        // a batch that asks for no receipt (handback) gets none
        keys.send(new KeyBatch(List.of(putKey(tx(2), "b", bytes("2")))));
        keys.next(Frame.KeyAck.class);
        values.send(new ValueBatch(List.of(putChunk(tx(2), "b", bytes("2")))));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(2));
    }

    @Test
    void aStagedChunkGetsAReceiptAtOnceAndAStagedValueIsAppliedAndAckedAtItsBind() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        byte[] v = new byte[1000];
        new Random(43).nextBytes(v);
        long before = System.nanoTime();
        Frame.StagedChunk first = new Frame.StagedChunk(12345, 7, bytes("a"), 1000, 0, Arrays.copyOf(v, 600));
        values.send(first);
        Frame.ValueReceipt r = values.next(Frame.ValueReceipt.class);
        assertThat(r.sentNanos()).isEqualTo(12345);
        assertThat(r.receivedNanos()).isBetween(before, System.nanoTime());
        assertThat(r.bytes()).isEqualTo(FrameCodec.encodedSize(first));
        // a staged chunk that asks for no receipt gets none; the value is applied at its bind
        values.send(new Frame.StagedChunk(0, 7, bytes("a"), 1000, 600, Arrays.copyOfRange(v, 600, 1000)));
        keys.send(new KeyBatch(List.of(putKey(tx(1), "a", v))));
        keys.next(Frame.KeyAck.class);
        values.send(new Frame.StageBind(7, tx(1), bytes("a"), Checksums.crc32c(v), 0));

        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));
        assertThat(store.get(bytes("a"))).isEqualTo(StoredValue.complete(tx(1), v));
        assertThat(server.unfinishedKeys().isEmpty()).isTrue();
        assertThat(server.status().assemblyBytes()).isZero();
    }

    @Test
    void aStagedValueIsContinuedByValueChunksAfterItsBindAndABindOfAStageNotHeldIsNacked() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        byte[] big = new byte[300_000];
        new Random(44).nextBytes(big);
        keys.send(new KeyBatch(List.of(putKey(tx(1), "big", big), putKey(tx(2), "gone", bytes("x")))));
        keys.next(Frame.KeyAck.class);

        values.send(
                new Frame.StagedChunk(0, 1, bytes("big"), big.length, 0, Arrays.copyOf(big, 100_000)),
                new Frame.StagedChunk(0, 2, bytes("gone"), 1, 0, new byte[0]),
                new Frame.StageCancel(2),
                new Frame.StageBind(1, tx(1), bytes("big"), Checksums.crc32c(big), 0),
                new ValueBatch(List.of(new ValueChunk(
                        tx(1),
                        Op.PUT,
                        bytes("big"),
                        big.length,
                        Checksums.crc32c(big),
                        100_000,
                        Arrays.copyOfRange(big, 100_000, big.length)))),
                new Frame.StageBind(2, tx(2), bytes("gone"), Checksums.crc32c(bytes("x")), 0));

        // the ack of tx 1 goes at the end of a read, the nack at once: either may come first
        List<Frame> answers = List.of(values.next(), values.next());
        assertThat(answers)
                .containsExactlyInAnyOrder(
                        new Frame.ValueNack(tx(2), bytes("gone"), "staged value 2 was not held"),
                        new Frame.ValueAck(List.of(tx(1))));
        assertThat(store.get(bytes("big"))).isEqualTo(StoredValue.complete(tx(1), big));
        assertThat(store.get(bytes("gone"))).isNull();
        // the primary resends the nacked value whole
        values.send(new ValueBatch(List.of(putChunk(tx(2), "gone", bytes("x")))));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(2));
        assertThat(server.unfinishedKeys().isEmpty()).isTrue();
    }

    @Test
    void withAValueGroupKeyPacketsAreAckedWhileTheValueLoopIsBusy() throws Exception {
        EventLoopGroup values = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        CountDownLatch busy = new CountDownLatch(1);
        try {
            server = ReplicationServer.builder()
                    .store(store)
                    .node(node)
                    .group(group)
                    .valueGroup(values)
                    .start();
            TestPrimary keys = keyChannel();
            TestPrimary value = valueChannel(0);
            keys.send(new KeyBatch(List.of(putKey(tx(1), "a", bytes("1")))));
            keys.next(Frame.KeyAck.class);
            value.send(new ValueBatch(List.of(putChunk(tx(1), "a", bytes("1")))));
            assertThat(value.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));

            CountDownLatch blocked = new CountDownLatch(1);
            values.execute(
                    () -> { // a value channel applying a huge value, say
                        blocked.countDown();
                        try {
                            busy.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
            // the loop must be inside the task before the value arrives, or it may read the value first
            assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
            value.send(new ValueBatch(List.of(putChunk(tx(2), "b", bytes("2")))));
            keys.send(new KeyBatch(List.of(putKey(tx(2), "b", bytes("2")))));
            assertThat(keys.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(2)); // not held up
            assertThat(value.received().poll(200, TimeUnit.MILLISECONDS)).isNull(); // the value loop is busy
            busy.countDown();
            assertThat(value.next(Frame.ValueAck.class).txIds()).containsExactly(tx(2));
            assertThat(store.get(bytes("b"))).isEqualTo(StoredValue.complete(tx(2), bytes("2")));
        } finally {
            busy.countDown();
            for (int i = resources.size() - 1; i >= 0; i--) resources.get(i).close();
            resources.clear();
            server.close();
            server = null;
            values.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void anEffectOnItsBaseIsAckedAndAppliedAndOneOnAnotherBaseIsNackedForTheWholeValue() {
        start();
        TestPrimary values = valueChannel(0);
        byte[] key = bytes("h");
        MembersImage base;
        try (KvStore primary = HeapKvStore.open()) {
            primary.putMembers(key, ValueType.HASH, List.of(new Member(bytes("a"), bytes("1"))), false, () -> tx(1));
            base = primary.image(key); // the backup receives the hash of TxId 1 by its image
        }

        values.send(new ValueBatch(
                List.of(new ValueChunk(tx(1), Op.HASH, key, base.image().length, base.checksum(), 0, base.image()))));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));
        values.send(new Frame.Effect(
                0, tx(2), tx(1), Op.HASH, key, 0, List.of(new Frame.EffectMember(bytes("b"), bytes("2"))), List.of()));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(2));
        assertThat(store.getMembers(key, ValueType.HASH, List.of(bytes("a"), bytes("b"))))
                .containsExactly(bytes("1"), bytes("2"));

        values.send(new Frame.Effect(0, tx(4), tx(3), Op.HASH, key, 0, List.of(), List.of(bytes("a"))));
        assertThat(values.next(Frame.ValueNack.class))
                .isEqualTo(new Frame.ValueNack(
                        tx(4), key, "effect's base " + tx(3) + " is not held: the whole value is wanted"));
        assertThat(store.header(key).txId()).isEqualTo(tx(2));
    }

    @Test
    void anOlderValueIsAckedAsSupersededAndNotApplied() {
        start();
        TestPrimary values = valueChannel(0);

        values.send(new ValueBatch(List.of(putChunk(tx(5), "k", bytes("new")))));
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(5));
        values.send(new ValueBatch(List.of(putChunk(tx(4), "k", bytes("old")))));

        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(4));
        assertThat(store.get(bytes("k"))).isEqualTo(StoredValue.complete(tx(5), bytes("new")));
        assertThat(server.status().valuesSuperseded()).isEqualTo(1);
    }

    @Test
    void aCorruptValueIsNackedAndNeverApplied() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        keys.send(new KeyBatch(List.of(putKey(tx(1), "k", bytes("value")))));
        keys.next(Frame.KeyAck.class);
        ValueChunk good = putChunk(tx(1), "k", bytes("value"));

        values.send(new ValueBatch(
                List.of(new ValueChunk(tx(1), Op.PUT, bytes("k"), 5, good.checksum(), 0, bytes("vAlue")))));

        Frame.ValueNack nack = values.next(Frame.ValueNack.class);
        assertThat(nack.txId()).isEqualTo(tx(1));
        assertThat(nack.key()).isEqualTo(bytes("k"));
        assertThat(nack.reason()).startsWith("checksum mismatch");
        assertThat(store.get(bytes("k"))).isNull();
        assertThat(server.unfinishedKeys().contains(bytes("k"))).isTrue();
        assertThat(server.status().valuesNacked()).isEqualTo(1);

        values.send(new ValueBatch(List.of(good))); // the primary resends it
        assertThat(values.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));
        assertThat(store.get(bytes("k"))).isEqualTo(StoredValue.complete(tx(1), bytes("value")));
    }

    @Test
    void heartbeatsAreEchoedOnBothKindsOfChannel() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);

        keys.send(new Frame.Heartbeat(123, false));
        values.send(new Frame.Heartbeat(456, false));

        assertThat(keys.next()).isEqualTo(new Frame.Heartbeat(123, true));
        assertThat(values.next()).isEqualTo(new Frame.Heartbeat(456, true));
    }

    @Test
    void garbageClosesOnlyTheChannelItArrivedOn() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);

        values.sendRaw(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 5, 99, 99, 1, 2, 3}));

        values.awaitClosed();
        keys.send(new Frame.Heartbeat(7, false));
        assertThat(keys.next()).isEqualTo(new Frame.Heartbeat(7, true));
        await().until(() -> server.status().valueChannels() == 0);
        assertThat(server.status().keyChannelConnected()).isTrue();
    }

    @Test
    void aFrameOfTheWrongChannelKindClosesTheChannel() {
        start();
        TestPrimary values = valueChannel(0);

        values.send(new KeyBatch(List.of(putKey(tx(1), "k", bytes("v")))));

        values.awaitClosed();
    }

    @Test
    void aFullResyncOverTheWireListsKeysAndRemovesTheUnlistedAndWantsOnlyWhatItLacks() {
        store.put(bytes("gone"), StoredValue.complete(tx(2), bytes("x")));
        store.put(bytes("held"), StoredValue.complete(tx(4), bytes("h")));
        start();
        TestPrimary keys = keyChannel();

        keys.send(
                new Frame.ResyncBegin(tx(10)),
                new KeyBatch(List.of(
                        putKey(tx(7), "a", bytes("a")),
                        putKey(tx(4), "held", bytes("h")),
                        putKey(tx(3), "b", bytes("b")))),
                new Frame.ResyncEnd(tx(10)),
                new KeyBatch(List.of(putKey(tx(11), "c", bytes("c")))));

        // the listing is answered with what this backup lacks: "held" it has at the listed TxId
        assertThat(keys.next(Frame.ResyncWants.class).wanted())
                .extracting(p -> new String(p.key()) + "@" + p.txId())
                .containsExactly("a@1:7", "b@1:3");
        TxId last = null;
        while (last == null || last.isBefore(tx(11)))
            last = keys.next(Frame.KeyAck.class).upTo();
        assertThat(server.unfinishedKeys().snapshot())
                .extracting(p -> new String(p.key()))
                .containsExactly("a", "b", "c");
        assertThat(store.exists(bytes("gone"))).isFalse();
        assertThat(server.status().resyncs()).isEqualTo(1);
        assertThat(server.status().keysRemovedByResync()).isEqualTo(1);
    }

    @Test
    void theStoreWalkAtTheEndOfAResyncDoesNotHoldUpTheKeyChannel() throws Exception {
        CountDownLatch walking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        KvStore slowWalk = (KvStore) Proxy.newProxyInstance(
                KvStore.class.getClassLoader(), new Class<?>[] {KvStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("forEach")) {
                        walking.countDown();
                        release.await(); // a store so large its walk takes as long as the test wants
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        server = ReplicationServer.builder()
                .store(slowWalk)
                .node(node)
                .group(group)
                .start();
        TestPrimary keys = keyChannel();
        try {
            keys.send(new Frame.ResyncBegin(tx(10)), new Frame.ResyncEnd(tx(10)));
            assertThat(walking.await(10, TimeUnit.SECONDS)).isTrue();

            keys.send(new Frame.Heartbeat(42, false));

            // the event loop answers while the walk runs; the resync is acknowledged only after it
            Frame answer = keys.received().poll(5, TimeUnit.SECONDS);
            assertThat(answer).isEqualTo(new Frame.Heartbeat(42, true));
            assertThat(keys.received()).isEmpty();
        } finally {
            release.countDown();
        }
        assertThat(keys.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(10));
    }

    @Test
    void theKeyChannelPausesWhileTheUnfinishedQueueIsFullAndResumesWhenValuesDrainIt() throws Exception {
        start(BackupConfig.builder().maxUnfinishedKeys(2).build());
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        keys.send(new KeyBatch(List.of(putKey(tx(1), "a", bytes("1")), putKey(tx(2), "b", bytes("2")))));
        assertThat(keys.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(2));
        await().until(() -> server.status().keyChannelPaused());

        keys.send(new KeyBatch(List.of(putKey(tx(3), "c", bytes("3")))));
        assertThat(keys.received().poll(200, TimeUnit.MILLISECONDS))
                .as("no ack while paused")
                .isNull();
        values.send(new ValueBatch(List.of(putChunk(tx(1), "a", bytes("1")))));

        assertThat(keys.next(Frame.KeyAck.class).upTo()).isEqualTo(tx(3));
        assertThat(server.unfinishedKeys().snapshot())
                .extracting(p -> new String(p.key()))
                .containsExactly("b", "c");
        await().until(() -> server.status().keyChannelPaused()); // full again
    }

    @Test
    void aValueChannelOverTheAssemblyBoundPausesUntilAnotherChannelFreesMemory() throws Exception {
        start(BackupConfig.builder().maxAssemblyBytes(3000).build());
        TestPrimary a = valueChannel(0);
        TestPrimary b = valueChannel(1);
        byte[] va = new byte[2000];
        byte[] vb = new byte[2000];
        new Random(7).nextBytes(va);
        new Random(8).nextBytes(vb);
        List<ValueChunk> ca = chunks(tx(1), Op.PUT, bytes("a"), va, 1000);
        List<ValueChunk> cb = chunks(tx(2), Op.PUT, bytes("b"), vb, 1000);
        a.send(new ValueBatch(List.of(ca.get(0))));
        await().until(() -> server.status().assemblyBytes() == 2000);

        b.send(new ValueBatch(List.of(cb.get(0)))); // 4000 > 3000 while a holds memory: b pauses
        await().until(() -> server.status().pausedValueChannels() == 1);
        b.send(new ValueBatch(List.of(cb.get(1))));
        b.send(new Frame.Heartbeat(1, false));
        assertThat(b.received().poll(200, TimeUnit.MILLISECONDS))
                .as("b is not read while paused")
                .isNull();

        a.send(new ValueBatch(List.of(ca.get(1))));

        assertThat(a.next(Frame.ValueAck.class).txIds()).containsExactly(tx(1));
        assertThat(List.of(b.next(), b.next())) // acks go out at the end of the read, echoes at once
                .containsExactlyInAnyOrder(new Frame.ValueAck(List.of(tx(2))), new Frame.Heartbeat(1, true));
        assertThat(store.get(bytes("b"))).isEqualTo(StoredValue.complete(tx(2), vb));
        BackupStatus s = server.status();
        assertThat(s.pausedValueChannels()).isZero();
        assertThat(s.assemblyBytes()).isZero();
    }

    @Test
    void closeClosesEveryConnectionAndTheStatusSaysSo() {
        start();
        TestPrimary keys = keyChannel();
        TestPrimary values = valueChannel(0);
        await().until(() -> server.status().valueChannels() == 1);

        server.close();

        keys.awaitClosed();
        values.awaitClosed();
        assertThat(server.status().keyChannelConnected()).isFalse();
    }
}
