package dev.kvs.replication.backup;

import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.KeyPacket;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Contiguity of the key packets received: the highest TxId up to which every key packet of its epoch
 * has arrived, and the packets received beyond a gap, held until the gap is filled.
 *
 * <p>A packet follows {@code contiguous} if it is {@code contiguous.next()} or the first seq of a
 * later epoch. Packets beyond are held (at most {@code maxHeld}; past that the highest are dropped,
 * which is safe because nothing beyond {@code contiguous} has been acknowledged and the primary
 * resends everything after it). Not thread-safe: the key channel's owner serialises calls.
 */
final class KeySequence {
    /** What {@link #offer} did with a packet. */
    enum Offer {
        /** The packet follows the sequence; it and any held packets it unblocked are ready. */
        ACCEPTED,
        /** At or below {@code contiguous}, or already held: nothing to do. */
        DUPLICATE,
        /** Beyond a gap: held (or dropped at the bound) until the gap is filled. */
        HELD
    }

    private final int maxHeld;
    private final TreeMap<TxId, KeyPacket> held = new TreeMap<>();
    private TxId contiguous;
    /** {@code contiguous} when the last resend was asked while a gap is open; null if none asked. */
    private TxId resendAsked;

    KeySequence(TxId contiguous, int maxHeld) {
        if (maxHeld <= 0) throw new IllegalArgumentException("maxHeld <= 0: " + maxHeld);
        this.contiguous = contiguous;
        this.maxHeld = maxHeld;
    }

    /**
     * Offers the next packet received. Packets that become contiguous, this one included, are appended
     * to {@code ready} in TxId order.
     */
    Offer offer(KeyPacket p, List<KeyPacket> ready) {
        TxId t = p.txId();
        if (t.compareTo(contiguous) <= 0) return Offer.DUPLICATE;
        if (follows(t)) {
            ready.add(p);
            contiguous = t;
            drainHeld(ready);
            return Offer.ACCEPTED;
        }
        if (held.containsKey(t)) return Offer.DUPLICATE;
        if (held.size() >= maxHeld) {
            if (t.compareTo(held.lastKey()) > 0) return Offer.HELD; // dropped: the resend brings it again
            held.pollLastEntry();
        }
        held.put(t, p);
        return Offer.HELD;
    }

    /**
     * The TxId to ask a {@code Resend} after, or {@code null}: asked once per open gap (the primary
     * resends everything after it, which fills every later gap too), again only once the gap has
     * closed and a new one opened, or after {@link #forgetHeld()}.
     */
    TxId resendNeeded() {
        if (held.isEmpty()) {
            resendAsked = null;
            return null;
        }
        if (resendAsked != null) return null;
        resendAsked = contiguous;
        return contiguous;
    }

    /**
     * Sets {@code contiguous} to {@code upTo} (a full resync listed everything up to it), drops the held
     * packets at or below it, and appends those that now follow to {@code ready}.
     */
    void resetTo(TxId upTo, List<KeyPacket> ready) {
        contiguous = upTo;
        held.headMap(upTo, true).clear();
        resendAsked = null;
        drainHeld(ready);
    }

    /** Drops the held packets (a new key channel starts over from {@code contiguous}). */
    void forgetHeld() {
        held.clear();
        resendAsked = null;
    }

    TxId contiguous() {
        return contiguous;
    }

    int held() {
        return held.size();
    }

    private boolean follows(TxId t) {
        return t.equals(contiguous.next()) || (t.epoch() > contiguous.epoch() && t.seq() == 1);
    }

    private void drainHeld(List<KeyPacket> ready) {
        while (!held.isEmpty()) {
            Map.Entry<TxId, KeyPacket> first = held.firstEntry();
            TxId t = first.getKey();
            if (t.compareTo(contiguous) <= 0) {
                held.pollFirstEntry();
            } else if (follows(t)) {
                held.pollFirstEntry();
                ready.add(first.getValue());
                contiguous = t;
            } else {
                return;
            }
        }
        resendAsked = null;
    }
}
