package dev.kvs.replication.backup;

import dev.kvs.core.TxId;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Deletes whose values came before their key packets (values and key packets travel on different
 * connections and event loops), held until the key channel passes them: applied then, a delete
 * leaves no tombstone (see {@link BackupApplier#apply(ValueAssembler.Whole, BackupApplier.Settled)}).
 * Bounded by {@link #MAX}. Thread-safe.
 */
final class HeldDeletes {
    /** Deletes held at most; past it a delete that comes before its key packet leaves a tombstone. */
    static final int MAX = 65_536;

    /** A held delete and where its outcome goes. */
    record Held(ValueAssembler.Whole value, BackupApplier.Settled settled) {}

    private final PriorityQueue<Held> held = // this; oldest TxId first
            new PriorityQueue<>((a, b) -> a.value.txId().compareTo(b.value.txId()));

    /** Holds {@code value}; false if {@link #MAX} are held already (nothing held then). */
    synchronized boolean add(ValueAssembler.Whole value, BackupApplier.Settled settled) {
        if (held.size() >= MAX) return false;
        held.add(new Held(value, settled));
        return true;
    }

    /** True if a held delete's TxId is at or before {@code contiguous}: its key packet has arrived. */
    synchronized boolean due(TxId contiguous) {
        return !held.isEmpty() && held.peek().value.txId().compareTo(contiguous) <= 0;
    }

    /** Takes the held deletes at or before {@code contiguous}, oldest first. */
    synchronized List<Held> takeDue(TxId contiguous) {
        List<Held> due = new ArrayList<>();
        while (due(contiguous)) due.add(held.poll());
        return due;
    }

    /** Drops every held delete: their primary is gone. */
    synchronized void clear() {
        held.clear();
    }

    synchronized int size() {
        return held.size();
    }
}
