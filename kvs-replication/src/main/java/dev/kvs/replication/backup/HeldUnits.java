package dev.kvs.replication.backup;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/**
 * The units ({@code EXEC}s) whose values this backup holds back until the whole unit can be applied
 * together (see {@link BackupApplier}): keyed by the unit's first TxId, each with its members (the key
 * packets that named it, registered by the key channel) and the values of them that have arrived.
 *
 * <p>A unit is <b>ready</b> when all its key packets have arrived and every member either has its value
 * held here, or a later member of the same key has (the primary ships a key's newest value only), or its
 * key is no longer awaited up to the member's TxId (a newer write of the key landed, or the store already
 * held one): applying the held values then leaves every member at its TxId or a newer one. The caller takes a ready unit out ({@link #takeReady}) and applies it.
 *
 * <p>Bounded by bytes ({@code maxBytes}): a value that would take the held bytes past it breaks its unit
 * ({@link #hold} returns the unit, taken out): its values are applied as they come, and the applier
 * counts it. The primary bounds what it has unacknowledged anyway; the bound makes it visible here.
 * Thread-safe: key packets register on the key channel's thread, values arrive on value channels' event
 * loops.
 */
final class HeldUnits {
    /** One member: a key packet of the unit, and its value once it has arrived. */
    static final class Member {
        final KeyPacket packet;
        ValueAssembler.Whole value;
        BackupApplier.Settled settled;

        Member(KeyPacket packet) {
            this.packet = packet;
        }
    }

    /** One unit: its members by TxId (in TxId order), how many it has, the bytes of its held values. */
    static final class Unit {
        final TxId first;
        final int size;
        final TreeMap<TxId, Member> members = new TreeMap<>();
        long bytes;

        Unit(Frame.Unit unit) {
            this.first = unit.first();
            this.size = unit.size();
        }

        /** The members in TxId order. */
        List<Member> members() {
            return new ArrayList<>(members.values());
        }
    }

    private final long maxBytes;
    private final Map<TxId, Unit> units = new HashMap<>(); // this; by first TxId
    private final Map<TxId, Unit> byMember = new HashMap<>(); // this
    private final Map<ByteKey, List<Unit>> byKey = new HashMap<>(); // this
    private long bytes; // this
    private volatile int count;

    HeldUnits(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Registers key packet {@code p}, which names its unit, as a member of it. */
    synchronized void register(KeyPacket p) {
        Unit u = units.computeIfAbsent(p.unit().first(), t -> new Unit(p.unit()));
        if (u.members.containsKey(p.txId())) return; // sent again after a reconnect
        u.members.put(p.txId(), new Member(p));
        byMember.put(p.txId(), u);
        for (byte[] k : keysOf(p))
            byKey.computeIfAbsent(new ByteKey(k), x -> new ArrayList<>(1)).add(u);
        count = units.size();
    }

    private static List<byte[]> keysOf(KeyPacket p) {
        if (p.op() == Op.FLUSH || p.op() == Op.SKIP) return List.of();
        return p.op() == Op.RENAME ? List.of(p.key(), p.source()) : List.of(p.key());
    }

    /** True if no unit is held: the common case, read without the lock. */
    boolean isEmpty() {
        return count == 0;
    }

    /** True if the value of {@code txId} belongs to a held unit. */
    synchronized boolean isMember(TxId txId) {
        return byMember.containsKey(txId);
    }

    /** The member of {@code txId}'s key packet, if it is one of a unit held now (a RENAME's, say); else null. */
    synchronized KeyPacket memberPacket(TxId txId) {
        Unit u = byMember.get(txId);
        return u == null ? null : u.members.get(txId).packet;
    }

    /** What became of a value offered to {@link #hold}. */
    record Held(boolean held, Unit broken) {}

    /**
     * Holds {@code value} if its TxId is a member of a unit held now. If holding it would take the held
     * bytes past the bound, nothing is held and its unit is taken out and returned as {@link Held#broken}:
     * the caller applies that unit's held values, and this one, as plain values.
     */
    synchronized Held hold(ValueAssembler.Whole value, BackupApplier.Settled settled) {
        Unit u = byMember.get(value.txId());
        if (u == null) return new Held(false, null);
        long b = value.length();
        if (bytes + b > maxBytes) {
            remove(u);
            return new Held(false, u);
        }
        Member m = u.members.get(value.txId());
        if (m.value != null) {
            // shipped again (a value channel replaced): the copy held before is answered on a channel gone
            u.bytes -= m.value.length();
            bytes -= m.value.length();
            if (m.value.staged() != null) m.value.staged().close();
        }
        m.value = value;
        m.settled = settled;
        u.bytes += b;
        bytes += b;
        return new Held(true, null);
    }

    /**
     * Takes out a ready unit among those holding {@code key} (any held unit if {@code key} is null), or
     * null if none is ready. {@code awaitsUpTo} says whether a key still awaits a value of a TxId or an
     * older one.
     */
    synchronized Unit takeReady(byte[] key, BiPredicate<byte[], TxId> awaitsUpTo) {
        List<Unit> candidates =
                key == null ? new ArrayList<>(units.values()) : byKey.getOrDefault(new ByteKey(key), List.of());
        for (Unit u : candidates) {
            if (ready(u, awaitsUpTo)) {
                remove(u);
                return u;
            }
        }
        return null;
    }

    private static boolean ready(Unit u, BiPredicate<byte[], TxId> awaitsUpTo) {
        if (u.members.size() < u.size) return false;
        // the newest value held per key: a unit that writes a key twice ships only its last value
        Map<ByteKey, TxId> newestHeld = new HashMap<>();
        for (Member m : u.members.values()) {
            if (m.value != null) newestHeld.put(new ByteKey(m.value.key()), m.value.txId()); // in TxId order
        }
        for (Member m : u.members.values()) {
            KeyPacket p = m.packet;
            if (m.value != null || p.op() == Op.FLUSH || p.op() == Op.SKIP) continue;
            TxId later = newestHeld.get(new ByteKey(p.key()));
            if (later != null && later.compareTo(p.txId()) > 0) continue; // applying it resolves this one
            if (awaitsUpTo.test(p.key(), p.txId())) return false;
        }
        return true;
    }

    /** Takes out every unit held (a full resync, a primary gone), oldest first. */
    synchronized List<Unit> takeAll() {
        List<Unit> all = new ArrayList<>(units.values());
        all.sort((a, b) -> a.first.compareTo(b.first));
        for (Unit u : all) remove(u);
        return all;
    }

    private void remove(Unit u) {
        units.remove(u.first);
        for (Member m : u.members.values()) {
            byMember.remove(m.packet.txId());
            for (byte[] k : keysOf(m.packet)) {
                ByteKey bk = new ByteKey(k);
                List<Unit> l = byKey.get(bk);
                if (l != null) {
                    l.remove(u);
                    if (l.isEmpty()) byKey.remove(bk);
                }
            }
        }
        bytes -= u.bytes;
        count = units.size();
    }

    /** Units held now. */
    int size() {
        return count;
    }

    /** Bytes of values held now. */
    synchronized long bytes() {
        return bytes;
    }
}
