package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.internal.HeapKvStore;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.RepeatedTest;

/**
 * A random primary history of puts, deletes, renames and flushes over a few keys, shipped as the
 * primary ships it (key packets in order; values read from the primary's store at random later
 * moments, so conflated and possibly newer than the key packets delivered; a flushed key's pending
 * value ships as a tombstone of its old TxId), delivered in random batches and random value order,
 * with flush sweeps and tombstone collections run at random later moments. After every step, every key the backup does not
 * hold unfinished must be served as the primary had it at a TxId no older than the key's last write
 * up to the backup's contiguous TxId (never a stale or resurrected value); at the end the backup
 * equals the primary with nothing unfinished.
 *
 * <p>Replay a run with {@code -Dkvs.seed=<seed printed>}.
 */
class ReplicatedOpsRandomTest {
    private static final Long FIXED_SEED = Long.getLong("kvs.seed");

    @RepeatedTest(30)
    void flushesAndRenamesNeverLetTheBackupServeAStaleOrFlushedValue() {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println("ReplicatedOpsRandomTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        String[] keys = new String[2 + random.nextInt(4)];
        for (int i = 0; i < keys.length; i++) keys[i] = "k" + i;

        // --- the primary: per key, every version (TxId -> value, null: absent) ---
        Map<String, NavigableMap<TxId, byte[]>> history = new HashMap<>();
        for (String k : keys) {
            history.put(k, new TreeMap<>());
            history.get(k).put(TxId.ZERO, null); // absent before the history starts
        }
        Map<String, TxId> pending = new LinkedHashMap<>(); // key -> newest TxId whose value is unshipped
        List<KeyPacket> packets = new ArrayList<>();
        List<ValueAssembler.Whole> shipped = new ArrayList<>();
        long seq = 0;
        int writes = 40 + random.nextInt(120);
        for (int i = 0; i < writes; i++) {
            TxId t = TxId.of(1, ++seq);
            int kind = random.nextInt(100);
            String k = keys[random.nextInt(keys.length)];
            if (kind < 6) { // FLUSH
                for (String x : keys)
                    if (current(history, x) != null) history.get(x).put(t, null);
                packets.add(KeyPacket.flush(t));
            } else if (kind < 25 && current(history, k) != null) { // RENAME k -> d
                String d = keys[random.nextInt(keys.length)];
                if (d.equals(k)) {
                    packets.add(new KeyPacket(t, Op.SKIP, new byte[0], 0, 0)); // RENAME k k: no write
                    continue;
                }
                byte[] v = current(history, k);
                history.get(k).put(t, null);
                history.get(d).put(t, v);
                packets.add(KeyPacket.rename(t, b(k), b(d), v.length, Checksums.crc32c(v)));
                pending.put(d, t);
            } else if (kind < 40 && current(history, k) != null) { // DEL
                history.get(k).put(t, null);
                packets.add(new KeyPacket(t, Op.DELETE, b(k), 0, 0));
                pending.put(k, t);
            } else { // SET
                byte[] v = new byte[1 + random.nextInt(8)];
                random.nextBytes(v);
                history.get(k).put(t, v);
                packets.add(new KeyPacket(t, Op.PUT, b(k), v.length, Checksums.crc32c(v)));
                pending.put(k, t);
            }
            if (random.nextInt(3) == 0) ship(random, history, pending, shipped, false);
        }
        ship(random, history, pending, shipped, true);

        // --- the backup, fed in a random interleaving ---
        try (KvStore store = HeapKvStore.open()) {
            UnfinishedKeys unfinished = new UnfinishedKeys();
            BackupApplier applier = new BackupApplier(store, unfinished, new BackupCounters(), 1000);
            List<Runnable> walks = new ArrayList<>();
            int keyAt = 0;
            List<ValueAssembler.Whole> values = new ArrayList<>();
            int shippedAt = 0;
            while (keyAt < packets.size() || shippedAt < shipped.size() || !values.isEmpty() || !walks.isEmpty()) {
                if (random.nextInt(8) == 0) applier.collectTombstones(); // at random moments
                int roll = random.nextInt(10);
                if (roll < 4 && keyAt < packets.size()) {
                    int n = 1 + random.nextInt(6);
                    BackupApplier.KeyResult r = applier.onKeyBatch(
                            new ArrayList<>(packets.subList(keyAt, Math.min(packets.size(), keyAt + n))));
                    keyAt = Math.min(packets.size(), keyAt + n);
                    if (r.walk() != null) walks.add(r.walk());
                } else if (roll < 6 && shippedAt < shipped.size()) {
                    // a value is shipped only after its write: never ahead of the primary's history
                    values.add(shipped.get(shippedAt++));
                } else if (roll < 9 && !values.isEmpty()) {
                    applier.apply(values.remove(random.nextInt(values.size())));
                } else if (!walks.isEmpty()) {
                    walks.remove(0).run();
                } else if (keyAt >= packets.size() && !values.isEmpty()) {
                    applier.apply(values.remove(0));
                } else if (keyAt >= packets.size() && shippedAt < shipped.size()) {
                    values.add(shipped.get(shippedAt++));
                }
                checkNothingStale(history, store, unfinished, applier.contiguous(), keys, seed);
            }
            assertThat(unfinished.snapshot())
                    .as("seed %d: nothing unfinished at the end", seed)
                    .isEmpty();
            applier.collectTombstones();
            assertThat(store.tombstones()).as("seed %d: tombstones left", seed).isZero();
            for (String k : keys) {
                byte[] want = current(history, k);
                StoredValue got = store.get(b(k));
                if (want == null) {
                    assertThat(got).as("seed %d: %s absent", seed, k).isNull();
                } else {
                    assertThat(got.value()).as("seed %d: %s", seed, k).isEqualTo(want);
                }
            }
        }
    }

    /**
     * Ships pending values as the primary's shipper does: the current value with its TxId, or a
     * tombstone of the pending TxId when the key is absent now.
     */
    private static void ship(
            Random random,
            Map<String, NavigableMap<TxId, byte[]>> history,
            Map<String, TxId> pending,
            List<ValueAssembler.Whole> out,
            boolean all) {
        List<String> keys = new ArrayList<>(pending.keySet());
        for (String k : keys) {
            if (!all && random.nextBoolean()) continue;
            TxId newest = pending.remove(k);
            Map.Entry<TxId, byte[]> now = history.get(k).lastEntry();
            if (now.getValue() != null) {
                out.add(new ValueAssembler.Whole(
                        now.getKey(), Op.PUT, b(k), now.getValue(), Checksums.crc32c(now.getValue())));
            } else {
                out.add(new ValueAssembler.Whole(newest, Op.DELETE, b(k), new byte[0], 0));
            }
        }
    }

    private static void checkNothingStale(
            Map<String, NavigableMap<TxId, byte[]>> history,
            KvStore store,
            UnfinishedKeys unfinished,
            TxId contiguous,
            String[] keys,
            long seed) {
        for (String k : keys) {
            if (unfinished.contains(b(k))) continue; // fenced after a failover: fine
            NavigableMap<TxId, byte[]> versions = history.get(k);
            TxId lastKnown = versions.floorKey(contiguous);
            StoredValue got = store.get(b(k));
            boolean present = got != null && got.state() == RecordState.COMPLETE;
            if (present) {
                assertThat(got.txId())
                        .as("seed %d: %s served from %s, older than its write %s", seed, k, got.txId(), lastKnown)
                        .isGreaterThanOrEqualTo(lastKnown);
                assertThat(versions.get(got.txId()))
                        .as("seed %d: %s's value at %s", seed, k, got.txId())
                        .isEqualTo(got.value());
            } else {
                // absent: the key must be absent in some version at least as new as its last known write
                boolean absentSince =
                        versions.tailMap(lastKnown, true).values().stream().anyMatch(v -> v == null);
                assertThat(absentSince)
                        .as("seed %d: %s absent on the backup but present on the primary since %s", seed, k, lastKnown)
                        .isTrue();
            }
        }
    }

    private static byte[] current(Map<String, NavigableMap<TxId, byte[]>> history, String k) {
        return history.get(k).lastEntry().getValue();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
