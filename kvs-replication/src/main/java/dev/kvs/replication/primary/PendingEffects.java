package dev.kvs.replication.primary;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import dev.kvs.replication.StructureEffect;
import dev.kvs.replication.wire.Frame;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The effects of structure writes not yet shipped, per key, and the TxId of the structure each key was last
 * sent to the backup at (an image or the last of a chain of effects). When a key's turn comes, the
 * {@link ValueShipper} ships its effects instead of its image if they link, each on the one before ({@code
 * base}), from the TxId last sent to the key's newest write ({@link #take}); otherwise the image ships, as
 * for any other key, and {@link #sent} records it. A backup applies an effect only on its exact base and
 * nacks it otherwise, so a chain that does not hold on the backup costs one image more, never a wrong value.
 *
 * <p>Bounded: at most {@link #MAX_BYTES} of effects held (an effect past it, or larger than {@link #MAX_EFFECT_BYTES}, breaks its key's chain: the key
 * ships whole) and at most {@link #MAX_KEYS} keys remembered (the least recently written forgotten first: its
 * next write ships whole). A write of a key other than by an effect (a string, a delete, SPOP, HINCRBY, a
 * rename) and a nack break the key's chain ({@link #broken}). Thread-safe.
 */
final class PendingEffects {
    /** The bytes of effects held at most, per replicator. */
    static final long MAX_BYTES = 16L << 20;
    /**
     * The largest effect kept: a larger one (an HSET of thousands of fields) breaks its key's chain and the image
     * ships, chunked, so no effect frame outgrows a value chunk or the backup's longest frame.
     */
    static final long MAX_EFFECT_BYTES = 64 * 1024;
    /** Keys remembered at most, per replicator. */
    static final int MAX_KEYS = 65_536;

    private record Pending(TxId txId, Frame.Op op, long expireAtMillis, StructureEffect effect) {}

    private static final class Chain {
        /** The TxId the key was last sent at; null if unknown (then its image ships). */
        TxId sent;

        final ArrayDeque<Pending> effects = new ArrayDeque<>(2);
    }

    private final long maxBytes;
    private long bytes;
    private long broken;
    private final LinkedHashMap<ByteKey, Chain> byKey = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteKey, Chain> eldest) {
            if (size() <= MAX_KEYS) return false;
            drop(eldest.getValue());
            return true;
        }
    };

    PendingEffects() {
        this(MAX_BYTES);
    }

    PendingEffects(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The write {@code txId} of {@code key} did {@code effect} to its structure, expiring at {@code expireAt}. */
    synchronized void add(byte[] key, TxId txId, Frame.Op op, long expireAt, StructureEffect effect) {
        Chain c = byKey.get(new ByteKey(key));
        if (c == null || c.sent == null) return; // not sent at a known TxId: its image ships
        long b = effect.bytes();
        if (b > MAX_EFFECT_BYTES || bytes + b > maxBytes) {
            broken++;
            drop(c);
            return;
        }
        c.effects.add(new Pending(txId, op, expireAt, effect));
        bytes += b;
    }

    /** {@code key} was written other than by an effect, or its effect was nacked: its next shipment is whole. */
    synchronized void broken(byte[] key) {
        if (!byKey.isEmpty()) broken(new ByteKey(key));
    }

    /** {@link #broken(byte[])}. */
    synchronized void broken(ByteKey key) {
        Chain c = byKey.remove(key);
        if (c != null) drop(c);
    }

    /** The structure at {@code key} was sent whole at {@code txId}: its effects after it may follow it. */
    synchronized void sent(byte[] key, TxId txId) {
        Chain c = byKey.computeIfAbsent(new ByteKey(key), k -> new Chain());
        c.sent = txId;
        for (Iterator<Pending> it = c.effects.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.txId.isAfter(txId)) break;
            bytes -= p.effect.bytes();
            it.remove();
        }
    }

    /**
     * The effects to ship for {@code key}, whose newest write is {@code newest}, as frames in TxId order: those
     * that link from the TxId last sent to {@code newest}, which they then leave as sent; or null if they do not
     * (the image ships, and the key's chain is dropped).
     */
    synchronized List<Frame.Effect> take(byte[] key, TxId newest, long sentNanos) {
        Chain c = byKey.get(new ByteKey(key));
        if (c == null || c.sent == null || c.effects.isEmpty()) return null;
        List<Frame.Effect> out = new ArrayList<>(c.effects.size());
        TxId base = c.sent;
        for (Pending p : c.effects) {
            if (!p.effect.base().equals(base) || p.txId.isAfter(newest)) break;
            StructureEffect e = p.effect;
            List<Frame.EffectMember> set = new ArrayList<>(e.names().size());
            for (int i = 0; i < e.names().size(); i++)
                set.add(new Frame.EffectMember(e.names().get(i), e.values().get(i)));
            out.add(new Frame.Effect(sentNanos, p.txId, base, p.op, key, p.expireAtMillis, set, e.removed()));
            base = p.txId;
        }
        if (!base.equals(newest) || out.isEmpty()) {
            broken++;
            byKey.remove(new ByteKey(key));
            drop(c);
            return null;
        }
        for (int i = 0; i < out.size(); i++) bytes -= c.effects.poll().effect.bytes();
        c.sent = newest;
        return out;
    }

    private void drop(Chain c) {
        for (Pending p : c.effects) bytes -= p.effect.bytes();
        c.effects.clear();
        c.sent = null;
    }

    /** The bytes of effects held now. */
    synchronized long bytes() {
        return bytes;
    }

    /** Chains broken so far (bound exceeded, a chain that did not link): their keys shipped whole. */
    synchronized long brokenCount() {
        return broken;
    }
}
