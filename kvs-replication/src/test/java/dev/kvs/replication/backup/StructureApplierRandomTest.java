package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Seeded random histories of hash and set member writes, removals (the last member's deletes the key),
 * expiry changes, string overwrites and deletes of a few keys on a real primary store, shipped as the
 * primary ships them (key packets in order; values read from the primary's store at random later moments:
 * the structure's image, conflated and possibly newer than the key packets delivered), delivered to a real
 * backup store in random batches and random value order, late and reordered, and cut off at a random
 * point (a failover). After every step, every key the backup does not hold unfinished is as the primary
 * had it at a TxId no older than its last write the key channel delivered (complete or fenced, never
 * stale); when the history runs to its end, the backup equals the primary, structures by image.
 *
 * <p>Replay a run with {@code -Dkvs.seed=<seed printed>}.
 */
class StructureApplierRandomTest {
    private static final Long FIXED_SEED = Long.getLong("kvs.seed");

    /** A key's state after a write: its header (type, TxId, expiry) and value or image; null: absent. */
    private record Version(ValueType type, long expireAt, byte[] bytes) {}

    @RepeatedTest(20)
    void everyDeliveredWriteIsCompleteOrFencedAndTheBackupEndsEqual() {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println("StructureApplierRandomTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        String[] keys = {"k0", "k1", "k2", "k3"};
        StoreConfig config =
                StoreConfig.builder().maxEntries(10_000).maxBytes(64L << 20).build();
        try (KvStore primary = Stores.open(config);
                KvStore store = Stores.open(config)) {
            Map<String, NavigableMap<TxId, Version>> history = new HashMap<>();
            for (String k : keys) {
                history.put(k, new TreeMap<>());
                history.get(k).put(TxId.ZERO, null);
            }
            Map<String, TxId> pending = new LinkedHashMap<>();
            List<KeyPacket> packets = new ArrayList<>();
            List<ValueAssembler.Whole> shipped = new ArrayList<>();
            long[] seq = {0};
            int writes = 60 + random.nextInt(150);
            for (int i = 0; i < writes; i++) {
                String k = keys[random.nextInt(keys.length)];
                long before = seq[0];
                write(random, primary, k, seq, packets, pending);
                if (seq[0] != before) history.get(k).put(TxId.of(1, seq[0]), now(primary, k)); // it wrote
                if (random.nextInt(3) == 0) ship(random, primary, pending, shipped, false);
            }
            ship(random, primary, pending, shipped, true);

            boolean failover = random.nextInt(3) == 0;
            int cut = failover ? random.nextInt(packets.size() + shipped.size() + 1) : Integer.MAX_VALUE;
            UnfinishedKeys unfinished = new UnfinishedKeys();
            BackupApplier applier = new BackupApplier(store, unfinished, new BackupCounters(), 1000);
            int keyAt = 0;
            int shippedAt = 0;
            List<ValueAssembler.Whole> values = new ArrayList<>();
            for (int step = 0;
                    step < cut && (keyAt < packets.size() || shippedAt < shipped.size() || !values.isEmpty());
                    step++) {
                if (random.nextInt(8) == 0) applier.collectTombstones();
                int roll = random.nextInt(10);
                if (roll < 4 && keyAt < packets.size()) {
                    int n = 1 + random.nextInt(6);
                    applier.onKeyBatch(new ArrayList<>(packets.subList(keyAt, Math.min(packets.size(), keyAt + n))));
                    keyAt = Math.min(packets.size(), keyAt + n);
                } else if (roll < 6 && shippedAt < shipped.size()) {
                    values.add(shipped.get(shippedAt++));
                } else if (roll < 9 && !values.isEmpty()) {
                    applier.apply(values.remove(random.nextInt(values.size())));
                } else if (keyAt >= packets.size() && !values.isEmpty()) {
                    applier.apply(values.remove(0));
                } else if (keyAt >= packets.size() && shippedAt < shipped.size()) {
                    values.add(shipped.get(shippedAt++));
                }
                checkCompleteOrFenced(history, store, unfinished, applier.contiguous(), keys, seed);
            }
            if (failover) return; // every step's check covered the cut
            assertThat(unfinished.snapshot())
                    .as("seed %d: nothing unfinished at the end", seed)
                    .isEmpty();
            for (String k : keys) {
                assertThat(describe(now(store, k)))
                        .as("seed %d: %s equals the primary's", seed, k)
                        .isEqualTo(describe(now(primary, k)));
            }
        }
    }

    /** One random write of {@code k} on the primary, ordered as the server orders it. */
    private static void write(
            Random random, KvStore primary, String k, long[] seq, List<KeyPacket> packets, Map<String, TxId> pending) {
        byte[] key = b(k);
        RecordHeader h = primary.header(key);
        boolean live = h != null && h.state() == RecordState.COMPLETE;
        ValueType type = live ? h.type() : (random.nextBoolean() ? ValueType.HASH : ValueType.SET);
        int roll = random.nextInt(100);
        if (roll < 8 && live) { // DEL
            TxId t = TxId.of(1, ++seq[0]);
            primary.update(key, x -> Write.remove());
            packets.add(new KeyPacket(t, Op.DELETE, key, 0, 0));
            pending.put(k, t);
        } else if (roll < 16 || type == ValueType.STRING) { // SET
            byte[] v = new byte[random.nextInt(30)];
            random.nextBytes(v);
            TxId t = TxId.of(1, ++seq[0]);
            primary.put(key, StoredValue.complete(t, v));
            packets.add(new KeyPacket(t, Op.PUT, key, v.length, Checksums.crc32c(v)));
            pending.put(k, t);
        } else if (roll < 24 && live) { // EXPIRE: a structure write that keeps the members
            long at = 1_000_000_000_000L + random.nextInt(1_000_000);
            primary.updateHeader(key, x -> {
                TxId t = TxId.of(1, ++seq[0]);
                packets.add(new KeyPacket(t, Op.writing(type), key, 0, 0, at));
                return x.withTxId(t).withExpireAt(at);
            });
            pending.put(k, TxId.of(1, seq[0]));
        } else if (roll < 50) { // HDEL / SREM: the last member's removal deletes the key
            List<byte[]> names = new ArrayList<>();
            for (int n = random.nextInt(4); n >= 0; n--) names.add(b("m" + random.nextInt(40)));
            primary.removeMembers(key, type, names, false, () -> order(key, type, h, seq, packets, pending, k));
        } else { // HSET / SADD
            List<Member> ms = new ArrayList<>();
            for (int n = random.nextInt(6); n >= 0; n--) {
                byte[] name = b("m" + random.nextInt(40));
                ms.add(type == ValueType.SET ? Member.of(name) : new Member(name, b("v" + random.nextInt(100))));
            }
            primary.putMembers(key, type, ms, false, () -> order(key, type, h, seq, packets, pending, k));
        }
    }

    private static TxId order(
            byte[] key,
            ValueType type,
            RecordHeader before,
            long[] seq,
            List<KeyPacket> packets,
            Map<String, TxId> pending,
            String k) {
        boolean kept = before != null && before.state() == RecordState.COMPLETE && before.type() == type;
        TxId t = TxId.of(1, ++seq[0]);
        packets.add(new KeyPacket(t, Op.writing(type), key, 0, 0, kept ? before.expireAtMillis() : 0));
        pending.put(k, t);
        return t;
    }

    /** Ships pending keys as the shipper does: the current value or image with its TxId, or a delete. */
    private static void ship(
            Random random, KvStore primary, Map<String, TxId> pending, List<ValueAssembler.Whole> out, boolean all) {
        for (String k : new ArrayList<>(pending.keySet())) {
            if (!all && random.nextBoolean()) continue;
            TxId newest = pending.remove(k);
            byte[] key = b(k);
            RecordHeader h = primary.header(key);
            if (h == null || h.state() != RecordState.COMPLETE) {
                out.add(new ValueAssembler.Whole(h == null ? newest : h.txId(), Op.DELETE, key, new byte[0], 0));
            } else if (h.type().isStructure()) {
                MembersImage m = primary.image(key);
                out.add(new ValueAssembler.Whole(
                        h.txId(), Op.writing(h.type()), key, m.image(), m.checksum(), h.expireAtMillis()));
            } else {
                byte[] v = primary.get(key).value();
                out.add(new ValueAssembler.Whole(h.txId(), Op.PUT, key, v, Checksums.crc32c(v), h.expireAtMillis()));
            }
        }
    }

    private static Version now(KvStore store, String k) {
        RecordHeader h = store.header(b(k));
        if (h == null || h.state() != RecordState.COMPLETE) return null;
        byte[] bytes = h.type().isStructure()
                ? store.image(b(k)).image()
                : store.get(b(k)).value();
        return new Version(h.type(), h.expireAtMillis(), bytes);
    }

    private static String describe(Version v) {
        return v == null
                ? "absent"
                : v.type() + " expiring " + v.expireAt() + " "
                        + java.util.HexFormat.of().formatHex(v.bytes());
    }

    private static void checkCompleteOrFenced(
            Map<String, NavigableMap<TxId, Version>> history,
            KvStore store,
            UnfinishedKeys unfinished,
            TxId contiguous,
            String[] keys,
            long seed) {
        for (String k : keys) {
            if (unfinished.contains(b(k))) continue; // fenced after a failover: fine
            NavigableMap<TxId, Version> versions = history.get(k);
            TxId lastKnown = versions.floorKey(contiguous);
            RecordHeader h = store.header(b(k));
            if (h != null && h.state() == RecordState.COMPLETE) {
                assertThat(h.txId())
                        .as("seed %d: %s served from %s, older than its write %s", seed, k, h.txId(), lastKnown)
                        .isGreaterThanOrEqualTo(lastKnown);
                assertThat(describe(now(store, k)))
                        .as("seed %d: %s at %s", seed, k, h.txId())
                        .isEqualTo(describe(versions.get(h.txId())));
            } else {
                boolean absentSince =
                        versions.tailMap(lastKnown, true).values().stream().anyMatch(v -> v == null);
                assertThat(absentSince)
                        .as("seed %d: %s absent on the backup but present on the primary since %s", seed, k, lastKnown)
                        .isTrue();
            }
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
