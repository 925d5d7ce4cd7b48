package dev.kvs.replication.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.Checksums;
import dev.kvs.core.KvStore;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.WriteStages;
import dev.kvs.core.internal.Stores;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.RepeatedTest;

/**
 * Seeded random histories of writes of strings, hashes and sets (a structure shipped whole, as its image), deletes, active expiry's deletes (which may take a TxId
 * between two of an EXEC's) and transactions of 2-5 writes, shipped as the primary ships them: key
 * packets in order, a transaction's marked with its unit; values conflated per key, a unit's held until
 * the key channel delivered the unit's last packet; values delivered late and reordered; a failover
 * (the held units dropped) at a random point. After every step no unit is half-visible: if a member is
 * visible at exactly its TxId, every other member is at its TxId or newer. After the failover every
 * delivered (acknowledged) write is complete or fenced, and every delivered unit all complete or all
 * fenced.
 *
 * <p>Replay a run with {@code -Dkvs.seed=<seed printed>}.
 */
class UnitApplierRandomTest {
    private static final Long FIXED_SEED = Long.getLong("kvs.seed");
    private static final String[] KEYS = {"k0", "k1", "k2", "k3", "k4", "k5"};

    /** One write: its key packet, and its value (a tombstone for a delete). */
    private record Written(KeyPacket packet, ValueAssembler.Whole value) {}

    @RepeatedTest(20)
    void noUnitIsHalfVisibleAndAFailoverLeavesEachAllCompleteOrAllFenced() {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println("UnitApplierRandomTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        Map<String, NavigableMap<TxId, byte[]>> history = new HashMap<>();
        for (String k : KEYS) history.computeIfAbsent(k, x -> new TreeMap<>()).put(TxId.ZERO, null);
        List<Written> log = new ArrayList<>();
        List<List<Written>> units = new ArrayList<>();
        long[] seq = {0};
        int commands = 40 + random.nextInt(80);
        for (int i = 0; i < commands; i++) {
            if (random.nextInt(3) == 0) {
                List<Written> unit = new ArrayList<>();
                int n = 2 + random.nextInt(4);
                int expiryAt = random.nextInt(3) == 0 ? random.nextInt(n) : -1;
                for (int j = 0; j < n; j++) {
                    if (j == expiryAt) log.add(write(random, seq, history)); // active expiry's delete
                    Written w = write(random, seq, history);
                    unit.add(w);
                    log.add(w);
                }
                Frame.Unit marker = new Frame.Unit(unit.get(0).packet.txId(), n);
                for (int j = 0; j < n; j++) {
                    Written w = unit.get(j);
                    Written marked = new Written(w.packet.inUnit(marker), w.value);
                    unit.set(j, marked);
                    log.set(log.indexOf(w), marked);
                }
                units.add(unit);
            } else {
                log.add(write(random, seq, history));
            }
        }

        StoreConfig config =
                StoreConfig.builder().maxEntries(10_000).maxBytes(64L << 20).build();
        try (KvStore store = Stores.open(config)) {
            UnfinishedKeys unfinished = new UnfinishedKeys();
            BackupApplier applier = new BackupApplier(
                    store,
                    unfinished,
                    new UnfinishedKeys(),
                    new BackupCounters(),
                    1000,
                    WriteStages.OFF,
                    BackupApplier.DEFAULT_MAX_UNIT_BYTES,
                    Runnable::run);
            Map<String, Written> pending = new LinkedHashMap<>(); // per key, the newest not yet shipped
            List<ValueAssembler.Whole> inTransit = new ArrayList<>();
            int keyAt = 0;
            int writtenAt = 0; // the primary's writes happen ahead of the key channel's delivery
            boolean failover = random.nextInt(2) == 0;
            int cut = failover ? random.nextInt(log.size() * 3 + 1) : Integer.MAX_VALUE;
            for (int step = 0;
                    step < cut && (keyAt < log.size() || !pending.isEmpty() || !inTransit.isEmpty());
                    step++) {
                int roll = random.nextInt(10);
                if (roll < 3 && writtenAt < log.size()) {
                    Written w = log.get(writtenAt++);
                    pending.put(new String(w.value.key(), StandardCharsets.UTF_8), w);
                } else if (roll < 5 && keyAt < writtenAt) {
                    int n = Math.min(writtenAt - keyAt, 1 + random.nextInt(4));
                    List<KeyPacket> batch = new ArrayList<>();
                    for (int j = keyAt; j < keyAt + n; j++) batch.add(log.get(j).packet);
                    applier.onKeyBatch(batch);
                    keyAt += n;
                    applier.releaseHeld(); // as the key channel does: deletes that overtook their packets
                    applier.releaseHeld(); // as the key channel does: deletes that overtook their packets
                } else if (roll < 7 && !pending.isEmpty()) {
                    // ship a key's newest value, unless it is of a unit whose last packet is not delivered
                    List<String> shippable = new ArrayList<>();
                    for (Map.Entry<String, Written> e : pending.entrySet()) {
                        if (shippable(e.getKey(), log, writtenAt, keyAt)) shippable.add(e.getKey());
                    }
                    if (!shippable.isEmpty())
                        inTransit.add(pending.remove(shippable.get(random.nextInt(shippable.size()))).value);
                } else if (!inTransit.isEmpty()) {
                    applier.apply(inTransit.remove(random.nextInt(inTransit.size())), (o, refused) -> {});
                } else if (writtenAt < log.size()) {
                    Written w = log.get(writtenAt++);
                    pending.put(new String(w.value.key(), StandardCharsets.UTF_8), w);
                } else if (keyAt < log.size()) {
                    applier.onKeyBatch(List.of(log.get(keyAt++).packet));
                    applier.releaseHeld();
                    applier.releaseHeld();
                }
                checkNoUnitHalfVisible(units, history, store, seed, step);
            }
            if (!failover) {
                assertThat(unfinished.snapshot())
                        .as("seed %d: nothing unfinished", seed)
                        .isEmpty();
                assertThat(applier.heldUnits())
                        .as("seed %d: no unit held at the end", seed)
                        .isZero();
                return;
            }
            applier.dropHeld(); // the promotion
            checkNoUnitHalfVisible(units, history, store, seed, -1);
            TxId acked = applier.contiguous();
            for (String k : KEYS) {
                TxId last = history.get(k).headMap(acked, true).lastKey();
                assertThat(fenced(unfinished, k) || atOrAfter(store, history, k, last))
                        .as("seed %d: %s's last acknowledged write %s complete or fenced", seed, k, last)
                        .isTrue();
            }
            for (List<Written> unit : units) {
                TxId lastOfUnit = unit.get(unit.size() - 1).packet.txId();
                if (lastOfUnit.compareTo(acked) > 0) continue; // not acknowledged
                // fenced for the unit: the key still awaits the unit's write (or an older one); a member a
                // newer write overwrote is neither, and proves nothing either way
                boolean anyFenced = false;
                boolean anyAtItsOwn = false;
                StringBuilder members = new StringBuilder();
                for (Written w : unit) {
                    boolean f = unfinished.awaitsUpTo(w.packet.key(), w.packet.txId());
                    TxId v = held(store, w.packet.key());
                    boolean own = !f && (v == null ? w.packet.op() == Op.DELETE : v.equals(w.packet.txId()));
                    anyFenced |= f;
                    anyAtItsOwn |= own && leavesValue(w.packet.op());
                    members.append(name(w))
                            .append('@')
                            .append(w.packet.txId().seq())
                            .append(f ? " fenced" : "")
                            .append(" holds ")
                            .append(v == null ? "nothing" : v.toString())
                            .append("; ");
                    assertThat(f || atOrAfter(store, history, name(w), w.packet.txId()))
                            .as(
                                    "seed %d: %s@%s of unit %s complete or fenced",
                                    seed, name(w), w.packet.txId(), w.packet.unit())
                            .isTrue();
                }
                assertThat(anyFenced && anyAtItsOwn)
                        .as(
                                "seed %d: unit %s half complete, half fenced: %s",
                                seed, unit.get(0).packet.unit(), members)
                        .isFalse();
            }
        }
    }

    private static Written write(Random random, long[] seq, Map<String, NavigableMap<TxId, byte[]>> history) {
        String k = KEYS[random.nextInt(KEYS.length)];
        TxId t = TxId.of(1, ++seq[0]);
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(4) == 0) {
            history.get(k).put(t, null);
            return new Written(
                    new KeyPacket(t, Op.DELETE, key, 0, 0),
                    new ValueAssembler.Whole(t, Op.DELETE, key, new byte[0], 0));
        }
        byte[] value = (k + "@" + t.seq()).getBytes(StandardCharsets.UTF_8);
        int kind = random.nextInt(4);
        if (kind >= 2) {
            // a hash (field "f" holding the value) or a set (the value as its one member), shipped whole
            Op op = kind == 2 ? Op.HASH : Op.SET;
            byte[] image = op == Op.HASH ? image(b("f"), value) : image(value, new byte[0]);
            history.get(k).put(t, image);
            return new Written(
                    new KeyPacket(t, op, key, 0, 0),
                    new ValueAssembler.Whole(t, op, key, image, Checksums.crc32c(image)));
        }
        history.get(k).put(t, value);
        int crc = Checksums.crc32c(value);
        return new Written(
                new KeyPacket(t, Op.PUT, key, value.length, crc), new ValueAssembler.Whole(t, Op.PUT, key, value, crc));
    }

    /**
     * The canonical image ({@code MembersImage}) of a structure of one member {@code name} holding {@code
     * value}: format 1, count 1, then the member (lengths below 128 are one varint byte).
     */
    private static byte[] image(byte[] name, byte[] value) {
        byte[] image = new byte[4 + name.length + value.length];
        image[0] = 1;
        image[1] = 1;
        image[2] = (byte) name.length;
        System.arraycopy(name, 0, image, 3, name.length);
        image[3 + name.length] = (byte) value.length;
        System.arraycopy(value, 0, image, 4 + name.length, value.length);
        return image;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** True for a write that leaves a value (a string, a hash, a set) rather than a delete. */
    private static boolean leavesValue(Op op) {
        return op == Op.PUT || op.isStructure();
    }

    /**
     * A key's value may ship unless a unit written so far wrote the key and its last key packet has not
     * been delivered (the primary holds the key's value, whatever newer write it tracks, until then).
     */
    private static boolean shippable(String k, List<Written> log, int writtenAt, int keyAt) {
        for (int i = 0; i < writtenAt; i++) {
            Written w = log.get(i);
            Frame.Unit u = w.packet.unit();
            if (u == null || !name(w).equals(k)) continue;
            int seen = 0;
            for (int j = 0; j < keyAt; j++) {
                if (u.equals(log.get(j).packet.unit())) seen++;
            }
            if (seen < u.size()) return false;
        }
        return true;
    }

    private static String name(Written w) {
        return new String(w.packet.key(), StandardCharsets.UTF_8);
    }

    private static boolean fenced(UnfinishedKeys unfinished, String k) {
        return unfinished.contains(k.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * True if the backup shows {@code k} as the primary had it at {@code t} or a later write (a string's
     * value, or a hash's or set's canonical image).
     */
    private static boolean atOrAfter(KvStore store, Map<String, NavigableMap<TxId, byte[]>> history, String k, TxId t) {
        byte[] key = b(k);
        RecordHeader h = store.header(key);
        NavigableMap<TxId, byte[]> versions = history.get(k).tailMap(t, true);
        if (h == null) return versions.containsValue(null);
        if (h.txId().compareTo(t) < 0) return false;
        byte[] expected = versions.get(h.txId());
        if (h.state() == RecordState.TOMBSTONE) return expected == null;
        if (h.state() != RecordState.COMPLETE || expected == null) return false;
        if (h.type().isStructure()) {
            MembersImage m = store.image(key);
            return m != null && Arrays.equals(expected, m.image());
        }
        StoredValue v = store.get(key);
        return v != null && Arrays.equals(expected, v.value());
    }

    /** The TxId of {@code key}'s record, or null if the store holds none. */
    private static TxId held(KvStore store, byte[] key) {
        RecordHeader h = store.header(key);
        return h == null ? null : h.txId();
    }

    /** If a member is visible at exactly its TxId, every other member is at its own TxId or later. */
    private static void checkNoUnitHalfVisible(
            List<List<Written>> units,
            Map<String, NavigableMap<TxId, byte[]>> history,
            KvStore store,
            long seed,
            int step) {
        for (List<Written> unit : units) {
            for (Written w : unit) {
                TxId v = held(store, w.packet.key());
                if (!leavesValue(w.packet.op()) || v == null || !v.equals(w.packet.txId())) continue;
                for (Written other : unit) {
                    assertThat(atOrAfter(store, history, name(other), other.packet.txId()))
                            .as(
                                    "seed %d step %d: %s visible at %s but %s not at %s",
                                    seed, step, name(w), w.packet.txId(), name(other), other.packet.txId())
                            .isTrue();
                }
            }
        }
    }
}
