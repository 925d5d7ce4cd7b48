package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The edges of structure records in the Chronicle store: states other than complete, refusals, flushes. */
class StructuresTest {
    private final ChronicleKvStore store = ChronicleKvStore.open(StoreConfig.defaults());

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] b(String s) {
        return s.getBytes();
    }

    private static Supplier<TxId> tx(long seq) {
        return () -> TxId.of(1, seq);
    }

    private static final Supplier<TxId> NO_TX = () -> {
        throw new AssertionError("no TxId may be taken");
    };

    /**
     * A store filled with one large hash refuses by its own count of bytes, never by a full pages map. In
     * memory the hash's pages lie 64 to a segment ({@link PageKeyAccess}), so the segments holding its
     * groups take more extra tiers than the others: the map's pool of extra tiers is shared by all
     * segments (this passes with every page in one segment too), and it fails with a pages map sized a
     * sixteenth of {@link MemberPages#layout}'s ("Attempt to allocate #9 extra segment tier, 8 is maximum").
     */
    @ParameterizedTest(name = "values of {0} bytes")
    @ValueSource(ints = {0, 100, 1000, 8000})
    void filledWithOneLargeHashTheStoreHitsItsOwnLimitFirst(int valueLength) {
        StoreConfig config =
                StoreConfig.builder().maxBytes(8 << 20).maxEntries(1_000).build();
        try (ChronicleKvStore s = ChronicleKvStore.open(config)) {
            StoreFullException full = null;
            long members = 0;
            for (int i = 0; full == null; i++) {
                List<Member> batch = new ArrayList<>();
                for (int m = 0; m < 50; m++) batch.add(new Member(b("field:" + i + ":" + m), new byte[valueLength]));
                try {
                    members += s.putMembers(b("big"), ValueType.HASH, batch, false, tx(i + 1))
                            .changed();
                } catch (StoreFullException e) {
                    full = e;
                }
            }
            assertThat(full.getMessage()).startsWith("store full: ").doesNotContain("backing map");
            assertThat(s.members(b("big"), ValueType.HASH)).hasSize((int) members);
            assertThat(members * (valueLength + 10)).isGreaterThan((8L << 20) / 4);
        }
    }

    @Test
    void aHashWhoseMembersHaveNotArrivedIsTypedButRefusesMemberOperationsUntilReplaced() {
        store.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, tx(1));
        RecordHeader unfinished = RecordHeader.structure(RecordState.UNFINISHED, TxId.of(1, 2), ValueType.HASH, 0);
        store.put(b("h"), new StoredValue(unfinished, new byte[0])); // a backup's key packet before the value
        assertThat(store.header(b("h"))).isEqualTo(unfinished);
        assertThat(store.memberPageCount())
                .as("the complete hash's pages were freed")
                .isZero();
        assertThatThrownBy(() -> store.getMembers(b("h"), ValueType.HASH, List.of(b("f"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("UNFINISHED");
        assertThatThrownBy(() -> store.putMembers(b("h"), ValueType.HASH, List.of(Member.of(b("x"))), false, NO_TX))
                .isInstanceOf(IllegalStateException.class);
        store.put(b("h"), StoredValue.complete(TxId.of(1, 3), b("now a string")));
        assertThat(store.header(b("h")).type()).isEqualTo(ValueType.STRING);
    }

    /**
     * The fingerprint a resync compares: the same members and values give the same one in whatever order and
     * writes they came; one more member, or one value changed, gives another; no complete structure gives 0.
     */
    @Test
    void theMembersFingerprintFollowsTheContentNotTheOrderOfWrites() {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 500; i++) members.add(new Member(b("field-" + i), b("value-" + i)));
        store.putMembers(b("a"), ValueType.HASH, members, false, tx(1));
        List<Member> reversed = new ArrayList<>(members);
        Collections.reverse(reversed);
        for (int i = 0; i < reversed.size(); i += 50) {
            store.putMembers(b("b"), ValueType.HASH, reversed.subList(i, i + 50), false, tx(2 + i));
        }
        store.putMembers(b("b"), ValueType.HASH, List.of(new Member(b("extra"), b("x"))), false, tx(1000));
        store.removeMembers(b("b"), ValueType.HASH, List.of(b("extra")), false, tx(1001));
        int a = store.membersFingerprint(b("a"));

        assertThat(a).isNotZero();
        assertThat(store.membersFingerprint(b("b"))).isEqualTo(a);
        store.putMembers(b("b"), ValueType.HASH, List.of(new Member(b("field-7"), b("value-8"))), false, tx(1002));
        assertThat(store.membersFingerprint(b("b"))).isNotEqualTo(a);
        store.putMembers(b("a"), ValueType.HASH, List.of(new Member(b("field-500"), b("value-500"))), false, tx(1003));
        assertThat(store.membersFingerprint(b("a"))).isNotEqualTo(a);
        store.put(b("s"), StoredValue.complete(TxId.of(1, 2000), b("a string")));
        assertThat(store.membersFingerprint(b("s"))).isZero();
        assertThat(store.membersFingerprint(b("absent"))).isZero();
        store.removeMembers(b("a"), ValueType.HASH, List.of(b("field-500")), false, tx(2001));
        assertThat(store.membersFingerprint(b("a"))).isEqualTo(a);
        // the reference store gives the same fingerprint for the same members (a backup of either kind)
        try (KvStore heap = HeapKvStore.open()) {
            heap.putMembers(b("a"), ValueType.HASH, members, false, tx(1));
            assertThat(heap.membersFingerprint(b("a"))).isEqualTo(a);
            assertThat(heap.membersFingerprint(b("absent"))).isZero();
        }
    }

    @Test
    void refusalsWriteNothingAndTakeNoTxId() {
        store.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, tx(1));
        StoreStats before = store.stats();
        RecordHeader header = store.header(b("h"));
        RecordHeader complete = RecordHeader.structure(RecordState.COMPLETE, TxId.of(1, 2), ValueType.HASH, 0);
        assertThatThrownBy(() -> store.put(b("h"), new StoredValue(complete, new byte[0])))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.putMembers(b("h"), ValueType.STRING, List.of(Member.of(b("x"))), false, NO_TX))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] huge = new byte[MemberPages.MAX_MEMBER_BYTES];
        assertThatThrownBy(() -> store.putMembers(
                        b("h"),
                        ValueType.HASH,
                        List.of(new Member(b("g"), b("w")), new Member(b("f2"), huge)),
                        false,
                        NO_TX))
                .isInstanceOf(EntryTooLargeException.class);
        MemberWrite same = store.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), true, NO_TX);
        assertThat(same.written()).isFalse();
        assertThat(same.previous()).containsExactly(b("v"));
        assertThat(store.removeMembers(b("h"), ValueType.HASH, List.of(b("nope")), false, NO_TX)
                        .written())
                .isFalse();
        assertThatThrownBy(() -> store.updateHeader(
                        b("h"), h -> new RecordHeader(RecordState.COMPLETE, TxId.of(1, 9), 0, 0, 5, ValueType.SET)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.header(b("h"))).isEqualTo(header);
        assertThat(store.stats()).isEqualTo(before);
        assertThat(store.members(b("h"), ValueType.HASH)).hasSize(1);
    }

    /**
     * HSET and SADD check the key's expiry under its lock, in the put's one read of its record: a key whose
     * expiry passed is left for the caller's replicated delete (null, no TxId, nothing written), one whose
     * expiry has not passed, or that has none, is written as {@code putMembers} writes it.
     */
    @Test
    void putMembersUnlessExpiredWritesNothingToAKeyWhoseExpiryPassed() {
        store.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, tx(1));
        store.updateHeader(b("h"), h -> h.withTxId(TxId.of(1, 2)).withExpireAt(1_000));
        Clock before = Clock.fixed(Instant.ofEpochMilli(1_000), ZoneOffset.UTC);
        Clock after = Clock.fixed(Instant.ofEpochMilli(1_001), ZoneOffset.UTC);
        List<Member> g = List.of(new Member(b("g"), b("w")));

        assertThat(store.putMembersUnlessExpired(b("h"), ValueType.HASH, g, false, after, null, NO_TX))
                .isNull();
        assertThat(store.members(b("h"), ValueType.HASH)).hasSize(1);
        assertThat(store.header(b("h")).txId()).isEqualTo(TxId.of(1, 2));

        MemberWrite w = store.putMembersUnlessExpired(b("h"), ValueType.HASH, g, false, before, null, tx(3));
        assertThat(w.changed()).isEqualTo(1);
        assertThat(w.header().expireAtMillis()).isEqualTo(1_000);
        assertThat(store.members(b("h"), ValueType.HASH)).hasSize(2);
        // a wrong type is refused as by putMembers; a new key is written whatever the clock says
        assertThatThrownBy(() -> store.putMembersUnlessExpired(b("h"), ValueType.SET, g, false, before, null, NO_TX))
                .isInstanceOf(dev.kvs.core.WrongTypeException.class);
        assertThat(store.putMembersUnlessExpired(b("new"), ValueType.SET, g, false, after, null, tx(4))
                        .changed())
                .isEqualTo(1);
    }

    /**
     * A put that changes nothing is answered without the key's lock, as the locked put answers it; anything
     * else (a member missing or of another value, a wrong type, an expiry passed, no key) is left to the
     * locked put (null).
     */
    @Test
    void putMembersIfUnchangedAnswersAPutOfValuesTheMembersHaveAndNothingElse() {
        Clock now = Clock.fixed(Instant.ofEpochMilli(1_000), ZoneOffset.UTC);
        store.putMembers(
                b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v")), new Member(b("g"), b("w"))), false, tx(1));
        List<Member> same = List.of(new Member(b("g"), b("w")), new Member(b("f"), b("v")));

        MemberWrite w = ifUnchanged(b("h"), ValueType.HASH, same, true, now);
        assertThat(w).isNotNull();
        assertThat(w.written()).isFalse();
        assertThat(w.changed()).isZero();
        assertThat(w.header().txId()).isEqualTo(TxId.of(1, 1));
        assertThat(w.previous()).extracting(String::new).containsExactly("w", "v");
        assertThat(ifUnchanged(b("h"), ValueType.HASH, same, false, now).previous())
                .isEmpty();
        // as the locked put answers it
        MemberWrite locked = store.putMembers(b("h"), ValueType.HASH, same, true, NO_TX);
        assertThat(locked.header()).isEqualTo(w.header());
        assertThat(locked.previous()).extracting(String::new).containsExactly("w", "v");

        assertThat(ifUnchanged(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("other"))), false, now))
                .isNull();
        assertThat(ifUnchanged(
                        b("h"),
                        ValueType.HASH,
                        List.of(new Member(b("f"), b("v")), new Member(b("new"), b("v"))),
                        false,
                        now))
                .isNull();
        assertThat(ifUnchanged(b("h"), ValueType.SET, List.of(Member.of(b("f"))), false, now))
                .as("a wrong type: the locked put refuses it")
                .isNull();
        assertThat(ifUnchanged(b("absent"), ValueType.HASH, same, false, now)).isNull();

        store.updateHeader(b("h"), h -> h.withTxId(TxId.of(1, 2)).withExpireAt(1_000));
        assertThat(ifUnchanged(b("h"), ValueType.HASH, same, false, now)).isNotNull();
        Clock after = Clock.fixed(Instant.ofEpochMilli(1_001), ZoneOffset.UTC);
        assertThat(ifUnchanged(b("h"), ValueType.HASH, same, false, after))
                .as("the expiry passed: the caller deletes the key first")
                .isNull();

        store.removeMembers(b("h"), ValueType.HASH, List.of(b("f"), b("g")), false, tx(3));
        assertThat(ifUnchanged(b("h"), ValueType.HASH, same, false, now))
                .as("a tombstone")
                .isNull();
    }

    /**
     * A run of SADDs of which one adds a member: the read without the lock marks where it found the others,
     * and the put under the lock skips a marked member only while its page is unchanged. A member removed
     * after it was marked (its page written since) is added again, as it would be without marks.
     */
    @ParameterizedTest(name = "page written between the read and the put: {0}")
    @ValueSource(booleans = {false, true})
    void aMarkedMemberIsSkippedOnlyWhileItsPageIsUnchanged(boolean removedBetween) {
        Clock now = Clock.fixed(Instant.ofEpochMilli(1_000), ZoneOffset.UTC);
        List<Member> all = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) all.add(Member.of(b("member:" + i)));
        store.putMembers(b("s"), ValueType.SET, all, false, tx(1));
        assertThat(store.header(b("s")).txId()).isEqualTo(TxId.of(1, 1));
        List<Member> run = List.of(all.get(7), Member.of(b("new")), all.get(1_500));
        Object[] seen = new Object[run.size()];

        assertThat(store.putMembersIfUnchanged(b("s"), ValueType.SET, run, true, now, seen))
                .as("one member is new")
                .isNull();
        assertThat(seen[0]).as("a member found in a large set's page is marked").isNotNull();
        assertThat(seen[1]).as("a member not found").isNull();
        assertThat(seen[2]).isNotNull();
        if (removedBetween) {
            assertThat(store.removeMembers(b("s"), ValueType.SET, List.of(b("member:7")), false, tx(2))
                            .changed())
                    .isEqualTo(1);
        }

        MemberWrite w = store.putMembersUnlessExpired(b("s"), ValueType.SET, run, true, now, seen, tx(3));
        assertThat(w.changed()).isEqualTo(removedBetween ? 2 : 1);
        assertThat(w.previous().get(0)).as("member:7's previous value").matches(v -> (v == null) == removedBetween);
        assertThat(w.previous().get(1)).isNull();
        assertThat(w.previous().get(2)).isNotNull();
        assertThat(store.members(b("s"), ValueType.SET)).hasSize(2_001);
        assertThat(store.getMembers(b("s"), ValueType.SET, List.of(b("member:7")))
                        .get(0))
                .isNotNull();
    }

    /**
     * {@link ChronicleKvStore#putMembersIfUnchanged} without marks, checked against the same call with marks:
     * both answer alike.
     */
    private MemberWrite ifUnchanged(
            byte[] key, ValueType type, List<Member> members, boolean wantPrevious, Clock clock) {
        MemberWrite plain = store.putMembersIfUnchanged(key, type, members, wantPrevious, clock, null);
        MemberWrite marked =
                store.putMembersIfUnchanged(key, type, members, wantPrevious, clock, new Object[members.size()]);
        if (plain == null) {
            assertThat(marked).isNull();
        } else {
            assertThat(marked).isNotNull();
            assertThat(marked.header()).isEqualTo(plain.header());
            assertThat(marked.previous()).containsExactlyElementsOf(plain.previous());
        }
        return plain;
    }

    /**
     * While another thread holds the key's stripe (a writer at work between its page and its record), the
     * answer is left to the locked put, even though the pages read say nothing would change.
     */
    @Test
    void putMembersIfUnchangedLeavesAKeyWhoseWriterIsAtWorkToTheLockedPut() throws Exception {
        Clock now = Clock.systemUTC();
        List<Member> same = List.of(new Member(b("f"), b("v")));
        store.putMembers(b("h"), ValueType.HASH, same, false, tx(1));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread writer = new Thread(() -> store.updateHeader(b("h"), h -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null; // leaves the header as it is
        }));
        writer.start();
        try {
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ifUnchanged(b("h"), ValueType.HASH, same, false, now)).isNull();
        } finally {
            release.countDown();
            writer.join(10_000);
        }
        assertThat(ifUnchanged(b("h"), ValueType.HASH, same, false, now)).isNotNull();
    }

    /**
     * Reads of a structure take no lock unless a writer of the key is at work, yet see each write whole:
     * a writer sets two fields to one value in each put (their pages differ once the hash has several),
     * and a reader of both (or of all fields), racing it, never finds them apart, nor the count of fields
     * changed by a put that changes none. Fails, with the stripe's count not checked, within a few thousand writes.
     */
    @Test
    void unlockedReadsOfAStructureSeeEachWriteWholeOrNotAtAll() throws Exception {
        long seed = System.nanoTime();
        System.out.println("unlockedReadsOfAStructureSeeEachWriteWholeOrNotAtAll seed " + seed);
        Random random = new Random(seed);
        byte[] key = b("hot");
        int pairs = 64;
        AtomicLong seq = new AtomicLong();
        Supplier<TxId> next = () -> TxId.of(1, seq.incrementAndGet());
        List<Member> first = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            first.add(new Member(b("f" + i), value(0)));
            first.add(new Member(b("g" + i), value(0)));
        }
        store.putMembers(key, ValueType.HASH, first, false, next);
        assertThat(store.memberPageCount()).as("the pairs spread over pages").isGreaterThan(2);
        int writes = 20_000;
        AtomicBoolean done = new AtomicBoolean();
        long writerSeed = random.nextLong();
        Thread writer = new Thread(() -> {
            Random r = new Random(writerSeed);
            try {
                for (int round = 1; round <= writes; round++) {
                    int i = r.nextInt(pairs);
                    store.putMembers(
                            key,
                            ValueType.HASH,
                            List.of(new Member(b("f" + i), value(round)), new Member(b("g" + i), value(round))),
                            false,
                            next);
                }
            } finally {
                done.set(true);
            }
        });
        writer.start();
        long reads = 0;
        try {
            while (!done.get()) {
                int i = random.nextInt(pairs);
                List<byte[]> both = store.getMembers(key, ValueType.HASH, List.of(b("f" + i), b("g" + i)));
                assertThat(new String(both.get(1)))
                        .as("g%d read with f%d after %d reads", i, i, reads)
                        .isEqualTo(new String(both.get(0)));
                assertThat(store.memberCount(key, ValueType.HASH)).isEqualTo(2L * pairs);
                if (reads % 64 == 0) {
                    Map<String, String> all = new HashMap<>();
                    for (Member m : store.members(key, ValueType.HASH))
                        all.put(new String(m.name()), new String(m.value()));
                    assertThat(all).hasSize(2 * pairs);
                    for (int j = 0; j < pairs; j++) {
                        assertThat(all.get("g" + j))
                                .as("g%d in a read of all", j)
                                .isEqualTo(all.get("f" + j));
                    }
                }
                reads++;
            }
        } finally {
            writer.join(60_000);
        }
        assertThat(reads).isPositive();
    }

    /** A value of about 100 bytes naming {@code round}. */
    private static byte[] value(int round) {
        return (round + ":" + "v".repeat(100)).getBytes();
    }

    @Test
    void aFlushedHashIsGoneForMemberOperationsAndItsPagesAndRoomAreFreedByTheNextWrite() {
        store.putMembers(
                b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v")), new Member(b("g"), b("w"))), false, tx(1));
        store.hideBefore(TxId.of(1, 5));
        assertThat(store.memberCount(b("h"), ValueType.HASH)).isZero();
        assertThat(store.stats().entries()).isZero();
        MemberWrite w = store.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("x"), b("y"))), false, tx(6));
        assertThat(w.changed()).isEqualTo(1);
        assertThat(store.members(b("h"), ValueType.HASH))
                .extracting(m -> new String(m.name()))
                .containsExactly("x");
        store.delete(b("h"));
        assertThat(store.stats().valueBytes()).isZero();
        assertThat(store.memberPageCount()).isZero();
    }

    @Test
    void removingTheLastMemberLeavesATombstoneOfItsTxIdAndClearFreesEveryPage() {
        store.putMembers(b("s"), ValueType.SET, List.of(Member.of(b("a"))), false, tx(1));
        MemberWrite w = store.removeMembers(b("s"), ValueType.SET, List.of(b("a")), false, tx(2));
        assertThat(w.header()).isEqualTo(StoredValue.tombstone(TxId.of(1, 2)).header());
        assertThat(store.exists(b("s"))).isFalse();
        store.putMembers(b("s"), ValueType.SET, List.of(Member.of(b("a")), Member.of(b("b"))), false, tx(3));
        store.clear();
        assertThat(store.memberPageCount()).isZero();
        assertThat(store.memberCount(b("s"), ValueType.SET)).isZero();
    }

    @Test
    void aStoreOfStringsOnlyNeverOpensThePagesMap() {
        store.put(b("k"), StoredValue.complete(TxId.of(1, 1), b("v")));
        store.getMembers(b("absent"), ValueType.HASH, List.of(b("f")));
        long offHeap = store.stats().offHeapBytes();
        store.putMembers(b("h"), ValueType.HASH, List.of(new Member(b("f"), b("v"))), false, tx(2));
        assertThat(store.stats().offHeapBytes()).isGreaterThan(offHeap);
    }
}
