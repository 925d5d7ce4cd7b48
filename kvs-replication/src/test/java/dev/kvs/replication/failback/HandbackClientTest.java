package dev.kvs.replication.failback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.Handback;
import dev.kvs.replication.HandbackReport;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorConfig;
import dev.kvs.replication.WantedValue;
import dev.kvs.replication.auth.LinkSecurity;
import dev.kvs.replication.wire.Frame;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failback over loopback: a deposed primary's store, a promoted node's {@link ReplicationServer}
 * with a recording {@link Handback}. Only exact matches are handed back; only writes after the new
 * primary's key point that it did not want are rolled back.
 */
class HandbackClientTest {
    private static EventLoopGroup group;

    private final KvStore deposed = HeapKvStore.open();
    private final KvStore promoted = HeapKvStore.open();
    private final Recorder recorder = new Recorder();
    private ReplicationServer server;

    @BeforeAll
    static void startLoops() {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopLoops() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void close() {
        if (server != null) server.close();
        deposed.close();
        promoted.close();
    }

    /** Wants what the test says; accepts a value if its TxId, length and checksum match a want. */
    static final class Recorder implements Handback {
        volatile TxId keysUpTo = TxId.ZERO;
        final List<WantedValue> wanted = new ArrayList<>();
        final Map<ByteKey, byte[]> accepted = new ConcurrentHashMap<>();
        volatile String finished;

        @Override
        public TxId keysUpTo() {
            return keysUpTo;
        }

        @Override
        public List<WantedValue> wanted() {
            return wanted;
        }

        @Override
        public boolean accept(byte[] key, TxId txId, boolean delete, int checksum, byte[] value, long expireAt) {
            for (WantedValue p : wanted) {
                if (new ByteKey(p.key()).equals(new ByteKey(key))
                        && p.txId().equals(txId)
                        && p.checksum() == checksum
                        && p.valueLength() == value.length) {
                    accepted.put(new ByteKey(key), delete ? new byte[0] : value);
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean acceptStructure(
                byte[] key, TxId txId, ValueType type, int checksum, byte[] image, long expireAt) {
            for (WantedValue p : wanted) {
                if (new ByteKey(p.key()).equals(new ByteKey(key)) && p.txId().equals(txId) && p.valueLength() == 0) {
                    accepted.put(new ByteKey(key), image);
                    types.put(new ByteKey(key), type);
                    return true;
                }
            }
            return false;
        }

        final Map<ByteKey, ValueType> types = new ConcurrentHashMap<>();

        @Override
        public void finished(String node, int offered, int accepted) {
            finished = node + " " + offered + " " + accepted;
        }
    }

    private ReplicationServer serve(boolean promotedPrimary) {
        return serve(promotedPrimary, dev.kvs.replication.BackupConfig.defaults());
    }

    private ReplicationServer serve(boolean promotedPrimary, dev.kvs.replication.BackupConfig config) {
        BackupNode node = new BackupNode() {
            @Override
            public String cluster() {
                return "dc";
            }

            @Override
            public String name() {
                return "new-primary";
            }

            @Override
            public boolean isBackup() {
                return !promotedPrimary;
            }

            @Override
            public long epoch() {
                return 2;
            }

            @Override
            public void adoptEpoch(long epoch) {}

            @Override
            public Handback handback() {
                return promotedPrimary ? recorder : null;
            }
        };
        server = ReplicationServer.builder()
                .store(promoted)
                .node(node)
                .group(group)
                .config(config)
                .start();
        return server;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static WantedValue want(String key, StoredValue v) {
        return new WantedValue(
                v.txId(), b(key), v.header().valueLength(), v.header().checksum());
    }

    private HandbackReport handBack() throws Exception {
        ReplicatorConfig config =
                ReplicatorConfig.builder().chunkBytes(64 * 1024).build();
        return HandbackClient.handBack(
                deposed,
                config,
                "dc",
                "old-primary",
                1,
                server.address(),
                group,
                Duration.ofSeconds(10),
                LinkSecurity.NONE);
    }

    @Test
    void handsBackAHashAndASetAsTheirImages() throws Exception {
        List<Member> fields = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) fields.add(new Member(b("field-" + i), b("value-" + i))); // several chunks
        deposed.putMembers(b("h"), ValueType.HASH, fields, false, () -> TxId.of(1, 6));
        deposed.putMembers(
                b("s"), ValueType.SET, List.of(Member.of(b("a")), Member.of(b("b"))), false, () -> TxId.of(1, 7));
        recorder.keysUpTo = TxId.of(1, 5);
        recorder.wanted.add(new WantedValue(TxId.of(1, 6), b("h"), 0, 0));
        recorder.wanted.add(new WantedValue(TxId.of(1, 7), b("s"), 0, 0));
        serve(true);

        HandbackReport report = handBack();

        assertThat(report.accepted()).isEqualTo(2);
        assertThat(deposed.image(b("h")).image().length).isGreaterThan(64 * 1024);
        assertThat(recorder.accepted.get(new ByteKey(b("h"))))
                .isEqualTo(deposed.image(b("h")).image());
        assertThat(recorder.accepted.get(new ByteKey(b("s"))))
                .isEqualTo(deposed.image(b("s")).image());
        assertThat(recorder.types.get(new ByteKey(b("s")))).isEqualTo(ValueType.SET);
    }

    @Test
    void handsBackExactMatchesAndRollsBackWhatTheNewPrimaryNeverReceived() throws Exception {
        byte[] big = new byte[300_000]; // several chunks
        new Random(11).nextBytes(big);
        StoredValue acked = StoredValue.complete(TxId.of(1, 5), b("acknowledged"));
        StoredValue bigValue = StoredValue.complete(TxId.of(1, 6), big);
        StoredValue small = StoredValue.complete(TxId.of(1, 7), b("small"));
        StoredValue changed = StoredValue.complete(TxId.of(1, 9), b("written again after the wanted 1:8"));
        StoredValue orphan = StoredValue.complete(TxId.of(1, 10), b("never announced"));
        StoredValue deleted = StoredValue.tombstone(TxId.of(1, 11));
        deposed.put(b("acked"), acked);
        deposed.put(b("big"), bigValue);
        deposed.put(b("small"), small);
        deposed.put(b("changed"), changed);
        deposed.put(b("orphan"), orphan);
        deposed.put(b("gone"), deleted);
        recorder.keysUpTo = TxId.of(1, 8);
        recorder.wanted.add(want("big", bigValue));
        recorder.wanted.add(want("small", small));
        recorder.wanted.add(new WantedValue(TxId.of(1, 8), b("changed"), 3, 42));
        recorder.wanted.add(new WantedValue(TxId.of(1, 4), b("absent"), 3, 42));
        serve(true);

        HandbackReport report = handBack();

        assertThat(report.wanted()).isEqualTo(4);
        assertThat(report.sent()).isEqualTo(2);
        assertThat(report.accepted()).isEqualTo(2);
        assertThat(report.keysUpTo()).isEqualTo(TxId.of(1, 8));
        assertThat(recorder.accepted.get(new ByteKey(b("big")))).isEqualTo(big);
        assertThat(recorder.accepted.get(new ByteKey(b("small")))).isEqualTo(b("small"));
        assertThat(recorder.finished).isEqualTo("old-primary 2 2");
        assertThat(report.rolledBack())
                .extracting(
                        r -> new String(r.key(), StandardCharsets.UTF_8) + "@" + r.txId() + (r.delete() ? "-" : "+"))
                .containsExactlyInAnyOrder("changed@1:9+", "orphan@1:10+", "gone@1:11-");
        assertThat(deposed.get(b("orphan"))).isNull();
        assertThat(deposed.get(b("changed"))).isNull();
        assertThat(deposed.get(b("gone"))).isNull();
        assertThat(deposed.get(b("acked"))).isEqualTo(acked);
        assertThat(deposed.get(b("big"))).isEqualTo(bigValue);
    }

    @Test
    void aNodeThatIsNotAPromotedPrimaryRefusesAndNothingIsRolledBack() {
        StoredValue orphan = StoredValue.complete(TxId.of(1, 10), b("never announced"));
        deposed.put(b("orphan"), orphan);
        serve(false);

        assertThatThrownBy(this::handBack)
                .isInstanceOf(HandbackClient.HandbackException.class)
                .hasMessageContaining("NOT_PRIMARY")
                .satisfies(e -> assertThat(((HandbackClient.HandbackException) e).reason())
                        .isEqualTo(Frame.RejectReason.NOT_PRIMARY));
        assertThat(deposed.get(b("orphan"))).isEqualTo(orphan);
    }

    @Test
    void nothingListeningIsAClearErrorAndNothingIsRolledBack() throws Exception {
        serve(true);
        var address = server.address();
        server.close();
        server = null;
        StoredValue orphan = StoredValue.complete(TxId.of(1, 10), b("never announced"));
        deposed.put(b("orphan"), orphan);
        ReplicatorConfig config = ReplicatorConfig.builder().build();
        assertThatThrownBy(() -> HandbackClient.handBack(
                        deposed, config, "dc", "old", 1, address, group, Duration.ofSeconds(2), LinkSecurity.NONE))
                .isInstanceOf(HandbackClient.HandbackException.class)
                .hasMessageContaining("cannot connect");
        assertThat(deposed.get(b("orphan"))).isEqualTo(orphan);
    }

    @Test
    void manyWantedKeysSpanSeveralFrames() throws Exception {
        List<StoredValue> values = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            StoredValue v = StoredValue.complete(TxId.of(1, i + 1), b("v" + i));
            values.add(v);
            deposed.put(b("key-" + "x".repeat(200) + i), v);
            recorder.wanted.add(want("key-" + "x".repeat(200) + i, v));
        }
        recorder.keysUpTo = TxId.of(1, 3000);
        serve(
                true,
                dev.kvs.replication.BackupConfig.builder()
                        .maxFrameBytes(512 * 1024)
                        .build());

        HandbackReport report = handBack();

        assertThat(report.wanted()).isEqualTo(3000);
        assertThat(report.accepted()).isEqualTo(3000);
        assertThat(report.rolledBack()).isEmpty();
    }
}
