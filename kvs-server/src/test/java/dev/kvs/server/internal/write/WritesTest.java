package dev.kvs.server.internal.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import dev.kvs.replication.BackupNode;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.TestContexts;
import dev.kvs.server.internal.role.Links;
import dev.kvs.server.internal.role.RoleMachine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The write protocol: TxIds taken inside the store's lock, in order; commit after, abort on failure. */
class WritesTest {
    private final KvStore store =
            KvStore.builder().maxEntries(2).maxBytes(1 << 20).open();
    private final RecordingLink link = new RecordingLink();
    private final RoleMachine roles =
            new RoleMachine(NodeConfig.builder().peer("127.0.0.1:7380").build(), null, new OneLink(link));
    private final Writes writes = new Writes(store, roles);
    private final LastWrite last = new LastWrite();

    WritesTest() {
        roles.start(1, 0, false, TestContexts.NO_EVENTS);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** A value is checksummed once per write: the order's key packet and the store's record get the same CRC32C. */
    @Test
    void theOrderAndTheRecordShareTheValuesChecksum() {
        byte[] value = "a value to checksum".getBytes();
        writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), value);
        writes.update(ReplicationMode.SYNC, last, "b".getBytes(), (h, order) -> order.put("b".getBytes(), value, 0));
        writes.updateAll(
                ReplicationMode.SYNC,
                last,
                List.of("b".getBytes(), "c".getBytes()),
                (headers, order) -> order.rename("b".getBytes(), "c".getBytes(), value, 0));

        int crc = dev.kvs.core.Checksums.crc32c(value);
        assertThat(link.checksums).containsExactly(crc, crc, crc);
        assertThat(store.get("a".getBytes()).header().checksum()).isEqualTo(crc);
        assertThat(store.get("c".getBytes()).header().checksum()).isEqualTo(crc);
        assertThat(store.get("b".getBytes())).isNull();
    }

    @Test
    void eachWrittenKeyGetsTheNextTxIdAndTheCommandCommitsOnce() {
        writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "1".getBytes());
        Writes.Done<List<Write>> d = writes.updateAll(
                ReplicationMode.SYNC,
                last,
                List.of("a".getBytes(), "b".getBytes()),
                (headers, order) -> List.of(order.remove("a".getBytes()), Write.keep()));

        assertThat(link.log)
                .containsExactly("begin id-first", "PUT a 1:1", "commit", "begin sync", "DELETE a 1:2", "commit");
        assertThat(d.result().get(0)).isSameAs(Write.remove());
        assertThat(store.get("a".getBytes())).isNull();
    }

    @Test
    void aFlushTakesItsTxIdInsideTheBarrierAndHidesEveryOlderRecordAtOnce() {
        writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "1".getBytes());
        Writes.Done<TxId> f = writes.flush(ReplicationMode.ID_FIRST);
        assertThat(f.result()).isEqualTo(TxId.of(1, 2));
        assertThat(store.get("a".getBytes()))
                .as("hidden at once, before any sweep")
                .isNull();
        writes.put(ReplicationMode.ID_FIRST, last, "b".getBytes(), "2".getBytes());

        assertThat(store.removeBefore(f.result())).isEqualTo(1);
        assertThat(store.get("b".getBytes())).isNotNull();
        assertThat(link.log)
                .containsExactly(
                        "begin id-first",
                        "PUT a 1:1",
                        "commit",
                        "begin id-first",
                        "FLUSH  1:2",
                        "commit",
                        "begin id-first",
                        "PUT b 1:3",
                        "commit");
    }

    /** WAIT waits for the connection's last write that ordered a TxId: not a flush, another's, or the node's. */
    @Test
    void aConnectionsLastWriteIsItsLastOneThatOrderedATxId() {
        assertThat(last.order()).isNull();
        writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "1".getBytes());
        WriteOrder put = last.order();
        assertThat(put).isNotNull();

        writes.update(ReplicationMode.ID_FIRST, last, "a".getBytes(), (h, order) -> Write.keep());
        writes.flush(ReplicationMode.ID_FIRST);
        writes.put(ReplicationMode.ID_FIRST, new LastWrite(), "b".getBytes(), "2".getBytes());
        writes.update(
                ReplicationMode.ID_FIRST, LastWrite.NONE, "b".getBytes(), (h, order) -> order.remove("b".getBytes()));
        assertThat(last.order()).isSameAs(put);
        assertThat(LastWrite.NONE.order()).isNull();

        writes.update(ReplicationMode.ID_FIRST, last, "a".getBytes(), (h, order) -> order.remove("a".getBytes()));
        assertThat(last.order()).isNotNull().isNotSameAs(put);
    }

    @Test
    void aRenameIsOneOrderedWriteOfBothKeys() {
        writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "1".getBytes());
        Writes.Done<List<Write>> d = writes.updateAll(
                ReplicationMode.ID_FIRST,
                last,
                List.of("a".getBytes(), "b".getBytes()),
                (headers, order) -> order.rename("a".getBytes(), "b".getBytes(), "1".getBytes(), 0));

        assertThat(link.log).containsSubsequence("begin id-first", "RENAME a -> b 1:2", "commit");
        assertThat(d.result().get(0)).isSameAs(Write.remove());
        assertThat(store.get("a".getBytes())).isNull();
        assertThat(store.get("b".getBytes()).txId()).isEqualTo(TxId.of(1, 2));
        assertThat(store.get("b".getBytes()).value()).isEqualTo("1".getBytes());
    }

    @Test
    void aWriteThatFindsTheStoreFullOfExpiredKeysDeletesThemAndIsWritten() {
        long past = System.currentTimeMillis() - 1_000;
        writes.put(ReplicationMode.ASYNC, last, "a".getBytes(), "1".getBytes(), past);
        writes.put(ReplicationMode.ASYNC, last, "b".getBytes(), "1".getBytes(), past);

        writes.put(ReplicationMode.ASYNC, last, "c".getBytes(), "1".getBytes());

        assertThat(store.get("c".getBytes()).value()).isEqualTo("1".getBytes());
        assertThat(store.get("a".getBytes())).isNull();
        assertThat(store.get("b".getBytes())).isNull();
        assertThat(writes.reclaimedKeys()).isEqualTo(2);
        assertThat(link.log).containsSubsequence("abort", "commit", "commit"); // the deletes', then c's
    }

    @Test
    void aFailedStoreWriteAbortsItsOrderAndWritesNothing() {
        writes.put(ReplicationMode.ASYNC, last, "a".getBytes(), "1".getBytes());
        writes.put(ReplicationMode.ASYNC, last, "b".getBytes(), "1".getBytes());
        link.log.clear();

        assertThatThrownBy(() -> writes.put(ReplicationMode.ASYNC, last, "c".getBytes(), "1".getBytes()))
                .isInstanceOf(StoreFullException.class);

        assertThat(link.log).last().isEqualTo("abort");
        assertThat(link.log).doesNotContain("commit");
        assertThat(store.get("c".getBytes())).isNull();
    }

    /**
     * An EXEC's writes: each orders its TxId inside the store's lock as usual, but none is committed until
     * the unit ends, then all in order; one that fails is aborted alone, the others stand.
     */
    @Test
    void aUnitsWritesAreCommittedTogetherAtItsEndAndAFailedOneIsAbortedAlone() {
        writes.put(ReplicationMode.ASYNC, last, "a".getBytes(), "0".getBytes());
        link.log.clear();
        WriteUnit unit = writes.beginUnit();
        CompletableFuture<Void> first;
        try {
            first = writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "1".getBytes());
            writes.put(ReplicationMode.ID_FIRST, last, "b".getBytes(), "2".getBytes());
            assertThatThrownBy(() -> writes.put(ReplicationMode.ID_FIRST, last, "c".getBytes(), "3".getBytes()))
                    .isInstanceOf(StoreFullException.class);
            assertThat(link.log)
                    .as("nothing committed while the unit is open")
                    .containsExactly(
                            "begin id-first",
                            "PUT a 1:2",
                            "begin id-first",
                            "PUT b 1:3",
                            "begin id-first",
                            "PUT c 1:4",
                            "abort");
            assertThat(first).isNotDone();
            assertThat(unit.size()).isEqualTo(2);
        } finally {
            unit.end();
        }
        assertThat(link.log.subList(7, link.log.size())).containsExactly("commit", "commit");
        assertThat(first).isDone();
        assertThat(store.get("b".getBytes()).value()).isEqualTo("2".getBytes());

        writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "4".getBytes());
        assertThat(link.log.subList(9, link.log.size()))
                .as("after the unit: committed at once")
                .containsExactly("begin id-first", "PUT a 1:5", "commit");
    }

    @Test
    void anotherThreadsWritesAreNotInTheUnit() throws Exception {
        WriteUnit unit = writes.beginUnit();
        try {
            Thread other = new Thread(() -> writes.put(ReplicationMode.ASYNC, last, "x".getBytes(), "1".getBytes()));
            other.start();
            other.join();
            assertThat(link.log).containsExactly("begin async", "PUT x 1:1", "commit");
        } finally {
            unit.end();
        }
    }

    @Test
    void aNodeThatIsNotThePrimaryRefusesBeforeOrderingAnything() {
        roles.demote(2);
        link.log.clear();

        assertThatThrownBy(() -> writes.put(ReplicationMode.ASYNC, last, "a".getBytes(), "1".getBytes()))
                .isInstanceOf(NotWritableException.class)
                .hasMessageStartingWith("NOTPRIMARY - "); // no primary advertised its client address here
        assertThat(link.log).isEmpty();
        assertThat(store.get("a".getBytes())).isNull();
    }

    /**
     * SPOP of a key that holds nothing (absent, or the tombstone its last pop left) begins no write and
     * orders nothing; a node that takes no writes still refuses it, as it refuses any write.
     */
    @Test
    void aPopOfAKeyHoldingNothingOrdersNothingYetANodeThatTakesNoWritesRefusesIt() {
        StructureWrites structures = new StructureWrites(store, writes);
        byte[] key = "s".getBytes();
        java.util.Random random = new java.util.Random(1);
        assertThat(structures
                        .pop(ReplicationMode.ASYNC, last, key, ValueType.SET, 1, random)
                        .result())
                .isEmpty();
        assertThat(link.log).isEmpty();
        structures.put(ReplicationMode.ASYNC, last, key, ValueType.SET, List.of(Member.of("m".getBytes())), false);
        List<Member> popped = structures
                .pop(ReplicationMode.ASYNC, last, key, ValueType.SET, 1, random)
                .result();
        assertThat(popped).extracting(m -> new String(m.name())).containsExactly("m");
        List<String> written = List.copyOf(link.log);
        assertThat(store.header(key).state()).isEqualTo(RecordState.TOMBSTONE);
        assertThat(structures
                        .pop(ReplicationMode.ASYNC, last, key, ValueType.SET, 1, random)
                        .result())
                .isEmpty();
        assertThat(link.log).isEqualTo(written);

        roles.demote(2);
        assertThatThrownBy(() -> structures.pop(ReplicationMode.ASYNC, last, key, ValueType.SET, 1, random))
                .isInstanceOf(NotWritableException.class)
                .hasMessageStartingWith("NOTPRIMARY");
        assertThat(link.log).isEqualTo(written);
    }

    /**
     * HSET or SADD of values the members have begins no write, orders nothing and needs no replication
     * room (it is answered as a read, without the key's lock); a node that takes no writes still refuses it.
     */
    @Test
    void aPutThatChangesNothingOrdersNothingYetANodeThatTakesNoWritesRefusesIt() {
        StructureWrites structures = new StructureWrites(store, writes);
        byte[] key = "h".getBytes();
        List<Member> fields = List.of(new Member("f".getBytes(), "v".getBytes()));
        MemberWrite first = structures
                .put(ReplicationMode.ID_FIRST, last, key, ValueType.HASH, fields, false)
                .result();
        assertThat(first.changed()).isOne();
        List<String> written = List.copyOf(link.log);
        assertThat(written).isNotEmpty();

        link.room = false; // a write would be refused for want of replication room
        Writes.Done<MemberWrite> again =
                structures.put(ReplicationMode.ID_FIRST, last, key, ValueType.HASH, fields, true);
        assertThat(again.result().written()).isFalse();
        assertThat(again.result().changed()).isZero();
        assertThat(again.result().previous()).extracting(String::new).containsExactly("v");
        assertThat(again.replicated()).isDone();
        assertThat(link.log).isEqualTo(written);
        assertThatThrownBy(() -> structures.put(
                        ReplicationMode.ID_FIRST,
                        last,
                        key,
                        ValueType.HASH,
                        List.of(new Member("f".getBytes(), "w".getBytes())),
                        false))
                .as("a change still needs room")
                .isInstanceOf(dev.kvs.replication.ReplicationBusyException.class);

        roles.demote(2);
        assertThatThrownBy(() -> structures.put(ReplicationMode.ID_FIRST, last, key, ValueType.HASH, fields, false))
                .isInstanceOf(NotWritableException.class)
                .hasMessageStartingWith("NOTPRIMARY");
        assertThat(link.log).isEqualTo(written);
    }

    @Test
    void aWriteFindingReplicationAtItsBoundsIsRefusedAtOnceInsteadOfWaiting() {
        link.room = false; // begin() would wait up to the write timeout on the calling event loop

        assertThatThrownBy(() -> writes.put(ReplicationMode.ID_FIRST, last, "a".getBytes(), "1".getBytes()))
                .isInstanceOf(dev.kvs.replication.ReplicationBusyException.class);
        assertThat(link.log).isEmpty();
        assertThat(store.get("a".getBytes())).isNull();
    }

    /** A SET's long value is staged on the primary; only a sync write's starts to ship while it arrives. */
    @Test
    void aStagedValueShipsWhileItArrivesInSyncModeOnly() {
        try (ValueStage sync = writes.stage(ReplicationMode.SYNC, "s".getBytes(), 16);
                ValueStage idFirst = writes.stage(ReplicationMode.ID_FIRST, "i".getBytes(), 16)) {
            assertThat(sync).isNotNull();
            assertThat(idFirst).isNotNull();
            assertThat(link.staged).containsExactly("s");
        }
    }

    @Test
    void aNodeThatIsNotThePrimaryStagesNothing() {
        roles.demote(2);

        assertThat(writes.stage(ReplicationMode.SYNC, "s".getBytes(), 16)).isNull();
        assertThat(link.staged).isEmpty();
    }

    /** Records the protocol calls; orders seqs from 1. */
    private static final class RecordingLink implements ReplicationLink {
        final List<String> log = new ArrayList<>();
        /** The checksums the writes handed to the order (the key packets carry them). */
        final List<Integer> checksums = new ArrayList<>();
        /** The keys whose values were handed over while staged. */
        final List<String> staged = new ArrayList<>();

        long seq;
        volatile boolean room = true;

        @Override
        public WriteOrder begin(ReplicationMode mode) {
            log.add("begin " + mode.label());
            return new WriteOrder() {
                @Override
                public TxId put(byte[] key, int valueLength, int checksum, long expireAtMillis) {
                    checksums.add(checksum);
                    return record("PUT", key);
                }

                @Override
                public TxId rename(byte[] source, byte[] key, int valueLength, int checksum, long expireAtMillis) {
                    checksums.add(checksum);
                    return record("RENAME " + new String(source) + " ->", key);
                }

                @Override
                public TxId delete(byte[] key) {
                    return record("DELETE", key);
                }

                @Override
                public TxId flush() {
                    return record("FLUSH", new byte[0]);
                }

                private TxId record(String op, byte[] key) {
                    TxId t = TxId.of(1, ++seq);
                    log.add(op + " " + new String(key) + " " + t);
                    return t;
                }

                @Override
                public CompletableFuture<Void> commit() {
                    log.add("commit");
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public void abort() {
                    log.add("abort");
                }
            };
        }

        @Override
        public void shipWhileStaged(byte[] key, ValueStage stage) {
            staged.add(new String(key));
        }

        @Override
        public boolean handOver(long epoch, Duration timeout) {
            return false;
        }

        @Override
        public boolean hasRoom() {
            return room;
        }

        @Override
        public long writeTimeoutMillis() {
            return 0;
        }

        @Override
        public TxId lastTxId() {
            return TxId.of(1, seq);
        }

        @Override
        public long epoch() {
            return 1;
        }

        @Override
        public ReplicatorStatus status() {
            return ReplicatorStatus.none(lastTxId());
        }

        @Override
        public void close() {}
    }

    private record OneLink(ReplicationLink link) implements Links {
        @Override
        public boolean hasPeer() {
            return true;
        }

        @Override
        public ReplicationLink replicate(long epoch, long lastSeq, LongConsumer onStaleEpoch, Runnable onConfirmed) {
            return link;
        }

        @Override
        public ReplicationServer listen(BackupNode node) {
            throw new UnsupportedOperationException();
        }
    }
}
