package dev.kvs.core;

/**
 * A transaction identifier: the position of one write in the history of a cluster.
 *
 * <p>{@code epoch} grows by one at every promotion (like a Raft term); {@code seq} is gap-free and
 * strictly increasing inside an epoch, assigned by the primary when it orders a write. TxIds order
 * writes: a write with a greater TxId happened after one with a smaller TxId. Immutable and
 * thread-safe.
 *
 * @param epoch the promotion generation, {@code >= 0}
 * @param seq the position inside the epoch, {@code >= 0}
 */
public record TxId(long epoch, long seq) implements Comparable<TxId> {
    /** The TxId before every write: no write has it. */
    public static final TxId ZERO = new TxId(0, 0);

    public TxId {
        if (epoch < 0) throw new IllegalArgumentException("epoch < 0: " + epoch);
        if (seq < 0) throw new IllegalArgumentException("seq < 0: " + seq);
    }

    public static TxId of(long epoch, long seq) {
        return new TxId(epoch, seq);
    }

    /**
     * Parses the {@link #toString()} form {@code epoch:seq}.
     *
     * @throws IllegalArgumentException if {@code text} is not of that form
     */
    public static TxId parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("TxId is not epoch:seq: " + text);
        }
        try {
            return new TxId(Long.parseLong(text.substring(0, colon)), Long.parseLong(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("TxId is not epoch:seq: " + text, e);
        }
    }

    /** The TxId that follows this one in the same epoch. */
    public TxId next() {
        return new TxId(epoch, seq + 1);
    }

    public boolean isAfter(TxId other) {
        return compareTo(other) > 0;
    }

    public boolean isBefore(TxId other) {
        return compareTo(other) < 0;
    }

    @Override
    public int compareTo(TxId o) {
        int c = Long.compare(epoch, o.epoch);
        return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public String toString() {
        return epoch + ":" + seq;
    }
}
