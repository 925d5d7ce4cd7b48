package dev.kvs.server.internal.role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.Checksums;
import dev.kvs.core.TxId;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.BackupStatus;
import dev.kvs.replication.Handback;
import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.role.NodeRole.Backup;
import dev.kvs.server.internal.role.NodeRole.Deposed;
import dev.kvs.server.internal.role.NodeRole.Primary;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The role transitions, with fake links: what each builds, closes, fences and writes to the epoch file. */
class RoleMachineTest {
    @TempDir
    Path dir;

    private final FakeLinks links = new FakeLinks();
    private final Events events = new Events();

    private RoleMachine machine(Role role, boolean peer) {
        NodeConfig.Builder b = NodeConfig.builder().name("n1").role(role);
        if (peer) b.peer("127.0.0.1:7380");
        links.peer = peer;
        return new RoleMachine(b.build(), new EpochFile(dir), links);
    }

    private long storedEpoch() {
        return new EpochFile(dir).read();
    }

    @Test
    void aPrimaryWithAPeerReplicatesFromItsLastSeqAndAloneItDoesNot() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 7, false, events);
        Primary p = (Primary) m.current();
        assertThat(p.link()).isSameAs(links.built.get(0));
        assertThat(links.built.get(0).lastSeq).isEqualTo(7);
        assertThat(p.writeFence()).isNull();
        assertThat(storedEpoch()).isEqualTo(3);

        RoleMachine alone = machine(Role.PRIMARY, false);
        alone.start(1, 0, true, events);
        assertThat(((Primary) alone.current()).link()).isNull();
        assertThat(((Primary) alone.current()).writeFence()).isNull(); // nobody to confirm with
    }

    @Test
    void aRestartedPrimaryIsFencedUntilItsBackupConfirmsIt() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(4, 0, true, events);
        assertThat(((Primary) m.current()).writeFence()).startsWith("FENCED 4 restarted primary");

        links.built.get(0).onConfirmed.run();

        assertThat(((Primary) m.current()).writeFence()).isNull();
    }

    @Test
    void aBackupListensAndAdoptsANewerEpochDurably() {
        RoleMachine m = machine(Role.BACKUP, true);
        m.start(2, 0, false, events);
        assertThat(m.current()).isInstanceOf(Backup.class);
        BackupNode view = links.listeners.get(0).node;
        assertThat(view.isBackup()).isTrue();

        view.adoptEpoch(5);
        view.adoptEpoch(3); // older: ignored

        assertThat(m.current().epoch()).isEqualTo(5);
        assertThat(view.epoch()).isEqualTo(5);
        assertThat(storedEpoch()).isEqualTo(5);
    }

    @Test
    void promotionTakesTheNextEpochFencesTheOldPrimaryAndActivatesTheReadGate() {
        RoleMachine m = machine(Role.BACKUP, true);
        m.start(2, 0, false, events);
        FakeServer server = links.listeners.get(0);
        server.unfinished.add("k".getBytes(), TxId.of(2, 9), 3, 0);

        RoleMachine.Promotion p = m.promote();

        assertThat(p.epoch()).isEqualTo(3);
        assertThat(storedEpoch()).isEqualTo(3);
        assertThat(server.fencedAt).isEqualTo(3);
        Primary now = (Primary) m.current();
        assertThat(now.promoted()).isTrue();
        assertThat(now.listener()).isSameAs(server); // kept for the deposed primary's handback
        assertThat(now.link()).isNull();
        assertThat(m.gate().active()).isTrue();
        assertThat(m.gate().unfinished().contains("k".getBytes())).isTrue();
        assertThatThrownBy(m::promote).isInstanceOf(RoleChangeException.class);
    }

    @Test
    void demotionClosesTheReplicationKeepsTheNewerEpochAndTellsThePolicyOnce() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);
        FakeLink link = links.built.get(0);

        assertThat(m.demote(6)).isTrue();
        assertThat(m.demote(7)).isFalse();

        assertThat(m.current()).isInstanceOf(Deposed.class);
        assertThat(m.current().role()).isEqualTo(Role.BACKUP);
        assertThat(m.current().epoch()).isEqualTo(6);
        assertThat(storedEpoch()).isEqualTo(6);
        assertThat(link.closed).isTrue();
        assertThat(events.demoted).hasSize(1);
    }

    @Test
    void afterFailbackADeposedNodeServesAsTheBackup() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);
        m.demote(4);

        m.serveAsBackup();

        assertThat(m.current()).isInstanceOf(Backup.class);
        assertThat(m.current().listener()).isSameAs(links.listeners.get(0));
        m.serveAsBackup(); // already a backup: no second listener
        assertThat(links.listeners).hasSize(1);
    }

    @Test
    void attachingABackupHandsTheEpochsSeqSpaceToTheLinkOnce() {
        RoleMachine m = machine(Role.BACKUP, true);
        m.start(1, 0, false, events);
        m.promote();
        LocalReplication local = ((Primary) m.current()).local();
        WriteOrder w = local.begin(ReplicationMode.ID_FIRST);
        w.put("a".getBytes(), "1".getBytes().length, Checksums.crc32c("1".getBytes()), 0);
        w.commit();

        m.attachBackup();
        m.attachBackup();

        assertThat(links.built).hasSize(1);
        assertThat(links.built.get(0).epoch).isEqualTo(2);
        assertThat(links.built.get(0).lastSeq).isEqualTo(1);
        assertThat(((Primary) m.current()).writes()).isSameAs(links.built.get(0));
    }

    @Test
    void aSwitchoverThatCannotDrainLiftsItsFenceAndChangesNothing() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);
        links.built.get(0).caughtUp = false;

        assertThatThrownBy(() -> m.handOver(Duration.ofMillis(30)))
                .isInstanceOf(RoleChangeException.class)
                .hasMessageContaining("did not catch up");

        Primary p = (Primary) m.current();
        assertThat(p.writeFence()).isNull();
        assertThat(p.epoch()).isEqualTo(3);
        assertThat(links.built.get(0).handedOverIn).isZero();
    }

    @Test
    void aSwitchoverHandsOverInTheNextEpochThenDemotes() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);

        RoleMachine.Handover h = m.handOver(Duration.ofSeconds(5));

        assertThat(h.epoch()).isEqualTo(4);
        assertThat(links.built.get(0).handedOverIn).isEqualTo(4);
        assertThat(m.current()).isInstanceOf(Deposed.class);
        assertThat(storedEpoch()).isEqualTo(4);
        assertThat(events.demoted).hasSize(1);
    }

    @Test
    void aSwitchoverWhoseSuccessorIsNotRecordedLiftsItsFenceAndStaysThePrimaryAtItsEpoch() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);
        List<Long> asked = new ArrayList<>();

        assertThatThrownBy(() -> m.handOver(Duration.ofSeconds(5), epoch -> {
                    asked.add(epoch);
                    throw new RoleChangeException("switchover not made: the map could not be written");
                }))
                .isInstanceOf(RoleChangeException.class)
                .hasMessage("switchover not made: the map could not be written");

        assertThat(asked).containsExactly(4L);
        Primary p = (Primary) m.current();
        assertThat(p.writeFence()).isNull();
        assertThat(p.epoch()).isEqualTo(3);
        assertThat(storedEpoch()).isEqualTo(3);
        assertThat(links.built.get(0).handedOverIn)
                .as("the backup was never told")
                .isZero();
        assertThat(events.demoted).isEmpty();
    }

    @Test
    void aSwitchoverRecordedBeforeTheBackupIsToldStepsDownEvenIfTheBackupDoesNotHear() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);
        FakeLink link = links.built.get(0);
        link.hears = false;
        List<Long> toldWhenRecorded = new ArrayList<>();

        RoleMachine.Handover h = m.handOver(Duration.ofSeconds(5), epoch -> toldWhenRecorded.add(link.handedOverIn));

        assertThat(toldWhenRecorded).as("recorded before the backup was told").containsExactly(0L);
        assertThat(h.epoch()).isEqualTo(4);
        assertThat(m.current()).isInstanceOf(Deposed.class);
        assertThat(storedEpoch()).isEqualTo(4);
        assertThat(events.demoted).hasSize(1);
    }

    @Test
    void aSwitchoverTimeoutOutOfRangeIsRefusedBeforeAnyFence() {
        RoleMachine m = machine(Role.PRIMARY, true);
        m.start(3, 0, false, events);

        for (Duration bad : List.of(
                Duration.ZERO, Duration.ofMillis(-1), Duration.ofMillis(9_999_999_999_999L), Duration.ofMinutes(11))) {
            assertThatThrownBy(() -> m.handOver(bad))
                    .as("%s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("switchover timeout is not in 1 ms..10 min");
        }

        assertThat(((Primary) m.current()).writeFence()).isNull();
        assertThat(links.built.get(0).handedOverIn).isZero();
    }

    @Test
    void aPromotionByTheMapTakesTheMapsEpochDurablyAndOnlyANewerOne() {
        RoleMachine m = machine(Role.BACKUP, true);
        m.start(2, 0, false, events);
        FakeServer server = links.listeners.get(0);

        assertThatThrownBy(() -> m.promote(2))
                .isInstanceOf(RoleChangeException.class)
                .hasMessage("epoch 2 is not newer than this node's 2");
        assertThat(m.current()).isInstanceOf(Backup.class);

        RoleMachine.Promotion p = m.promote(7);

        assertThat(p.epoch()).isEqualTo(7);
        assertThat(storedEpoch()).isEqualTo(7);
        assertThat(server.fencedAt).isEqualTo(7);
        assertThat(m.current()).isInstanceOf(Primary.class);
        assertThat(m.current().epoch()).isEqualTo(7);
        assertThatThrownBy(() -> m.promote(8)).isInstanceOf(RoleChangeException.class);
    }

    @Test
    void thereIsNoEpochAfterTheLast() {
        RoleMachine m = machine(Role.BACKUP, true);
        m.start(Long.MAX_VALUE, 0, false, events);

        assertThatThrownBy(m::promote).isInstanceOf(RoleChangeException.class).hasMessageContaining("is the last");
        assertThat(m.current()).isInstanceOf(Backup.class);
        assertThat(m.current().epoch()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aSwitchoverNeedsAReplicatingPrimary() {
        RoleMachine alone = machine(Role.PRIMARY, false);
        alone.start(1, 0, false, events);
        assertThatThrownBy(() -> alone.handOver(Duration.ofSeconds(1))).hasMessageContaining("no backup");
    }

    private static final class Events implements RoleEvents {
        final List<Deposed> demoted = new ArrayList<>();

        @Override
        public void demoted(Deposed now) {
            demoted.add(now);
        }

        @Override
        public void handoverRequested(long epoch) {}

        @Override
        public Handback handback() {
            return null;
        }
    }

    private static final class FakeLinks implements Links {
        boolean peer;
        final List<FakeLink> built = new ArrayList<>();
        final List<FakeServer> listeners = new ArrayList<>();

        @Override
        public boolean hasPeer() {
            return peer;
        }

        @Override
        public ReplicationLink replicate(long epoch, long lastSeq, LongConsumer onStaleEpoch, Runnable onConfirmed) {
            FakeLink l = new FakeLink(epoch, lastSeq, onConfirmed);
            built.add(l);
            return l;
        }

        @Override
        public ReplicationServer listen(BackupNode node) {
            FakeServer s = new FakeServer(node);
            listeners.add(s);
            return s;
        }
    }

    private static final class FakeLink implements ReplicationLink {
        final long epoch;
        final long lastSeq;
        final Runnable onConfirmed;
        volatile boolean caughtUp = true;
        volatile boolean closed;
        volatile long handedOverIn;
        /** False: the key channel closes before the handover frame is written. */
        volatile boolean hears = true;

        FakeLink(long epoch, long lastSeq, Runnable onConfirmed) {
            this.epoch = epoch;
            this.lastSeq = lastSeq;
            this.onConfirmed = onConfirmed;
        }

        @Override
        public boolean handOver(long epoch, Duration timeout) {
            handedOverIn = epoch;
            return hears;
        }

        @Override
        public WriteOrder begin(ReplicationMode mode) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasRoom() {
            return true;
        }

        @Override
        public long writeTimeoutMillis() {
            return 0;
        }

        @Override
        public TxId lastTxId() {
            return new TxId(epoch, lastSeq);
        }

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public ReplicatorStatus status() {
            ReplicatorStatus none = ReplicatorStatus.none(lastTxId());
            if (caughtUp) {
                return new ReplicatorStatus(
                        "streaming",
                        "peer",
                        none.lastTxId(),
                        none.lastTxId(),
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        1,
                        0,
                        1,
                        0,
                        0,
                        none.flowControl(),
                        0,
                        none.refusals(),
                        none.resync(),
                        none.valueLag());
            }
            return new ReplicatorStatus(
                    "streaming",
                    "peer",
                    none.lastTxId(),
                    TxId.ZERO,
                    1,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    1,
                    0,
                    1,
                    0,
                    0,
                    none.flowControl(),
                    0,
                    none.refusals(),
                    none.resync(),
                    none.valueLag());
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static final class FakeServer implements ReplicationServer {
        final BackupNode node;
        final UnfinishedKeys unfinished = new UnfinishedKeys();
        volatile long fencedAt;

        FakeServer(BackupNode node) {
            this.node = node;
        }

        @Override
        public InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", 1);
        }

        @Override
        public int port() {
            return 1;
        }

        @Override
        public UnfinishedKeys unfinishedKeys() {
            return unfinished;
        }

        @Override
        public void fence(long epoch) {
            fencedAt = epoch;
        }

        @Override
        public BackupStatus status() {
            return new BackupStatus(
                    false,
                    0,
                    node.epoch(),
                    TxId.of(1, 5),
                    false,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    false,
                    0,
                    0,
                    0,
                    0, // refused connections
                    0, // dropped to make room
                    0, // in their handshake
                    0,
                    0,
                    0,
                    0,
                    1024,
                    0,
                    0, // units held
                    0,
                    0,
                    0,
                    dev.kvs.replication.ValueRefusals.none(),
                    "");
        }

        @Override
        public boolean expire(byte[] key, long nowMillis) {
            return false;
        }

        @Override
        public void close() {}
    }
}
