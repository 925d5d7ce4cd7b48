package dev.kvs.replication.backup;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import dev.kvs.replication.wire.Frame.ValueChunk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A random primary history of puts, deletes, async writes and failed writes over a few keys, shipped
 * the way the primary ships it (key packets in order, values conflated at random moments, chunked,
 * spread over several streams, some duplicated, some corrupted and resent), delivered in a random
 * interleaving with dropped and repeated key batches. The backup must end byte-identical to the
 * primary with an empty unfinished-key queue, and no key's stored TxId may ever go back. A second
 * test races key packets and values on several threads, as the key and value channels' event loops
 * do, and checks that no key stays unfinished.
 *
 * <p>Replay a run with {@code -Dkvs.seed=<seed printed>}.
 */
class BackupApplierRandomTest {
    private static final Long FIXED_SEED = Long.getLong("kvs.seed");

    /** A value as shipped: the key's state at {@code txId}; {@code bytes == null} for a delete. */
    private record Shipped(TxId txId, String key, byte[] bytes) {}

    @RepeatedTest(40)
    void aRandomHistoryConvergesToThePrimarysStateOnTheHeapStore() {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        try (KvStore store = HeapKvStore.open()) {
            run(seed, store, false);
        }
    }

    /**
     * On the Chronicle store, with some values large enough to be staged in it chunk by chunk (some of
     * them corrupted, superseded or left unfinished by the interleaving): no staged room or chunk is
     * left behind.
     */
    @RepeatedTest(5)
    void aRandomHistoryConvergesToThePrimarysStateOnTheChronicleStoreWithStagedValues() {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        try (KvStore store =
                KvStore.builder().maxEntries(1000).maxBytes(64 << 20).open()) {
            run(seed, store, true);
        }
    }

    @RepeatedTest(10)
    void keyPacketsAndValuesRacingOnSeveralThreadsLeaveNothingUnfinished() throws Exception {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println("BackupApplierRandomTest race seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        int writes = 20_000;
        int keyCount = 1 + random.nextInt(50);
        List<KeyPacket> packets = new ArrayList<>();
        List<ValueAssembler.Whole> values = new ArrayList<>();
        Map<String, ValueAssembler.Whole> last = new HashMap<>();
        for (int i = 1; i <= writes; i++) {
            TxId t = TxId.of(1, i);
            String key = "key-" + random.nextInt(keyCount);
            byte[] v = new byte[random.nextInt(16)];
            random.nextBytes(v);
            packets.add(Packets.putKey(t, key, v));
            ValueAssembler.Whole w = Packets.whole(t, key, v);
            values.add(w);
            last.put(key, w);
        }
        for (int i = 0; i < values.size(); i += 32) { // shipped soon after their writes: the threads race
            Collections.shuffle(values.subList(i, Math.min(values.size(), i + 32)), random);
        }
        try (KvStore store = HeapKvStore.open()) {
            UnfinishedKeys unfinished = new UnfinishedKeys();
            BackupApplier applier = new BackupApplier(store, unfinished, new BackupCounters(), 1000);
            int valueThreads = 3;
            ExecutorService pool = Executors.newFixedThreadPool(valueThreads + 1);
            CountDownLatch go = new CountDownLatch(1);
            try {
                List<Future<?>> done = new ArrayList<>();
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < packets.size(); i += 16) {
                        applier.onKeyBatch(packets.subList(i, Math.min(packets.size(), i + 16)));
                    }
                    return null;
                }));
                for (int t = 0; t < valueThreads; t++) {
                    int first = t;
                    done.add(pool.submit(() -> {
                        go.await();
                        for (int i = first; i < values.size(); i += valueThreads) applier.apply(values.get(i));
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            assertThat(applier.contiguous()).isEqualTo(TxId.of(1, writes));
            assertThat(unfinished.snapshot()).as("unfinished keys").isEmpty();
            for (ValueAssembler.Whole w : last.values()) {
                assertThat(store.get(w.key())).isEqualTo(StoredValue.complete(w.txId(), w.bytes()));
            }
        }
    }

    /**
     * Puts, deletes and async writes of a few keys, their key packets on one thread, their values on
     * three (shuffled as several streams deliver them, some sent twice, the copy much later) and the
     * tombstone collector on a fifth: the store ends with each key's last write, a deleted key has no
     * record at all, and nothing stays awaited.
     */
    @RepeatedTest(10)
    void deletesValuesAndTheCollectorRacingLeaveTheLastWritesAndNoTombstones() throws Exception {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println(
                "BackupApplierRandomTest delete race seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        int writes = 20_000;
        int keyCount = 1 + random.nextInt(50);
        List<KeyPacket> packets = new ArrayList<>();
        List<ValueAssembler.Whole> values = new ArrayList<>();
        Map<String, ValueAssembler.Whole> last = new HashMap<>();
        for (int i = 1; i <= writes; i++) {
            TxId t = TxId.of(1, i);
            String key = "key-" + random.nextInt(keyCount);
            int kind = random.nextInt(10);
            ValueAssembler.Whole w;
            if (kind < 3) {
                packets.add(Packets.deleteKey(t, key));
                w = Packets.tombstone(t, key);
            } else {
                byte[] v = new byte[random.nextInt(16)];
                random.nextBytes(v);
                packets.add(kind < 5 ? Packets.asyncKey(t, key) : Packets.putKey(t, key, v));
                w = Packets.whole(t, key, v);
            }
            values.add(w);
            last.put(key, w);
        }
        for (int i = 0; i < values.size(); i += 32) {
            Collections.shuffle(values.subList(i, Math.min(values.size(), i + 32)), random);
        }
        for (int i = 0; i < 500; i++) { // resent copies, arriving well after the original
            int from = random.nextInt(values.size());
            int to = Math.min(values.size(), from + 32 + random.nextInt(2000));
            values.add(to, values.get(from));
        }
        try (KvStore store = HeapKvStore.open()) {
            UnfinishedKeys unfinished = new UnfinishedKeys();
            BackupApplier applier = new BackupApplier(store, unfinished, new BackupCounters(), 1000);
            ExecutorService pool = Executors.newFixedThreadPool(5);
            CountDownLatch go = new CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            try {
                List<Future<?>> work = new ArrayList<>();
                work.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < packets.size(); i += 16) {
                        applier.onKeyBatch(packets.subList(i, Math.min(packets.size(), i + 16)));
                    }
                    return null;
                }));
                for (int t = 0; t < 3; t++) {
                    int first = t;
                    work.add(pool.submit(() -> {
                        go.await();
                        for (int i = first; i < values.size(); i += 3) applier.apply(values.get(i));
                        return null;
                    }));
                }
                Future<?> collector = pool.submit(() -> {
                    go.await();
                    while (!done.get()) applier.collectTombstones();
                    return null;
                });
                go.countDown();
                for (Future<?> f : work) f.get(60, TimeUnit.SECONDS);
                done.set(true);
                collector.get(60, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            applier.collectTombstones();
            for (ValueAssembler.Whole w : last.values()) {
                StoredValue stored = store.get(w.key());
                if (w.op() == Op.DELETE) {
                    assertThat(stored)
                            .as(new String(w.key(), UTF_8) + " deleted at " + w.txId())
                            .isNull();
                } else {
                    assertThat(stored).isEqualTo(StoredValue.complete(w.txId(), w.bytes()));
                }
            }
            assertThat(store.tombstones()).isZero();
            assertThat(unfinished.snapshot()).as("unfinished keys").isEmpty();
            assertThat(applier.asyncValues().snapshot())
                    .as("async values awaited")
                    .isEmpty();
        }
    }

    private void run(long seed, KvStore store, boolean large) {
        System.out.println("BackupApplierRandomTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        String[] keys = new String[2 + random.nextInt(4)];
        for (int i = 0; i < keys.length; i++) keys[i] = "key-" + i;
        int streams = 2 + random.nextInt(3);

        // --- the primary: history, key packets in order, values shipped conflated ---
        Map<String, Shipped> state = new HashMap<>(); // key -> latest write (bytes null: deleted)
        Map<String, TxId> unshipped = new LinkedHashMap<>();
        Map<String, byte[]> history = new HashMap<>(); // key@txId -> bytes (null for a delete)
        List<KeyPacket> packets = new ArrayList<>();
        List<List<Shipped>> perStream = new ArrayList<>();
        for (int s = 0; s < streams; s++) perStream.add(new ArrayList<>());
        List<Shipped> corrupted = new ArrayList<>();
        long epoch = 1;
        long seq = 0;
        int writes = 50 + random.nextInt(250);
        for (int i = 0; i < writes; i++) {
            if (random.nextInt(50) == 0) {
                epoch++;
                seq = 0;
            }
            TxId t = TxId.of(epoch, ++seq);
            int kind = random.nextInt(100);
            if (kind < 8) {
                packets.add(new KeyPacket(t, Op.SKIP, new byte[0], 0, 0)); // a write that failed
                continue;
            }
            String key = keys[random.nextInt(keys.length)];
            boolean delete = kind >= 80;
            boolean async = kind < 18; // an ASYNC key packet: awaited, never fenced
            byte[] value = delete ? null : randomValue(random, large);
            state.put(key, new Shipped(t, key, value));
            history.put(key + "@" + t, value);
            unshipped.put(key, t);
            if (async) packets.add(new KeyPacket(t, Op.ASYNC, key.getBytes(UTF_8), 0, 0));
            else if (delete) packets.add(Packets.deleteKey(t, key));
            else packets.add(Packets.putKey(t, key, value));
            if (random.nextInt(4) == 0) ship(random, state, unshipped, perStream, corrupted, false);
        }
        ship(random, state, unshipped, perStream, corrupted, true);
        TxId last = packets.get(packets.size() - 1).txId();

        // --- the backup ---
        UnfinishedKeys unfinished = new UnfinishedKeys();
        BackupApplier applier = new BackupApplier(store, unfinished, new BackupCounters(), 1 + random.nextInt(64));
        AssemblyBudget budget = new AssemblyBudget(1 << 30, 1 << 30);
        List<ValueAssembler> assemblers = new ArrayList<>();
        List<List<ValueChunk>> chunkStreams = new ArrayList<>();
        for (List<Shipped> values : perStream) {
            assemblers.add(new ValueAssembler(budget.open(() -> {}), Integer.MAX_VALUE, store::stage));
            chunkStreams.add(interleave(random, values, corrupted));
        }
        int[] nextChunk = new int[streams];
        Map<String, TxId> seen = new HashMap<>();
        int keyAt = 0;
        TxId acked = TxId.ZERO;
        int corruptSeen = 0;
        int valuesLeft = chunkStreams.stream().mapToInt(List::size).sum();

        while (keyAt < packets.size() || valuesLeft > 0) {
            boolean deliverKeys = keyAt < packets.size() && (valuesLeft == 0 || random.nextInt(3) == 0);
            if (deliverKeys) {
                int n = 1 + random.nextInt(8);
                int end = keyAt + 1;
                while (end < Math.min(packets.size(), keyAt + n)
                        && packets.get(end).txId().seq() != 1) end++;
                List<KeyPacket> batch = packets.subList(keyAt, end); // within one epoch
                if (keyAt > 0
                        && batch.get(0).txId().seq() == 1
                        && !applier.contiguous().equals(packets.get(keyAt - 1).txId())) {
                    // a new epoch's primary takes over only once the backup has every key packet of
                    // the last one (a switchover waits for it; a failover promotes this backup instead):
                    // the old primary resends what is missing first
                    keyAt = indexAfter(packets, applier.contiguous());
                    continue;
                }
                int roll = random.nextInt(40);
                if (roll == 0) { // lost on the way: the next batch reveals the gap
                    keyAt += batch.size();
                } else {
                    BackupApplier.KeyResult r = applier.onKeyBatch(new ArrayList<>(batch));
                    assertThat(r.ack()).isGreaterThanOrEqualTo(acked);
                    acked = r.ack();
                    if (roll != 1) keyAt += batch.size(); // roll 1: the same batch again later
                    if (r.resend() != null) keyAt = indexAfter(packets, r.resend());
                }
            } else {
                int s = random.nextInt(streams);
                while (nextChunk[s] >= chunkStreams.get(s).size()) s = (s + 1) % streams;
                ValueChunk c = chunkStreams.get(s).get(nextChunk[s]++);
                valuesLeft--;
                ValueAssembler.Result r = assemblers.get(s).accept(c);
                if (r instanceof ValueAssembler.Corrupt) {
                    corruptSeen++;
                } else if (r instanceof ValueAssembler.Whole w) {
                    BackupApplier.Outcome outcome = applier.apply(w);
                    assertThat(outcome).isNotEqualTo(BackupApplier.Outcome.MISMATCH);
                    String key = new String(w.key(), UTF_8);
                    if (outcome == BackupApplier.Outcome.APPLIED)
                        seen.merge(key, w.txId(), BackupApplierRandomTest::later);
                    checkStoredKey(store, history, seen, key);
                }
            }
            if (random.nextInt(10) == 0) {
                // tombstones go at random moments: a late value must still never bring a deleted key back
                applier.collectTombstones();
                for (String key : keys) checkStoredKey(store, history, seen, key);
            }
            if (keyAt >= packets.size()
                    && valuesLeft == 0
                    && applier.contiguous().isBefore(last)) {
                keyAt = indexAfter(packets, applier.contiguous()); // the primary resends what is unacked
            }
        }

        assertThat(corruptSeen).as("corrupt values detected").isEqualTo(corrupted.size());
        assertThat(applier.contiguous()).isEqualTo(last);
        applier.collectTombstones();
        assertThat(store.tombstones())
                .as("tombstones left once every key packet came")
                .isZero();
        for (String key : keys) {
            StoredValue stored = store.get(key.getBytes(UTF_8));
            Shipped expected = state.get(key);
            if (expected == null || expected.bytes() == null) {
                assertThat(stored).as(key).isNull();
            } else {
                assertThat(stored).as(key).isEqualTo(StoredValue.complete(expected.txId(), expected.bytes()));
            }
        }
        assertThat(store.size())
                .isEqualTo(
                        state.values().stream().filter(v -> v.bytes() != null).count());
        assertThat(unfinished.snapshot()).as("unfinished keys").isEmpty();
        assertThat(unfinished.isEmpty()).isTrue();
        assertThat(applier.asyncValues().snapshot()).as("async values awaited").isEmpty();
        for (ValueAssembler a : assemblers) assertThat(a.inProgress()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(store.stats().valueBytes())
                .as("value bytes held: the stored values' and no staged ones'")
                .isEqualTo(state.values().stream()
                        .filter(v -> v.bytes() != null)
                        .mapToLong(v -> v.bytes().length)
                        .sum());
    }

    /** Mostly short; one in ten up to 3.5 kB, and if {@code large} half of those up to 200 kB. */
    private static byte[] randomValue(Random random, boolean large) {
        int length = random.nextInt(100);
        if (random.nextInt(10) == 0) {
            length = large && random.nextBoolean() ? 5000 + random.nextInt(200_000) : 500 + random.nextInt(3000);
        }
        byte[] v = new byte[length];
        random.nextBytes(v);
        return v;
    }

    /**
     * Ships the current state of some (or, at the end, all) unshipped keys, each on a random stream;
     * some twice on two streams, some first corrupted and then resent on another stream.
     */
    private static void ship(
            Random random,
            Map<String, Shipped> state,
            Map<String, TxId> unshipped,
            List<List<Shipped>> perStream,
            List<Shipped> corrupted,
            boolean all) {
        for (String key : new ArrayList<>(unshipped.keySet())) {
            if (!all && random.nextBoolean()) continue;
            unshipped.remove(key);
            Shipped value = state.get(key);
            int s = random.nextInt(perStream.size());
            int other = (s + 1 + random.nextInt(perStream.size() - 1)) % perStream.size();
            int roll = random.nextInt(20);
            if (roll == 0 && value.bytes() != null && value.bytes().length > 0) {
                Shipped bad = new Shipped(value.txId(), key, value.bytes().clone());
                corrupted.add(bad);
                perStream.get(s).add(bad);
            } else {
                perStream.get(s).add(value);
            }
            if (roll <= 2) perStream.get(other).add(value); // the resend, or a duplicate
        }
    }

    /**
     * The chunks of one stream's values: each value's chunks in order, up to three values
     * interleaved. A corrupted value gets one byte flipped in one chunk (its checksum stays right).
     */
    private static List<ValueChunk> interleave(Random random, List<Shipped> values, List<Shipped> corrupted) {
        List<List<ValueChunk>> pending = new ArrayList<>();
        for (Shipped v : values) {
            Op op = v.bytes() == null ? Op.DELETE : Op.PUT;
            byte[] bytes = v.bytes() == null ? new byte[0] : v.bytes();
            List<ValueChunk> chunks = new ArrayList<>(Packets.chunks(
                    v.txId(), op, v.key().getBytes(UTF_8), bytes, 1 + random.nextInt(Math.max(700, bytes.length / 3))));
            if (corrupted.stream().anyMatch(c -> c == v)) {
                int i = random.nextInt(chunks.size());
                ValueChunk c = chunks.get(i);
                if (c.data().length == 0) c = chunks.get(i = 0);
                byte[] data = Arrays.copyOf(c.data(), c.data().length);
                data[random.nextInt(data.length)] ^= (byte) (1 << random.nextInt(8));
                chunks.set(
                        i, new ValueChunk(c.txId(), c.op(), c.key(), c.totalLength(), c.checksum(), c.offset(), data));
            }
            pending.add(chunks);
        }
        List<ValueChunk> out = new ArrayList<>();
        while (!pending.isEmpty()) {
            int window = Math.min(3, pending.size());
            int pick = random.nextInt(window);
            List<ValueChunk> v = pending.get(pick);
            out.add(v.remove(0));
            if (v.isEmpty()) pending.remove(pick);
        }
        return out;
    }

    /** Index of the first packet after {@code txId}. */
    private static int indexAfter(List<KeyPacket> packets, TxId txId) {
        int i = 0;
        while (i < packets.size() && packets.get(i).txId().compareTo(txId) <= 0) i++;
        return i;
    }

    private static TxId later(TxId a, TxId b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * The stored record of {@code key} is one the primary wrote, never older than the newest value
     * applied to it ({@code seen}); no record at all only if that was a delete (its record may be gone:
     * removed at once, or its tombstone collected).
     */
    private static void checkStoredKey(KvStore store, Map<String, byte[]> history, Map<String, TxId> seen, String key) {
        TxId before = seen.get(key);
        StoredValue v = store.get(key.getBytes(UTF_8));
        if (v == null) {
            if (before != null) {
                assertThat(history.get(key + "@" + before))
                        .as(key + " has no record, but the newest value applied, at " + before + ", was not a delete")
                        .isNull();
            }
            return;
        }
        if (before != null) assertThat(v.txId()).as("stored TxId of " + key).isGreaterThanOrEqualTo(before);
        seen.put(key, v.txId());
        String at = key + "@" + v.txId();
        assertThat(history).containsKey(at);
        byte[] expected = history.get(at);
        if (expected == null) assertThat(v.state()).isEqualTo(RecordState.TOMBSTONE);
        else assertThat(v.value()).isEqualTo(expected);
    }
}
